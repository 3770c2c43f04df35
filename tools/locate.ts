/**
 * The prologue the file tools share: resolve the model's path inside the workspace (an escape is
 * ACCESS_DENIED, thrown) and look at what is there.
 */
import type { FileInfo, ResolvedPath } from "../lib/env/types.ts";
import type { ToolRunContext } from "./types.ts";

export interface Target {
  resolved: ResolvedPath;
  /** null when nothing exists at the path. */
  info: FileInfo | null;
  /** For the envelope's `context.path_resolved`. */
  extras: { pathResolved: string };
}

/**
 * `variants`: also try the macOS spellings of a name that does not exist as given (see lib/paths.ts);
 * `reading`: the tool only reads, so folders opened for reading (a loaded skill's) are in reach too.
 */
export async function locate(
  ctx: ToolRunContext,
  path: string,
  options: { variants?: boolean; reading?: boolean } = {},
): Promise<Target> {
  const resolved = await ctx.env.resolvePath(path, options);
  const info = resolved.exists ? await ctx.env.stat(resolved.absolute) : null;
  return { resolved, info, extras: { pathResolved: resolved.relative } };
}
