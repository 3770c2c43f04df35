/**
 * `searchGlob`: the file finder behind ExecutionEnvironment.glob. fd when it is on the given PATH
 * (as `fd` or `fdfind`), otherwise the built-in walker; either way the paths come back relative to
 * the workspace root, newest first, directories ending in "/". Symlinks are listed under their
 * own name and never descended into.
 */
import { lstat } from "node:fs/promises";
import { ToolError } from "../../envelope.ts";
import type { GlobOptions, GlobResult } from "../types.ts";
import { fdSearch } from "./fd.ts";
import { walkGlob } from "./glob-walk.ts";
import { rejectNul, type SearchContext } from "./grep.ts";
import { relativeToRoot } from "../../paths.ts";
import { comparePaths } from "./paths.ts";
import { searchTarget } from "./searched-path.ts";
import { findExecutable } from "./which.ts";

export const DEFAULT_GLOB_LIMIT = 1000;
const STATS_IN_FLIGHT = 32;

export async function searchGlob(options: GlobOptions, ctx: SearchContext): Promise<GlobResult> {
  rejectNul("pattern", options.pattern);
  if (options.pattern.trim() === "")
    throw new ToolError(
      "INVALID_PARAM",
      "The glob pattern is empty. Give a pattern such as '*.ts' or 'src/**/*.test.ts'.",
    );
  if (options.pattern.startsWith("!"))
    throw new ToolError(
      "INVALID_PARAM",
      `Negated patterns ('${options.pattern}') are not supported. Give the pattern of the paths you want.`,
    );
  const target = await searchTarget(ctx.root, options.path);
  if (!target.isDirectory) {
    throw new ToolError(
      "INVALID_PARAM",
      `Path '${relativeToRoot(ctx.root, options.path)}' is a file; a file search runs over a directory. Pass its parent directory instead.`,
    );
  }
  const limit = Math.max(1, Math.floor(options.limit ?? DEFAULT_GLOB_LIMIT));
  const fd = findExecutable(["fd", "fdfind"], ctx.pathEnv);
  const found = fd ? await fdSearch(fd, options, limit, target, ctx.pathEnv) : await walkGlob(options, limit, target);
  const paths = await newestFirst(ctx.root, found.paths, options.signal);
  return { paths, limitReached: found.limitReached, engine: fd ? "fd" : "typescript" };
}

/** Root-relative POSIX paths sorted by modification time, newest first; directories get "/". */
async function newestFirst(root: string, absolutePaths: string[], signal?: AbortSignal): Promise<string[]> {
  const rows: { path: string; mtime: number }[] = new Array(absolutePaths.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < absolutePaths.length; i = next++) {
      signal?.throwIfAborted();
      const abs = absolutePaths[i];
      const info = await lstat(abs).catch(() => null);
      const rel = relativeToRoot(root, abs);
      rows[i] = { path: info?.isDirectory() ? `${rel}/` : rel, mtime: info?.mtimeMs ?? 0 };
    }
  };
  await Promise.all(Array.from({ length: STATS_IN_FLIGHT }, worker));
  rows.sort((a, b) => b.mtime - a.mtime || comparePaths(a.path, b.path));
  return rows.map((r) => r.path);
}
