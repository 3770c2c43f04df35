/**
 * read — the Read contract (docs/conformance.md: 002): numbered lines ("%4d | %s\n"), `start_line`/`limit`
 * paging (limit 1..2000, never clamped), binary refusal, strict UTF-8 with a "replace" fallback,
 * and images (by magic bytes) returned in `data.images` for multimodal models. The peers' read
 * tools, built on it with readToolWith, read any range their model asks for, as their reference
 * agents do (the framework's character cut still guards the context).
 *
 * The file is streamed once: the requested window goes to the call's output capture, the rest is
 * counted, so a read near the end of a 1 GB file — or of one 1 GB line — costs time but not
 * memory. read returns every line of its window whole; the framework alone cuts for the model (a
 * line longer than the limit is cut inside, with a marker and where the rest is). A read that
 * names its own window (start_line or limit) pages itself: it sets `truncation_skip`, which waives
 * the framework's line cut; the character cut still guards the context.
 */
import * as v from "valibot";
import type { ToolResponse } from "../lib/envelope.ts";
import type { FileInfo, ResolvedPath } from "../lib/env/types.ts";
import { formatSize } from "../lib/output/cut.ts";
import { text, whole } from "./args.ts";
import { IMAGE_SNIFF_BYTES, MAX_IMAGE_FILE_BYTES, prepareImage, smallerCopy, sniffImage } from "./image.ts";
import { scanWindow, type WindowScan } from "./read-window.ts";
import { locate } from "./locate.ts";
import { naming, toolChoice, toolFor } from "./naming.ts";
import type { Tool, ToolRunContext } from "./types.ts";
import { count, defaultResultSummary } from "./metadata.ts";

export const READ_DEFAULT_LIMIT = 500;
export const READ_MAX_LIMIT = 2000;
/** Bytes sniffed for NUL (docs/conformance.md: 002 §5.4). */
const BINARY_SNIFF_BYTES = 8192;

/** read's arguments; `maxLimit` undefined leaves `limit` unbounded (a peer's read tool). */
const schemaWith = (maxLimit: number | undefined) =>
  v.strictObject({
    path: text("Path to the file (relative to the project root, absolute inside it, or ~/...)."),
    start_line: v.optional(whole("The line number to start reading from (1-based). Default is 1.", 1)),
    limit: v.optional(
      whole(
        `The maximum number of lines to read. Default is ${READ_DEFAULT_LIMIT}.${maxLimit === undefined ? "" : ` Hard limit is ${maxLimit}.`}`,
        1,
        maxLimit,
      ),
    ),
  });
const schema = schemaWith(READ_MAX_LIMIT);
export type ReadArgs = v.InferOutput<typeof schema>;
/** The arguments with the defaults applied, whether the caller chose the window, and how lines are numbered. */
type Window = {
  path: string;
  start_line: number;
  limit: number;
  explicit: boolean;
  prefix: LinePrefix;
  wording: ReadWording;
};

/** What goes before line `n` of the file: "   7 | " for read; a profile numbers lines its own way (or not at all). */
export type LinePrefix = (n: number) => string;
export const numbered: LinePrefix = (n) => `${String(n).padStart(4)} | `;

/** The first line asked for lies past the end of the file (`total` lines; 0 for an empty file). */
export interface BeyondEnd {
  requested: number;
  total: number;
}

/** The window stopped before the end: lines `first`–`last` of `total` were shown; `next` continues. */
export interface MoreLines {
  first: number;
  last: number;
  total: number;
  next: number;
}

/**
 * The sentences the model reads about a window, in the parameter names of the tool it called: the
 * core read states the facts (BeyondEnd, MoreLines) and each profile words them.
 */
export interface ReadWording {
  beyondEnd(fact: BeyondEnd): string;
  more(fact: MoreLines): string;
}

/**
 * Wording for a tool whose first line is `start` (start_line, offset…): the Read contract's
 * sentences (docs/conformance.md: 002 §4) in that name.
 */
