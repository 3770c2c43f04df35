/**
 * Atomic writes (a temp file beside the target, then a rename) and their temp files. A process
 * killed between the two leaves its temp file behind, possibly large. Every such file carries a
 * recognisable name with its owner's pid — `.<name>.gong-<pid>-<random>.tmp` — so a later gong can
 * tell an orphan (older than a minute, owner gone) from a write in progress, and remove it: each
 * atomic write sweeps its folder (once per process).
 */
import { randomHex } from "./hash.ts";
import { renameSync, rmSync, writeFileSync } from "node:fs";
import { chmod, open, readdir, rename, rm, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import process from "node:process";

// `s`: a file name may hold a newline, and its temp file must still be recognised.
const TEMP_NAME = /^\..*\.gong-(\d+)-[0-9a-f]+\.tmp$/s;

/** A name may have 255 bytes; the temp name adds about 35 to the target's, so a longer one is cut. */
const KEPT_NAME_BYTES = 200;

/** Orphans must be at least this old: a slow write of a live process is never touched. */
export const ORPHAN_AGE_MS = 60_000;

/** The temp path for an atomic write of `target` (same folder, so the rename stays atomic). */
export function tempPathFor(target: string): string {
  return join(dirname(target), `.${keptName(basename(target))}.gong-${process.pid}-${randomHex(6)}.tmp`);
}

export interface AtomicWriteOptions {
  /** The new file's mode; the async write sets it exactly (the umask aside). */
  mode?: number;
  /** Sweep the folder's orphaned temp files (default true; a store of many folders sweeps in its gc). */
  sweep?: boolean;
}

/**
 * Writes `data` to `path` so that a reader, or a crash, sees the old file or the new one, never a
 * half-written one; a failed write leaves no temp file. The folder must exist.
 */
export function writeFileAtomicSync(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const temp = tempPathFor(path);
  try {
    writeFileSync(temp, data, options.mode === undefined ? undefined : { mode: options.mode });
    renameSync(temp, path);
  } catch (e) {
    rmSync(temp, { force: true });
    throw e;
  }
  if (options.sweep !== false) void sweepTempFiles(dirname(path));
}

/** writeFileAtomicSync, without blocking: the temp file is created new (never another's), its mode set exactly. */
export async function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}) {
  const temp = tempPathFor(path);
  try {
    const handle = await open(temp, "wx", options.mode ?? 0o666);
    try {
      await handle.writeFile(data);
    } finally {
      await handle.close();
    }
    // open() applies the umask; an explicit mode must hold exactly.
    if (options.mode !== undefined) await chmod(temp, options.mode);
    await rename(temp, path);
  } catch (e) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw e;
  }
  if (options.sweep !== false) await sweepTempFiles(dirname(path));
}

/** `name` cut to KEPT_NAME_BYTES of UTF-8 at a character boundary. */
function keptName(name: string): string {
  if (Buffer.byteLength(name) <= KEPT_NAME_BYTES) return name;
  let bytes = 0;
  let kept = "";
  for (const char of name) {
    bytes += Buffer.byteLength(char);
    if (bytes > KEPT_NAME_BYTES) break;
    kept += char;
  }
  return kept;
}

/** The owner pid of a temp file name, or undefined when the name is not one of ours. */
export function tempFileOwner(name: string): number | undefined {
  const match = TEMP_NAME.exec(name);
  return match ? Number(match[1]) : undefined;
}

/** Signal 0 checks existence; EPERM means it exists under another user. */
export function isProcessAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

const swept = new Set<string>();

/**
 * Removes orphaned temp files directly in `dir`; returns the paths removed. Each folder is swept
 * once per process (the first write there, or the start in a project), so frequent writes cost
 * one listing, not one each. Never throws: sweeping is housekeeping.
 */
export async function sweepTempFiles(dir: string, now = Date.now()): Promise<string[]> {
  if (swept.has(dir)) return [];
  swept.add(dir);
  const removed: string[] = [];
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const owner = tempFileOwner(name);
    if (owner === undefined || isProcessAlive(owner)) continue;
    const path = join(dir, name);
    try {
      if (now - (await stat(path)).mtimeMs < ORPHAN_AGE_MS) continue;
      await unlink(path);
      removed.push(path);
    } catch {
      // Gone already, or not ours to remove.
    }
  }
  return removed;
}
