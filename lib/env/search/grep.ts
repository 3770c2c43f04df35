/**
 * `searchGrep`: the grep behind ExecutionEnvironment.grep. ripgrep when it is on the given PATH,
 * otherwise the built-in TypeScript engine with the same meaning (`engine` says which ran).
 */
import { ToolError } from "../../envelope.ts";
import type { GrepOptions, GrepResult } from "../types.ts";
import { DEFAULT_GREP_LIMIT } from "./grep-lines.ts";
import { ripgrepSearch } from "./ripgrep.ts";
import { searchTarget } from "./searched-path.ts";
import { typescriptSearch } from "./text-search.ts";
import { findExecutable } from "./which.ts";

export interface SearchContext {
  /** Absolute workspace root; result paths are relative to it. */
  root: string;
  /** PATH used to look for rg / fd. */
  pathEnv: string;
}

export async function searchGrep(options: GrepOptions, ctx: SearchContext): Promise<GrepResult> {
  rejectNul("pattern", options.pattern);
  if (options.glob !== undefined) rejectNul("glob", options.glob);
  const normalized: GrepOptions = {
    ...options,
    limit: Math.max(1, Math.floor(options.limit ?? DEFAULT_GREP_LIMIT)),
    context: Math.max(0, Math.floor(options.context ?? 0)),
  };
  const target = await searchTarget(ctx.root, options.path);
  const rg = findExecutable(["rg"], ctx.pathEnv);
  return rg ? ripgrepSearch(rg, normalized, target, ctx.pathEnv) : typescriptSearch(normalized, target);
}

/** A NUL byte cannot reach a search program's argument list, nor match a file name. */
export function rejectNul(field: string, value: string): void {
  if (value.includes("\0")) throw new ToolError("INVALID_PARAM", `'${field}' contains a NUL byte; remove it.`);
}
