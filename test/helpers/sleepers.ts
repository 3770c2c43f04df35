/**
 * Counting a test's own processes in /proc: a command started as `sleep <tag>` with a tag no other
 * test uses is living exactly while `sleepers(tag)` counts it (a zombie has no command line).
 */
import { readdirSync, readFileSync } from "node:fs";

/** Living processes whose command line is `sleep <tag>`. */
export function sleepers(tag: string): number {
  return readdirSync("/proc").filter((p) => {
    if (!/^\d+$/.test(p)) return false;
    try {
      return readFileSync(`/proc/${p}/cmdline`, "latin1") === `sleep\0${tag}\0`;
    } catch {
      return false;
    }
  }).length;
}
