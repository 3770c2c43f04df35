/**
 * grep — search file contents (docs/conformance.md: 003 §3.5/§E, 004 §3.3 grep). ripgrep through
 * the environment when it is installed, the built-in TypeScript search otherwise (the registry then
 * reports the fallback, see search-fallback.ts). The match limit is the only bound the tool sets;
 * every matching line is returned whole and the framework alone cuts the answer for the model.
 */
import * as v from "valibot";
import type { ToolResponse } from "../lib/envelope.ts";
import type { GrepLine } from "../lib/env/types.ts";
import { flag, text, whole } from "./args.ts";
import type { Tool, ToolRunContext } from "./types.ts";
import { count, defaultResultSummary } from "./metadata.ts";
import { naming, toolChoice } from "./naming.ts";

export const GREP_DEFAULT_LIMIT = 100;

const schema = v.strictObject({
  pattern: text("Regular expression to search for (ripgrep syntax), or plain text with literal=true."),
  path: v.optional(text("File or directory to search. Default: the working directory.")),
  glob: v.optional(
    text(
      "Only search files matching this glob, e.g. '*.ts' (matches names) or 'src/**/*.ts' (matches paths below 'path').",
    ),
  ),
  ignore_case: v.optional(flag("Match without regard to case. Default false.")),
  literal: v.optional(flag("Treat the pattern as plain text, not a regular expression. Default false.")),
  context: v.optional(whole("Lines of context to show before and after each match. Default 0.", 0, 50)),
  limit: v.optional(whole(`Maximum number of matches to return. Default ${GREP_DEFAULT_LIMIT}.`, 1, 10_000)),
});
export type GrepArgs = v.InferOutput<typeof schema>;

export const grepTool: Tool<GrepArgs> = {
  name: "grep",
  description:
    "Searches file contents for a regular expression and returns matching lines as 'path:line: text' " +
    "(context lines as 'path-line- text'). Hidden files are searched; .gitignore'd files and binary files are skipped. " +
    `Returns at most 'limit' matches (default ${GREP_DEFAULT_LIMIT}).`,
  schema,
  truncation: "head_tail",
  kind: "search",
  summarizeCall: (a) =>
    `${a.pattern ?? ""}${a.path !== undefined ? ` in ${a.path}` : ""}${a.glob !== undefined ? ` (${a.glob})` : ""}`,
  summarizeResult: (r) =>
    r.status === "error" || !Array.isArray(r.data.matches)
      ? defaultResultSummary(r)
      : count(r.data.matches.length, "match", "matches"),
  touches: (a) => [{ as: "Grep", target: a.path, input: { pattern: a.pattern, glob: a.glob } }],
  run: grep,
};

async function grep(args: GrepArgs, ctx: ToolRunContext): Promise<ToolResponse> {
  const limit = args.limit ?? GREP_DEFAULT_LIMIT;
  const resolved = await ctx.env.resolvePath(args.path ?? ".", { reading: true });
  const where = args.path ?? ".";
  if (!resolved.exists) {
    return ctx.reply.fail(
      "NOT_FOUND",
      `Path '${where}' does not exist. Check the path${naming(toolChoice(ctx.toolNames, "ls", "find"), (t) => `, or use ${t} to locate it`)}.`,
      { pathResolved: resolved.relative },
    );
  }
  const result = await ctx.env.grep({
    pattern: args.pattern,
    path: resolved.absolute,
    glob: args.glob,
    ignoreCase: args.ignore_case,
    literal: args.literal,
    context: args.context,
    limit,
    signal: ctx.signal,
  });

  const matches = result.lines.filter((l) => l.kind === "match").map(({ file, line, text }) => ({ file, line, text }));
  const files = new Set(matches.map((m) => m.file)).size;

  const notices: string[] = [];
  if (result.limitReached)
    notices.push(`${limit} matches limit reached. Use limit=${limit * 2} for more, or refine pattern`);
  const listing = joinLines(result.lines.map(formatLine), ctx);

  const truncated = result.limitReached;
  const data: Record<string, unknown> = { matches, truncated };
  const extras = {
    pathResolved: resolved.relative,
    stats: { total_matches: result.matchCount, files, engine: result.engine },
  };

  const head =
    matches.length === 0
      ? `No matches found for '${args.pattern}' in '${where}'. Check the pattern (a regular expression; literal=true for plain text), ignore_case, glob or path.`
      : `Found ${matches.length} ${matches.length === 1 ? "match" : "matches"} for '${args.pattern}' in ${files} ${files === 1 ? "file" : "files"}:\n${listing}`;
  const body = withNotices(head, notices);
  return truncated ? ctx.reply.partial(data, body, extras) : ctx.reply.success(data, body, extras);
}

function formatLine(l: GrepLine): string {
  return l.kind === "match" ? `${l.file}:${l.line}: ${l.text}` : `${l.file}-${l.line}- ${l.text}`;
}

/** Result lines joined through the call's capture, so a huge listing is bounded in memory and spilled. */
export function joinLines(lines: string[], ctx: ToolRunContext): string {
  lines.forEach((line, i) => {
    ctx.output.write(i === 0 ? line : `\n${line}`);
  });
  return ctx.output.finish().text;
}

/** Appends the notices as one bracketed line, the way the model sees every tool's notes. */
export function withNotices(body: string, notices: string[]): string {
  return notices.length === 0 ? body : `${body}\n\n[${notices.join(". ")}]`;
}
