/**
 * Whether anyone still reads a command's stdin (Linux, /proc). A write to an input nobody reads
 * any more should say so, but not every runtime reports the EPIPE (Bun's stdin is a socket pair
 * whose writes succeed after the reader closed it): so gong notes what the command got as fd 0
 * when it started, and later looks whether any process of its tree still holds that object.
 */
import { readdirSync, readlinkSync } from "node:fs";

/** What a process has as its stdin (`pipe:[n]`, `socket:[n]`); undefined without /proc. */
export function stdinObject(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/fd/0`);
  } catch {
    return undefined;
  }
}

/** Whether one of `pids` holds `object` open (on any of its descriptors). */
export function heldByAny(pids: number[], object: string): boolean {
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === object) return true;
      } catch {
        // closed meanwhile
      }
    }
  }
  return false;
}
