/** Path spelling shared by the search engines: POSIX, relative to the workspace root. */
import { isAbsolute, relative, resolve, sep } from "node:path";

export function toPosix(p: string): string {
  return sep === "/" ? p : p.split(sep).join("/");
}

/**
 * POSIX path of `absolute` relative to `root`; the absolute path itself when it lies outside the
 * root (an extra root), so the caller can still open it.
 */
export function relativeToRoot(root: string, absolute: string): string {
  const rel = relative(root, absolute);
  if (rel === "") return ".";
  if (rel.startsWith("..") || isAbsolute(rel)) return toPosix(absolute);
  return toPosix(rel);
}

/** Resolve a path a child process printed (relative to its cwd) and spell it for the result. */
export function printedToRoot(root: string, cwd: string, printed: string): string {
  return relativeToRoot(root, resolve(cwd, printed));
}

/** Plain code-unit order: the same on every platform and locale. */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
