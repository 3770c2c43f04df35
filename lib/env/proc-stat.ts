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
  return stat.slice(stat.lastIndexOf(")") + 2).trimEnd().split(" ", limit);
}
