/**
 * The tools of the `openai` profile, under codex's names and argument shapes (checked against
 * codex 0.169's tool definitions): read_file (slice and indentation modes), write_file (new
 * files), list_dir, grep_files, view_image, plus exec_command / write_stdin (exec-command.ts).
 * Edits go through apply_patch, a tool of its own.
 */
import { join } from "node:path";
import * as v from "valibot";
import type { Entry } from "../../envelope.ts";
import { flag, text } from "../../../tools/args.ts";
import { grepTool } from "../../../tools/grep.ts";
import { lsTool } from "../../../tools/ls.ts";
import { count, defaultResultSummary } from "../../../tools/metadata.ts";
import { READ_MAX_LIMIT, readTool, readToolWith, windowWording } from "../../../tools/read.ts";
import type { Tool, ToolRunContext } from "../../../tools/types.ts";
import { writeTool } from "../../../tools/write.ts";
import { delegate, describedLike, num, wholeCount } from "../delegate.ts";
import { execCommandTool, writeStdinTool } from "./exec-command.ts";
import { matchesOf, newestFirst, searchContent } from "../content-search.ts";

const READ_DEFAULT_LIMIT = 2000;
/**
 * codex's own rule for read_file (codex-rs read_file.rs: MAX_LINE_LENGTH = 500, tested by
 * truncates_lines_longer_than_max_length): each line it returns is cut at 500. gong keeps it for
 * the indentation mode, a block view for finding one's way in code, and marks the cut with "…";
 * the slice mode returns lines whole, so the framework's one cut applies there.
 */
const MAX_LINE_CHARS = 500;
/** The core read numbering lines as codex does ("L7: text"), and without numbers for the indentation mode's own view. */
// read_file pages by `offset`: its sentences say so.
// codex reads the range it is asked for: no 2000-line ceiling on limit.
const codexRead = readToolWith((n) => `L${n}: `, windowWording("offset"), { maxLimit: undefined });
const plainRead = readToolWith(() => "", windowWording("offset"));

const indentationSchema = v.strictObject({
  anchor_line: v.optional(num("Line the block is around (default: offset).")),
  max_levels: v.optional(num("Enclosing levels to include (0: all).")),
  include_siblings: v.optional(flag("Include the following blocks at the same level.")),
  include_header: v.optional(flag("Include comments just above the block.")),
  max_lines: v.optional(num("Most lines to return.")),
});

const readSchema = v.strictObject({
  file_path: text("Path of the file."),
  offset: v.optional(num("First line, 1-based (default 1).")),
  limit: v.optional(num(`Most lines (default ${READ_DEFAULT_LIMIT}).`)),
  mode: v.optional(text('"slice" (default) or "indentation".')),
  indentation: v.optional(indentationSchema),
});
type ReadArgs = v.InferOutput<typeof readSchema>;

export const readFileTool: Tool<ReadArgs> = {
  name: "read_file",
  description:
    'Reads a file with line numbers ("L12: text"): a line range, or with mode "indentation" the code block around a line.',
  schema: readSchema,
  truncation: "head_tail",
  ...describedLike(readTool, (a) => ({ path: a.file_path, start_line: a.offset, limit: a.limit })),
  async run(args, ctx) {
    const mode = args.mode ?? "slice";
    if (mode !== "slice" && mode !== "indentation")
      return ctx.reply.fail("INVALID_PARAM", `Unknown mode '${mode}': use "slice" or "indentation".`);
    const offset = wholeCount(args.offset, 1) ?? 1;
    const limit = wholeCount(args.limit, 1) ?? READ_DEFAULT_LIMIT;
    if (mode === "slice") {
      return delegate(codexRead, { path: args.file_path, start_line: offset, limit }, ctx);
    }
    const whole = await delegate(plainRead, { path: args.file_path, start_line: 1, limit: READ_MAX_LIMIT }, ctx);
    if (whole.status === "error" || typeof whole.data.content !== "string") return whole;
    const lines = (whole.data.content as string).split("\n").slice(0, -1);
    const opts = args.indentation ?? {};
    const anchor = Math.min(wholeCount(opts.anchor_line, 1) ?? offset, lines.length);
    const [from, to] = indentationBlock(lines, anchor, {
      maxLevels: wholeCount(opts.max_levels) ?? 0,
      siblings: opts.include_siblings ?? false,
      header: opts.include_header ?? true,
    });
    const cap = wholeCount(opts.max_lines, 1) ?? limit;
    const end = Math.min(to, from + cap - 1);
    const body = lines
      .slice(from - 1, end)
      .map((l, i) => `L${from + i}: ${l.length > MAX_LINE_CHARS ? `${l.slice(0, MAX_LINE_CHARS)}…` : l}`);
    return ctx.reply.success({ content: body.join("\n"), first_line: from, last_line: end }, body.join("\n"), {
      context: { truncation_skip: true },
      stats: { lines_read: body.length },
    });
  },
};