export function windowWording(start: string): ReadWording {
  return {
    beyondEnd: ({ requested, total }) =>
      total === 0
        ? `${start} ${requested} is beyond end of file (file is empty). Valid range: ${start}=1 only.`
        : `${start} ${requested} is beyond end of file (${total} lines total). Valid range: 1-${total}.`,
    more: ({ first, last, total, next }) =>
      first === 1
        ? `[Truncated: Showing first ${last} of ${total} lines. Use ${start}=${next} to continue.]`
        : `[Truncated: Showing lines ${first}-${last} of ${total}. ${total - last} more lines in file. Use ${start}=${next} to continue.]`,
  };
}

const coreWording = windowWording("start_line");

export const readTool: Tool<ReadArgs> = {
  name: "read",
  description:
    'Reads a file with line numbers ("   1 | text"), optimized for code editing. Pages with start_line and limit ' +
    `(default ${READ_DEFAULT_LIMIT}, at most ${READ_MAX_LIMIT} lines). Very long output is shortened with a note saying where the rest is. ` +
    "Images (PNG, JPEG, GIF, WebP) are returned for viewing. Binary files are refused.",
  schema,
  truncation: "head_tail",
  kind: "read",
  summarizeCall: (a) => {
    if (a.start_line === undefined && a.limit === undefined) return String(a.path ?? "");
    const first = a.start_line ?? 1;
    return `${a.path ?? ""}:${first}-${a.limit === undefined ? "" : first + a.limit - 1}`;
  },
  summarizeResult: (r) =>
    r.status === "error"
      ? defaultResultSummary(r)
      : Array.isArray(r.data.images) && r.data.images.length > 0
        ? "image"
        : `${count(Number(r.stats.lines_read ?? 0), "line")} read`,
  touches: (a) => [{ as: "Read", target: a.path, input: { offset: a.start_line, limit: a.limit } }],
  run: (input, ctx) => runRead(input, ctx, numbered, coreWording),
};

/**
 * read with lines numbered by `prefix` and sentences in `wording` (not model-visible parameters:
 * each profile picks its own). `maxLimit`: the most lines one call may ask for; none for a peer's
 * read tool, whose reference agent reads any range it is asked for.
 */
export function readToolWith(
  prefix: LinePrefix,
  wording: ReadWording = coreWording,
  options: { maxLimit?: number } = {},
): Tool<ReadArgs> {
  return {
    ...readTool,
    schema: "maxLimit" in options ? schemaWith(options.maxLimit) : schema,
    run: (input, ctx) => runRead(input, ctx, prefix, wording),
  };
}

async function runRead(
  input: ReadArgs,
  ctx: ToolRunContext,
  prefix: LinePrefix,
  wording: ReadWording,
): Promise<ToolResponse> {
  const args: Window = {
    path: input.path,
    start_line: input.start_line ?? 1,
    limit: input.limit ?? READ_DEFAULT_LIMIT,
    explicit: input.start_line !== undefined || input.limit !== undefined,
    prefix,
    wording,
  };
  const { resolved, info, extras } = await locate(ctx, args.path, { variants: true, reading: true });
  const names = ctx.toolNames;
  if (!info)
    return ctx.reply.fail("NOT_FOUND", `File '${args.path}' does not exist.`, {
      text: `File '${args.path}' does not exist. Check the path${naming(toolChoice(names, "ls", "find"), (t) => `, or use ${t} to locate it`)}.`,
    });
  if (info.type === "dir")
    return ctx.reply.fail(
      "IS_DIRECTORY",
      `Path '${args.path}' is a directory.${naming(toolFor(names, "ls", "find"), (t) => ` Use ${t} to explore it.`)}`,
      extras,
    );
  if (info.type !== "file")
    return ctx.reply.fail(
      "INVALID_PARAM",
      `Path '${args.path}' is not a regular file (a device, socket or pipe); only regular files can be opened.`,
      extras,
    );
  return readFile(args, ctx, resolved, info);
}

