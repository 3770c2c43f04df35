/**
 * One writer per session file. A live session holds `<file>.lock`, which names the owner's pid; a
 * second process that wants to write the same session is refused (it may branch off on purpose
 * instead). A lock whose owner is gone (killed, crashed) is stale and taken over, and so is one
 * whose pid now belongs to another process (the lock records when its owner started). Within one
 * process the lock is shared: a host that reopens its own session over the same file keeps it.
 *
 * The lock is written whole before it exists: its text goes to a temp file that is then hard-linked
 * to the lock's name (which fails if the lock exists), so no reader sees a lock without its pid.
 * Where the file system has no hard links, the lock is created empty and then written; a reader
 * that finds a lock without a pid waits a moment for it, and takes over a lock that stays empty.
 */
import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import process from "node:process";
import { processStartMs, processStartTicks } from "../env/proc-stat.ts";
import { atExit } from "../env/process-trees.ts";
import { isProcessAlive, tempPathFor } from "../temp-files.ts";

export class SessionLockedError extends Error {
  constructor(
    readonly path: string,
    /** The owner's pid; undefined for a lock another process took over at the same moment without writing it yet. */
    readonly pid: number | undefined,
  ) {
    super(`the session is in use by another gong process (${ownerText(pid)}lock file ${lockPathOf(path)})`);
    this.name = "SessionLockedError";
  }
}

/** "pid 123; " for a known owner. */
export const ownerText = (pid: number | undefined): string => (pid === undefined ? "" : `pid ${pid}; `);

/** Locks held by this process: lock path → holders. */
const held = new Map<string, number>();

export const lockPathOf = (sessionPath: string) => `${sessionPath}.lock`;

/** Takes the lock of `sessionPath` (throws SessionLockedError when a live process holds it); returns its release. */
export function acquireSessionLock(sessionPath: string): () => void {
  const lock = lockPathOf(sessionPath);
  const holders = held.get(lock);
  if (holders === undefined) {
    let created = tryCreate(lock);
    // A folder that cannot take a lock file cannot take the session either: the write will say so.
    if (created === "unavailable") return () => {};
    if (created === "exists") {
      const owner = ownerOnceWritten(lock);
      if (owner !== undefined && owner !== process.pid && ownerLives(lock, owner))
        throw new SessionLockedError(sessionPath, owner);
      // Stale (owner gone, or never written): take it over. Two processes racing here: one create wins.
      removeQuietly(lock);
      created = tryCreate(lock);
      if (created === "exists") throw new SessionLockedError(sessionPath, ownerOnceWritten(lock));
      if (created === "unavailable") return () => {};
    }
    atExit(releaseHeldLocks);
  }
  held.set(lock, (holders ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (held.get(lock) ?? 1) - 1;
    if (left > 0) held.set(lock, left);
    else {
      held.delete(lock);
      if (ownerOf(lock) === process.pid) removeQuietly(lock);
    }
  };
}

function tryCreate(lock: string): "created" | "exists" | "unavailable" {
  // The pid and when that process started: a later process given the same pid is not the owner.
  const started = processStartTicks("self");
  const text = started === undefined ? `${process.pid}\n` : `${process.pid} ${started}\n`;
  const temp = tempPathFor(lock);
  try {
    mkdirSync(dirname(lock), { recursive: true });
    writeFileSync(temp, text, { flag: "wx" });
  } catch {
    // A full disk, a read-only folder: the plain create below says which.
    removeQuietly(temp);
    return createInPlace(lock, text);
  }
  try {
    linkSync(temp, lock);
    return "created";
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return "exists";
    // No hard links on this file system.
    return createInPlace(lock, text);
  } finally {
    removeQuietly(temp);
  }
}

/** The lock created empty, then written: where a whole lock cannot be linked into place. */
function createInPlace(lock: string, text: string): "created" | "exists" | "unavailable" {
  let fd: number;
  try {
    mkdirSync(dirname(lock), { recursive: true });
    fd = openSync(lock, "wx");
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EEXIST" ? "exists" : "unavailable";
  }
  try {
    writeSync(fd, text);
  } catch {
    // A full disk: the pid could not be written; an empty lock reads as stale, which is the truth.
  } finally {
    closeSync(fd);
  }
  return "created";
}

/** How long a lock without a pid may be in the making (created in place, not yet written). */
const UNWRITTEN_LOCK_MS = 2000;

/** The lock's pid, waiting while a lock younger than UNWRITTEN_LOCK_MS has none yet; undefined when it stays without one. */
function ownerOnceWritten(lock: string): number | undefined {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    const owner = ownerOf(lock);
    if (owner !== undefined || ageMs(lock) >= UNWRITTEN_LOCK_MS) return owner;
    Atomics.wait(pause, 0, 0, 20);
  }
}

/**
 * Whether the process that wrote the lock still runs. A pid alone is not enough — pids are reused:
 * the process under that pid must have started when the lock says (or, for a lock naming only a
 * pid, before the lock was written). A live process that is someone else leaves the lock stale.
 */
function ownerLives(lock: string, pid: number): boolean {
  if (!isProcessAlive(pid)) return false;
  const recorded = startOf(lock);
  if (recorded !== undefined) {
    const now = processStartTicks(pid);
    return now === undefined || now === recorded;
  }
  const started = processStartMs(pid);
  let written: number;
  try {
    written = statSync(lock).mtimeMs;
  } catch {
    return true;
  }
  // A second of slack for the clock's granularity.
  return started === undefined || started <= written + 1000;
}

function startOf(lock: string): number | undefined {
  try {
    const ticks = Number(readFileSync(lock, "utf8").trim().split(/\s+/)[1]);
    return Number.isInteger(ticks) && ticks >= 0 ? ticks : undefined;
  } catch {
    return undefined;
  }
}

function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return Infinity;
  }
}

function ownerOf(lock: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lock, "utf8"), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

/** Locks are files: remove ours when the process ends normally (a kill -9 leaves a stale one, taken over later). */
function releaseHeldLocks(): void {
  for (const lock of held.keys()) if (ownerOf(lock) === process.pid) removeQuietly(lock);
  held.clear();
}