/**
 * Lines [from, to] (1-based) of the block enclosing `anchor`: climb to the lines with less
 * indentation above it (its headers, up to `maxLevels`, 0 = all), then run down to where the
 * indentation returns to the outermost header's level, keeping a closing line (`}`, `end`) there.
 * With `siblings`, the block runs on through the following blocks at that level.
 */
export function indentationBlock(
  lines: string[],
  anchor: number,
  opts: { maxLevels: number; siblings: boolean; header: boolean },
): [number, number] {
  const blank = (i: number) => lines[i - 1].trim() === "";
  const indent = (i: number) => lines[i - 1].length - lines[i - 1].trimStart().length;
  let at = anchor;
  while (at > 1 && blank(at)) at--;
  let level = indent(at);
  let from = at;
  let levels = 0;
  for (let i = at - 1; i >= 1 && (opts.maxLevels === 0 || levels < opts.maxLevels); i--) {
    if (blank(i) || indent(i) >= level) continue;
    from = i;
    level = indent(i);
    levels++;
    if (level === 0) break;
  }
  let to = at;
  for (let i = from + 1; i <= lines.length; i++) {
    if (blank(i) || indent(i) > level || (levels === 0 && i <= at)) {
      to = i;
      continue;
    }
    if (/^([\]})]|end\b)/.test(lines[i - 1].trim())) to = i;
    if (!opts.siblings || levels === 0) break;
    to = i;
  }
  while (to > at && blank(to)) to--;
  if (opts.header) while (from > 1 && /^\s*(\/\/|#|\/\*|\*|@|--)/.test(lines[from - 2])) from--;
  return [from, to];
}

const writeSchema = v.strictObject({
  file_path: text("Path of the new file."),
  content: text("Its complete content."),
});

export const writeFileTool: Tool<v.InferOutput<typeof writeSchema>> = {
  name: "write_file",
  description: "Creates a new file. To change an existing file, use apply_patch.",
  schema: writeSchema,
  truncation: "tail",
  ...describedLike(writeTool, (a) => ({ path: a.file_path, content: a.content })),
  run: (args, ctx) => delegate(writeTool, { path: args.file_path, content: args.content }, ctx),
};

const listSchema = v.strictObject({
  dir_path: text("Directory to list."),
  offset: v.optional(num("First entry, 1-based (default 1).")),
  limit: v.optional(num("Most entries (default 25).")),
  depth: v.optional(num("Levels to descend (default 2).")),
});
type ListArgs = v.InferOutput<typeof listSchema>;

export const listDirTool: Tool<ListArgs> = {
  name: "list_dir",
  description: "Lists a directory tree with numbered entries (directories end in '/', symlinks in '@').",
  schema: listSchema,
  truncation: "head",
  ...describedLike(lsTool, (a) => ({ path: a.dir_path })),
  summarizeResult: (r) =>
    r.status === "error" ? defaultResultSummary(r) : count(Number(r.data.total ?? 0), "entry", "entries"),
  async run(args, ctx) {
    const resolved = await ctx.env.resolvePath(args.dir_path, { reading: true });
    const info = resolved.exists ? await ctx.env.stat(resolved.absolute) : null;
    if (!info)
      return ctx.reply.fail(
        "NOT_FOUND",
        `Directory '${args.dir_path}' does not exist. List its parent to see what is there.`,
      );
    if (info.type !== "dir")
      return ctx.reply.fail(
        "INVALID_PARAM",
        `'${args.dir_path}' is a file, not a directory. Use read_file to read it.`,
      );
    const depth = wholeCount(args.depth, 1) ?? 2;
    const entries: Listed[] = [];
    await walk(ctx, resolved.absolute, resolved.relative === "." ? "" : `${resolved.relative}/`, depth, 0, entries);
    const offset = wholeCount(args.offset, 1) ?? 1;
    const limit = wholeCount(args.limit, 1) ?? 25;
    if (offset > Math.max(entries.length, 1))
      return ctx.reply.fail("INVALID_PARAM", `offset ${offset} is past the last entry (${entries.length} entries).`);
    const shown = entries.slice(offset - 1, offset - 1 + limit);
    const more = entries.length - (offset - 1 + shown.length);
    const lines = [`Absolute path: ${resolved.absolute}`, ...shown.map((e, i) => `${offset + i}. ${e.line}`)];
    if (more > 0)
      lines.push(`More than ${shown.length} entries found; ${more} more (use offset=${offset + shown.length}).`);
    const data = { entries: shown.map((e) => e.entry), total: entries.length, truncated: more > 0 };
    return more > 0
      ? ctx.reply.partial(data, lines.join("\n"), { pathResolved: resolved.relative })
      : ctx.reply.success(data, lines.join("\n"), { pathResolved: resolved.relative });
  },
};

/**
 * One entry of the tree: the indented line codex shows, and the envelope's `{ path, type }`
 * (docs/conformance.md: 000 §2).
 */
interface Listed {
  line: string;
  entry: Entry;
}

/** `prefix`: the directory's path relative to the root ("" for the root, else ending in "/"). */
async function walk(
  ctx: ToolRunContext,
  dir: string,
  prefix: string,
  depth: number,
  level: number,
  out: Listed[],
): Promise<void> {
  const entries = (await ctx.env.listDirectory(dir)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const mark = e.isSymlink ? "@" : e.type === "dir" ? "/" : "";
    const type = e.isSymlink ? "link" : e.type === "dir" ? "dir" : "file";
    out.push({
      line: `${"  ".repeat(level)}${e.name}${mark}`,
      entry: { path: `${prefix}${e.name}${type === "dir" ? "/" : ""}`, type },
    });
    if (e.type === "dir" && !e.isSymlink && level + 1 < depth)
      await walk(ctx, join(dir, e.name), `${prefix}${e.name}/`, depth, level + 1, out);
  }
}

const grepSchema = v.strictObject({
  pattern: text("Regular expression to search for."),
  include: v.optional(text('Glob of files to search, e.g. "*.{ts,tsx}".')),
  path: v.optional(text("Where to search (default: the working directory).")),
  limit: v.optional(num("Most paths (default 100, at most 2000).")),
});
type GrepArgs = v.InferOutput<typeof grepSchema>;

export const grepFilesTool: Tool<GrepArgs> = {
  name: "grep_files",
  description: "Lists the files whose contents match a regular expression, newest first.",
  schema: grepSchema,
  truncation: "head",
  ...describedLike(grepTool, (a) => ({ pattern: a.pattern, path: a.path, glob: a.include })),
  summarizeResult: (r) =>
    r.status === "error" || !Array.isArray(r.data.files) ? defaultResultSummary(r) : count(r.data.files.length, "file"),
  files: () => [],
  run: async (args: GrepArgs, ctx) => {
    const limit = Math.min(wholeCount(args.limit, 1) ?? 100, 2000);
    const result = await searchContent(ctx, {
      pattern: args.pattern,
      path: args.path,
      glob: args.include,
      signal: ctx.signal,
    });
    const files = (await newestFirst(ctx, result.files)).slice(0, limit);
    const extras = { pathResolved: result.where, stats: { files: result.files.length, engine: result.engine } };
    if (files.length === 0) return ctx.reply.success({ files: [], matches: [] }, "No matches found.", extras);
    const more = result.files.length - files.length;
    const body = files.join("\n") + (more > 0 ? `\n[${more} more files; raise limit or narrow the pattern.]` : "");
    const listed = new Set(files);
    const matches = matchesOf(result).filter((m) => listed.has(m.file));
    return more > 0
      ? ctx.reply.partial({ files, matches, truncated: true }, body, extras)
      : ctx.reply.success({ files, matches, truncated: false }, body, extras);
  },
};

const imageSchema = v.strictObject({
  path: text("Path of a PNG, JPEG, GIF or WebP file."),
});

export const viewImageTool: Tool<v.InferOutput<typeof imageSchema>> = {
  name: "view_image",
  description: "Attaches a local image so you can look at it.",
  schema: imageSchema,
  truncation: "head",
  ...describedLike(readTool, (a) => ({ path: a.path })),
  async run(args, ctx) {
    const response = await delegate(readTool, { path: args.path }, ctx);
    if (response.status !== "error" && !Array.isArray(response.data.images)) {
      return ctx.reply.fail(
        "INVALID_PARAM",
        `'${args.path}' is not an image (PNG, JPEG, GIF or WebP). Use read_file for text files.`,
      );
    }
    return response;
  },
};

export const openaiTools: readonly Tool[] = [
  readFileTool,
  writeFileTool,
  execCommandTool,
  writeStdinTool,
  listDirTool,
  grepFilesTool,
  viewImageTool,
];
