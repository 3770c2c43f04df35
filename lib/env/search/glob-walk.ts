/** The built-in glob engine, used when fd is not on PATH: the shared walker plus picomatch. */
import { compileGlob } from "./glob-filter.ts";
import { FIND_IGNORE_FILES } from "./ignore-rules.ts";
import type { GlobOptions } from "../types.ts";
import type { SearchTarget } from "./searched-path.ts";
import { walk } from "./walk.ts";

export interface FoundPaths {
  /** Absolute paths, in discovery order. */
  paths: string[];
  limitReached: boolean;
}

export async function walkGlob(options: GlobOptions, limit: number, target: SearchTarget): Promise<FoundPaths> {
  const { pattern, signal } = options;
  // fd's smart case when the caller does not say: exact only when the pattern has a capital.
  const matches = compileGlob(pattern, { nocase: options.ignoreCase ?? !/[A-Z]/.test(pattern) });
  const paths: string[] = [];
  for await (const entry of walk(target.path, {
    root: target.root,
    ignoreFiles: options.noIgnore ? [] : FIND_IGNORE_FILES,
    signal,
  })) {
    if (!matches(entry.rel, entry.name)) continue;
    if (paths.length === limit) return { paths, limitReached: true };
    paths.push(entry.abs);
  }
  return { paths, limitReached: false };
}
