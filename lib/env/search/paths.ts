/** Path spelling shared by the search engines: POSIX, relative to the workspace root (lib/paths.ts). */
import { resolve } from "node:path";
import { relativeToRoot } from "../../paths.ts";

/** Resolve a path a child process printed (relative to its cwd) and spell it for the result. */
export function printedToRoot(root: string, cwd: string, printed: string): string {
  return relativeToRoot(root, resolve(cwd, printed));
}

/** Plain code-unit order: the same on every platform and locale. */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