async function readFile(
  args: Window,
  ctx: ToolRunContext,
  resolved: ResolvedPath,
  info: FileInfo,
): Promise<ToolResponse> {
  const iterator = ctx.env.readStream(resolved.absolute)[Symbol.asyncIterator]();
  try {
    return await readFrom(iterator, args, ctx, resolved, info);
  } finally {
    // Closes the file however the read ended (an image, a binary file, an abort mid-scan).
    await iterator.return?.();
  }
}

async function readFrom(
  iterator: AsyncIterator<Uint8Array>,
  args: Window,
  ctx: ToolRunContext,
  resolved: ResolvedPath,
  info: FileInfo,
): Promise<ToolResponse> {
  const head = await readHead(iterator, BINARY_SNIFF_BYTES);
  const baseStats = { file_size_bytes: info.size, file_mtime_ms: Math.round(info.mtimeMs) };
  const extras = { context: args.explicit ? { truncation_skip: true } : {}, pathResolved: resolved.relative };

  const mime = sniffImage(head.bytes.subarray(0, IMAGE_SNIFF_BYTES));
  if (mime) {
    await iterator.return?.();
    return await readImage(args.path, ctx, resolved, mime, baseStats, extras);
  }
  if (head.bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
    return ctx.reply.fail("BINARY_FILE", `File '${args.path}' appears to be binary.`, {
      ...extras,
      stats: baseStats,
      text: `File '${args.path}' appears to be binary (it contains NUL bytes).${naming(toolFor(ctx.toolNames, "bash"), (t) => ` Use ${t} with a tool such as xxd, file or strings to inspect it.`)}`,
    });
  }

  // Lines go straight to the capture as "<prefix>line\n": nothing but the capture holds them.
  const out = ctx.output;
  let prefixChars = 0;
  const window = await scanWindow(
    replay(head.chunks, iterator),
    { startLine: args.start_line, limit: args.limit, signal: ctx.signal },
    {
      start(n) {
        const prefix = args.prefix(n);
        prefixChars += prefix.length + 1;
        out.write(prefix);
      },
      bytes: (piece) => out.write(piece),
      end: () => out.write("\n"),
    },
  );
  if (window.totalLines === 0 || args.start_line > window.totalLines)
    return emptyOrBeyond(args, ctx, window.totalLines, baseStats, extras);

  const captured = out.finish();
  const lastShown = args.start_line + window.shown - 1;
  const hint = pagingHint(args, window, lastShown);
  const truncated = hint !== null;
  const stats = {
    ...baseStats,
    lines_read: window.shown,
    chars_read: captured.totalChars - prefixChars + window.shown,
    total_lines: window.totalLines,
    encoding: captured.invalidUtf8 ? "utf-8 (replace)" : "utf-8",
  };
  const summary = `Read ${window.shown} lines from '${args.path}' (Lines ${args.start_line}-${lastShown}).`;
  const notes = [
    captured.invalidUtf8
      ? "[Note: the file is not valid UTF-8; invalid bytes are shown as U+FFFD. Do not change it as text without checking its encoding.]"
      : null,
    hint,
  ].filter((n): n is string => n !== null);
  const body = `${summary}\n(Took ${ctx.reply.elapsed()}ms)\n${captured.text}${notes.join("\n")}`;
  const data: Record<string, unknown> = { content: captured.text, truncated };
  if (captured.invalidUtf8) data.fallback_encoding = "replace";
  return truncated || captured.invalidUtf8
    ? ctx.reply.partial(data, body, { ...extras, stats })
    : ctx.reply.success(data, body, { ...extras, stats });
}

/** The continuation hint when lines remain after the window, or null when it reached EOF. */
function pagingHint(args: Window, window: WindowScan, lastShown: number): string | null {
  if (!window.stoppedByLimit) return null;
  return args.wording.more({ first: args.start_line, last: lastShown, total: window.totalLines, next: lastShown + 1 });
}

