/**
 * grep — search file contents (003 §3.5/§E, 004 §3.3 grep). ripgrep through the environment when
 * it is installed, the built-in TypeScript search otherwise (then status "partial" with
 * `data.fallback`, 000 §3.2). Three cuts keep the answer small: the match limit, 500 characters
 * per line, 50 KB in all.
 */
import * as v from "valibot";
import type { ToolResponse } from "../lib/envelope.ts";
import type { GrepLine } from "../lib/env/types.ts";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINE_CHARS, formatSize, truncateHead, truncateLine } from "../lib/truncate.ts";
import { flag, text, whole } from "./args.ts";
import type { Tool, ToolRunContext } from "./types.ts";
import { count, defaultResultSummary } from "./metadata.ts";

export const GREP_DEFAULT_LIMIT = 100;

const schema = v.strictObject({
  pattern: text("Regular expression to search for (ripgrep syntax), or plain text with literal=true."),
  path: v.optional(text("File or directory to search. Default: the working directory.")),
  glob: v.optional(text("Only search files matching this glob, e.g. '*.ts' (matches names) or 'src/**/*.ts' (matches paths below 'path').")),
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
    `Returns at most 'limit' matches (default ${GREP_DEFAULT_LIMIT}); long lines are cut to ${DEFAULT_MAX_LINE_CHARS} characters.`,
  schema,
  truncation: "head",
  kind: "search",
  summarizeCall: (a) => `${a.pattern ?? ""}${a.path !== undefined ? ` in ${a.path}` : ""}${a.glob !== undefined ? ` (${a.glob})` : ""}`,
  summarizeResult: (r) => (r.status === "error" || !Array.isArray(r.data.matches) ? defaultResultSummary(r) : count(r.data.matches.length, "match", "matches")),
  run: guardedSearch(grep),
};

async function grep(args: GrepArgs, ctx: ToolRunContext): Promise<ToolResponse> {
  const limit = args.limit ?? GREP_DEFAULT_LIMIT;
  const resolved = await ctx.env.resolvePath(args.path ?? ".");
  const where = args.path ?? ".";
  if (!resolved.exists) {
    return ctx.reply.fail("NOT_FOUND", `Path '${where}' does not exist. Check the path, or use ls or find to locate it.`, { pathResolved: resolved.relative });
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

  let linesCut = false;
  const shown = result.lines.map((l) => {
    const cut = truncateLine(l.text);
    linesCut ||= cut.truncated;
    return { ...l, text: cut.text };
  });
  const matches = shown.filter((l) => l.kind === "match").map(({ file, line, text }) => ({ file, line, text }));
  const fallback = result.engine === "typescript";
  const files = new Set(matches.map((m) => m.file)).size;

  const notices: string[] = [];
  if (result.limitReached) notices.push(`${limit} matches limit reached. Use limit=${limit * 2} for more, or refine pattern`);
  const listing = listWithinBytes(shown.map(formatLine));
  if (listing.cut) notices.push(`${formatSize(DEFAULT_MAX_BYTES)} limit reached`);
  if (linesCut) notices.push(`Some lines truncated to ${DEFAULT_MAX_LINE_CHARS} chars. Use read tool to see full lines`);
  if (fallback) notices.push(FALLBACK_NOTICE.grep);

  const truncated = result.limitReached || listing.cut;
  const data: Record<string, unknown> = { matches, truncated };
  if (fallback) data.fallback = "typescript";
  const extras = { pathResolved: resolved.relative, stats: { total_matches: result.matchCount, files, engine: result.engine } };

  const head =
    matches.length === 0
      ? `No matches found for '${args.pattern}' in '${where}'. Check the pattern (a regular expression; literal=true for plain text), ignore_case, glob or path.`
      : `Found ${matches.length} ${matches.length === 1 ? "match" : "matches"} for '${args.pattern}' in ${files} ${files === 1 ? "file" : "files"}:\n${listing.text}`;
  const body = withNotices(head, notices);
  return truncated || fallback ? ctx.reply.partial(data, body, extras) : ctx.reply.success(data, body, extras);
}

function formatLine(l: GrepLine): string {
  return l.kind === "match" ? `${l.file}:${l.line}: ${l.text}` : `${l.file}-${l.line}- ${l.text}`;
}

export const FALLBACK_NOTICE = {
  grep: "ripgrep not found; used the built-in TypeScript search (slower)",
  find: "fd not found; used the built-in TypeScript search (slower)",
} as const;

/** Joins result lines, keeping whole lines within 50 KB (no line limit: the tools limit counts). */
export function listWithinBytes(lines: string[]): { text: string; cut: boolean } {
  const cut = truncateHead(lines.join("\n"), { maxLines: Number.MAX_SAFE_INTEGER, maxBytes: DEFAULT_MAX_BYTES });
  return { text: cut.content, cut: cut.truncated };
}

/** A search as a tool's run(): whatever it throws becomes an error envelope, an abort "Search aborted". */
export function guardedSearch<Args>(search: (args: Args, ctx: ToolRunContext) => Promise<ToolResponse>): Tool<Args>["run"] {
  return async (args, ctx) => {
    try {
      return await search(args, ctx);
    } catch (e) {
      if (ctx.signal?.aborted) return ctx.reply.fail("EXECUTION_ERROR", "Search aborted");
      return ctx.reply.fromError(e);
    }
  };
}

/** Appends the notices as one bracketed line, the way the model sees every tool's notes. */
export function withNotices(body: string, notices: string[]): string {
  return notices.length === 0 ? body : `${body}\n\n[${notices.join(". ")}]`;
}
