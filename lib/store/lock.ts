/**
 * One writer per session file. A live session holds `<file>.lock`, which names the owner's pid; a
 * second process that wants to write the same session is refused (it may branch off on purpose
 * instead). A lock whose owner is gone (killed, crashed) is stale and taken over, and so is one
 * whose pid now belongs to another process (the lock records when its owner started). Within one
 * process the lock is shared: a host that reopens its own session over the same file keeps it.
 */
import { closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import process from "node:process";
import { processStartMs, processStartTicks } from "../env/proc-stat.ts";
import { atExit } from "../env/process-trees.ts";
import { isProcessAlive } from "../temp-files.ts";

export class SessionLockedError extends Error {
  constructor(
    readonly path: string,
    readonly pid: number,
  ) {
    super(`the session is in use by another gong process (pid ${pid}; lock file ${lockPathOf(path)})`);
    this.name = "SessionLockedError";
  }
}

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
      const owner = ownerOf(lock);
      if (owner !== undefined && owner !== process.pid && ownerLives(lock, owner))
        throw new SessionLockedError(sessionPath, owner);
      // No pid yet may mean another process created the file a moment ago and is writing it.
      if (owner === undefined && ageMs(lock) < 2000) throw new SessionLockedError(sessionPath, 0);
      // Stale (owner gone, or unreadable): take it over. Two processes racing here: one create wins.
      removeQuietly(lock);
      created = tryCreate(lock);
      if (created === "exists") throw new SessionLockedError(sessionPath, ownerOf(lock) ?? 0);
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
  let fd: number;
  try {
    mkdirSync(dirname(lock), { recursive: true });
    fd = openSync(lock, "wx");
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EEXIST" ? "exists" : "unavailable";
  }
  try {
    // The pid and when that process started: a later process given the same pid is not the owner.
    const started = processStartTicks("self");
    writeSync(fd, started === undefined ? `${process.pid}\n` : `${process.pid} ${started}\n`);
  } catch {
    // A full disk: the pid could not be written; an empty lock reads as stale, which is the truth.
  } finally {
    closeSync(fd);
  }
  return "created";
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