function emptyOrBeyond(
  args: Window,
  ctx: ToolRunContext,
  totalLines: number,
  baseStats: Record<string, number>,
  extras: { context: Record<string, unknown>; pathResolved: string },
): ToolResponse {
  const stats = { ...baseStats, lines_read: 0, chars_read: 0, total_lines: totalLines, encoding: "utf-8" };
  if (totalLines === 0 && args.start_line === 1) {
    return ctx.reply.success({ content: "", truncated: false }, `Read 0 lines from '${args.path}' (file is empty).`, {
      ...extras,
      stats,
    });
  }
  // The facts travel as data too, so a program never parses the sentence.
  const fact: BeyondEnd = { requested: args.start_line, total: totalLines };
  return ctx.reply.fail("INVALID_PARAM", args.wording.beyondEnd(fact), {
    ...extras,
    stats,
    data: { beyond_end: fact },
  });
}

async function readImage(
  path: string,
  ctx: ToolRunContext,
  resolved: ResolvedPath,
  mime: NonNullable<ReturnType<typeof sniffImage>>,
  baseStats: Record<string, number>,
  extras: { context: Record<string, unknown>; pathResolved: string },
): Promise<ToolResponse> {
  const bytes = baseStats.file_size_bytes > MAX_IMAGE_FILE_BYTES ? null : await ctx.env.readFile(resolved.absolute);
  if (!bytes) {
    const stats = { ...baseStats, encoding: "binary" };
    const message = `Image '${path}' (${mime}, ${formatSize(baseStats.file_size_bytes)}) is larger than ${formatSize(MAX_IMAGE_FILE_BYTES)}, so it was not loaded. ${smallerCopy(ctx.toolNames)}`;
    return ctx.reply.partial(
      { content: "", truncated: false, images: [], mime_type: mime },
      `${message}\n(Took ${ctx.reply.elapsed()}ms)`,
      { ...extras, stats },
    );
  }
  const prepared = await prepareImage(bytes, mime, ctx.toolNames);
  const size = prepared.original ? `${prepared.original.width}x${prepared.original.height}` : "unknown size";
  const summary = `Read image '${path}' (${mime}, ${size}, ${formatSize(bytes.length)}).`;
  const stats = { ...baseStats, file_size_bytes: bytes.length, encoding: "binary" };
  const textOut = [
    summary,
    `(Took ${ctx.reply.elapsed()}ms)`,
    prepared.note ? `[${prepared.note}]` : null,
    prepared.image ? "[The image is attached for viewing.]" : null,
  ]
    .filter((l): l is string => l !== null)
    .join("\n");
  if (!prepared.image)
    return ctx.reply.partial({ content: "", truncated: false, images: [], mime_type: mime }, textOut, {
      ...extras,
      stats,
    });
  const data = { content: "", truncated: false, images: [prepared.image], mime_type: mime };
  return prepared.note
    ? ctx.reply.partial(data, textOut, { ...extras, stats })
    : ctx.reply.success(data, textOut, { ...extras, stats });
}

interface Head {
  chunks: Uint8Array[];
  /** The chunks joined (at least `want` bytes unless the file is shorter). */
  bytes: Uint8Array;
}

/** Pull chunks until at least `want` bytes (or EOF) without losing them for the later scan. */
async function readHead(iterator: AsyncIterator<Uint8Array>, want: number): Promise<Head> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  while (length < want) {
    const next = await iterator.next();
    if (next.done) break;
    chunks.push(next.value);
    length += next.value.length;
  }
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.length;
  }
  return { chunks, bytes };
}

async function* replay(first: Uint8Array[], rest: AsyncIterator<Uint8Array>): AsyncGenerator<Uint8Array> {
  yield* first;
  while (true) {
    const next = await rest.next();
    if (next.done) return;
    yield next.value;
  }
}
