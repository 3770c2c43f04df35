/**
 * find — find files by glob (docs/conformance.md: 003 §F, 004 §3.3 glob). fd through the
 * environment when installed, the built-in walker otherwise (the registry then reports the
 * fallback: search-fallback.ts). Paths come back relative to the project root, newest first,
 * directories ending in "/".
 */
import * as v from "valibot";
import type { ToolResponse } from "../lib/envelope.ts";
import type { GlobOptions } from "../lib/env/types.ts";
import { text, whole } from "./args.ts";
import { joinLines, withNotices } from "./grep.ts";
import type { Tool, ToolRunContext } from "./types.ts";
import { count, defaultResultSummary } from "./metadata.ts";
import { naming, toolFor } from "./naming.ts";

export const FIND_DEFAULT_LIMIT = 1000;

const schema = v.strictObject({
  pattern: text(
    "Glob to match: without '/' it matches names at any depth ('*.ts'); with '/' it matches paths below 'path' ('src/**/*.test.ts').",
  ),
  path: v.optional(text("Directory to search. Default: the working directory.")),
  limit: v.optional(whole(`Maximum number of paths to return. Default ${FIND_DEFAULT_LIMIT}.`, 1, 100_000)),
});
export type FindArgs = v.InferOutput<typeof schema>;

export const findTool: Tool<FindArgs> = {
  name: "find",
  description:
    "Finds files and directories by glob pattern and lists them newest first (directories end in '/'). " +
    "Hidden files are included; .gitignore'd paths are skipped; symlinked directories are listed but not entered. " +
    `Returns at most 'limit' paths (default ${FIND_DEFAULT_LIMIT}).`,
  schema,
  truncation: "head_tail",
  kind: "search",
  summarizeCall: (a) => `${a.pattern ?? ""}${a.path !== undefined ? ` in ${a.path}` : ""}`,
  summarizeResult: (r) =>
    r.status === "error" || !Array.isArray(r.data.paths) ? defaultResultSummary(r) : count(r.data.paths.length, "path"),
  touches: (a) => [{ as: "Glob", target: a.path, input: { pattern: a.pattern } }],
  run: (args, ctx) => findFiles(args, ctx),
};

/** What a profile's finder may ask beyond find's own arguments (gemini-cli's glob: case and ignore files). */
export type FindMatching = Pick<GlobOptions, "noIgnore" | "ignoreCase">;

export async function findFiles(
  args: FindArgs,
  ctx: ToolRunContext,
  matching: FindMatching = {},
): Promise<ToolResponse> {
  const limit = args.limit ?? FIND_DEFAULT_LIMIT;
  const where = args.path ?? ".";
  const resolved = await ctx.env.resolvePath(where, { reading: true });
  if (!resolved.exists) {
    return ctx.reply.fail(
      "NOT_FOUND",
      `Directory '${where}' does not exist. Check the path${naming(toolFor(ctx.toolNames, "ls", "find"), (t) => `, or use ${t} to see what is there`)}.`,
      { pathResolved: resolved.relative },
    );
  }
  const result = await ctx.env.glob({
    ...matching,
    pattern: args.pattern,
    path: resolved.absolute,
    limit,
    signal: ctx.signal,
  });

  const listing = joinLines(result.paths, ctx);
  const notices: string[] = [];
  if (result.limitReached)
    notices.push(`${limit} results limit reached. Use limit=${limit * 2} for more, or refine pattern`);

  const truncated = result.limitReached;
  const data: Record<string, unknown> = { paths: result.paths, truncated };
  const extras = {
    pathResolved: resolved.relative,
    stats: { total_paths: result.paths.length, engine: result.engine },
  };
  const n = result.paths.length;
  const head =
    n === 0
      ? `No files found matching '${args.pattern}' in '${where}'. A pattern without '/' matches names ('*.ts'); use '**/' to match paths at any depth.`
      : `Found ${n} ${n === 1 ? "path" : "paths"} matching '${args.pattern}' in '${where}' (newest first):\n${listing}`;
  const body = withNotices(head, notices);
  return truncated ? ctx.reply.partial(data, body, extras) : ctx.reply.success(data, body, extras);
}
