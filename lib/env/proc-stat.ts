/**
 * /proc/<pid>/stat as fields (Linux). The second field, "(comm)", may hold spaces and parentheses,
 * so the line is split after the last ")".
 */
import { readFileSync } from "node:fs";

/**
 * The fields from the third (state) on, so field n of proc(5) is at index n - 3; at most `limit`
 * of them (a scan of every process reads no further than it needs). Undefined when the process
 * is gone or there is no /proc.
 */
export function procStat(pid: number | "self", limit?: number): string[] | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return undefined;
  }
  return stat
    .slice(stat.lastIndexOf(")") + 2)
    .trimEnd()
    .split(" ", limit);
}

/** When the process started, in clock ticks since boot (field 22); undefined when gone or without /proc. */
export function processStartTicks(pid: number | "self"): number | undefined {
  const ticks = Number(procStat(pid, 20)?.[19]);
  return Number.isFinite(ticks) ? ticks : undefined;
}

/** Clock ticks per second of /proc's times (USER_HZ: 100 on every Linux architecture gong runs on). */
const TICKS_PER_SECOND = 100;
let bootMs: number | undefined;

/** When the process started, in ms since the epoch (to compare with a file's mtime); undefined without /proc. */
export function processStartMs(pid: number): number | undefined {
  const ticks = processStartTicks(pid);
  if (ticks === undefined) return undefined;
  if (bootMs === undefined) {
    const btime = /^btime (\d+)$/m.exec(readFileSync("/proc/stat", "latin1"))?.[1];
    if (btime === undefined) return undefined;
    bootMs = Number(btime) * 1000;
  }
  return bootMs + (ticks * 1000) / TICKS_PER_SECOND;
}
