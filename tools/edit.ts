/**
 * edit — replace one exact piece of a file (docs/conformance.md: 003 §3.2 / §A, 004 §3.3).
 *
 * The ten steps: resolve the path, check the file, read it as UTF-8, keep its BOM, detect
 * its line ending from the first newline, match exactly then fuzzily (edit-match.ts), insist on
 * uniqueness unless `replace_all`, splice only the matched characters, write atomically (refusing
 * when the file changed meanwhile), and return a unified diff with real line numbers.
 */
import { Buffer } from "node:buffer";
import * as v from "valibot";
import type { ToolResponse } from "../lib/envelope.ts";
import type { FileInfo } from "../lib/env/types.ts";
import { flag, text } from "./args.ts";
import { findMatches, type Span, splice } from "./edit-match.ts";
import { withFileLock } from "./file-lock.ts";
import { locate } from "./locate.ts";
import { naming, toolFor } from "./naming.ts";
import type { Tool, ToolRunContext } from "./types.ts";
import { count, defaultResultSummary } from "./metadata.ts";

const schema = v.strictObject({
  path: text("Path of the file to edit (relative to the project root, absolute inside it, or ~/...)."),
  old_text: text(
    "The exact text to replace, including whitespace and newlines. Must occur exactly once unless replace_all is true.",
  ),
  new_text: text("The text to put in its place."),
  replace_all: v.optional(flag("Replace every occurrence instead of requiring exactly one. Default false."), false),
});
export type EditArgs = v.InferOutput<typeof schema>;

const BINARY_SNIFF_BYTES = 8192;
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/** The names edit's sentences use for its parameters: each profile gives its own (old_string, allow_multiple…). */
export interface EditNames {
  oldText: string;
  replaceAll: string;
}

const coreNames: EditNames = { oldText: "old_text", replaceAll: "replace_all" };

export const editTool: Tool<EditArgs> = {
  name: "edit",
  description:
    "Replaces old_text with new_text in a file. old_text must match exactly once (include surrounding lines to make it unique), " +
    "or set replace_all to replace every occurrence. Small differences in trailing spaces, quotes, dashes and Unicode spaces are tolerated. " +
    "Returns a unified diff of the change.",
  schema,
  truncation: "head",
  kind: "modify",
  summarizeCall: (a) => String(a.path ?? ""),
  summarizeResult: (r) =>
    r.status === "error" ? defaultResultSummary(r) : count(Number(r.data.replacements ?? 0), "replacement"),
  touches: (a) => [
    {
      as: "Edit",
      target: a.path,
      input: { old_string: a.old_text, new_string: a.new_text, replace_all: a.replace_all },
    },
  ],
  run: (args, ctx) => runEdit(args, ctx, coreNames),
};

/**
 * edit whose sentences name its parameters as `names` says (not model-visible: each profile gives
 * its own). With `expected`, replace_all must find exactly that many occurrences (the count earlier
 * versions of the reference agents took, `expected_replacements`).
 */
export function editToolWith(names: EditNames, expected?: number): Tool<EditArgs> {
  return { ...editTool, run: (args, ctx) => runEdit(args, ctx, names, expected) };
}

async function runEdit(
  args: EditArgs,
  ctx: ToolRunContext,
  names: EditNames,
  expected?: number,
): Promise<ToolResponse> {
  const { resolved, info, extras } = await locate(ctx, args.path, { variants: true });
  if (!info)
    return ctx.reply.fail("NOT_FOUND", `File not found: ${args.path}`, {
      text: `File not found: ${args.path}. Check the path${naming(toolFor(ctx.toolNames, "write"), (t) => `, or use ${t} to create a new file`)}.`,
    });
  if (info.type === "dir")
    return ctx.reply.fail("IS_DIRECTORY", `Is a directory: ${args.path}. Give the path of a file to change.`, extras);
  if (info.type !== "file")
    return ctx.reply.fail(
      "INVALID_PARAM",
      `Not a regular file: ${args.path}. Only regular files can be changed.`,
      extras,
    );
  return withFileLock(resolved.absolute, () => applyEdit(args, ctx, resolved.absolute, extras, names, expected));
}

async function applyEdit(
  args: EditArgs,
  ctx: ToolRunContext,
  absolute: string,
  extras: { pathResolved: string },
  names: EditNames,
  expected: number | undefined,
): Promise<ToolResponse> {
  const { path } = args;
  const before = await ctx.env.stat(absolute);
  if (!before) return ctx.reply.fail("NOT_FOUND", `File not found: ${path}`, extras);
  const bytes = await ctx.env.readFile(absolute);
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
    return ctx.reply.fail(
      "BINARY_FILE",
      `File '${path}' appears to be binary; only text files can be changed.`,
      extras,
    );
  }
  let decoded: string;
  try {
    decoded = strictUtf8.decode(bytes);
  } catch {
    return ctx.reply.fail(
      "BINARY_FILE",
      `File '${path}' is not valid UTF-8 text, so it cannot be edited without corrupting it.${naming(toolFor(ctx.toolNames, "bash"), (t) => ` Use ${t} to change it.`)}`,
      extras,
    );
  }

  const bom = decoded.charCodeAt(0) === 0xfeff ? "\uFEFF" : "";
  const content = decoded.slice(bom.length);
  const eol = detectEol(content);
  // The BOM belongs to the file, not its first line: old/new text copied with it must neither miss nor double it.
  const oldText = bom ? withoutBom(args.old_text) : args.old_text;
  const newText = bom ? withoutBom(args.new_text) : args.new_text;
  const replacement = newText.replace(/\r\n?/g, "\n").replaceAll("\n", eol);

  let spans: Span[];
  let fuzzy = false;
  if (oldText === "") {
    // An empty file has exactly one place to put text: insert it. Elsewhere empty old_text is ambiguous.
    if (content !== "") {
      return ctx.reply.fail(
        "INVALID_PARAM",
        `${names.oldText} must not be empty when ${path} has content. Give the exact text to change${naming(toolFor(ctx.toolNames, "write"), (t) => `, or use ${t} to rewrite the whole file`)}.`,
        extras,
      );
    }
    spans = [[0, 0]];
  } else {
    const match = findMatches(content, oldText, args.replace_all);
    if (!match.ok && match.reason === "not_found") {
      const message = `Could not find the exact text in ${path}. The old text must match exactly including all whitespace and newlines.`;
      return ctx.reply.fail("INVALID_PARAM", message, {
        ...extras,
        text: `${message} Look at the file again${naming(toolFor(ctx.toolNames, "read"), (t) => ` with ${t}`)} to copy the current text.`,
      });
    }
    if (!match.ok) {
      const message = `Found ${match.count} occurrences of the text in ${path}. The text must be unique. Please provide more context to make it unique.`;
      return ctx.reply.fail("INVALID_PARAM", message, {
        ...extras,
        data: { occurrences: match.count },
        text: `${message} Or set ${names.replaceAll} to true to replace all of them.`,
      });
    }
    spans = match.spans;
    fuzzy = match.fuzzy;
    if (expected !== undefined && spans.length !== expected)
      return ctx.reply.fail(
        "INVALID_PARAM",
        `Expected ${expected} occurrences of the text in ${path} but found ${spans.length}; nothing was changed. Give the count the file has, or more context.`,
        { ...extras, data: { occurrences: spans.length } },
      );
  }

  const updated = splice(content, spans, replacement);
  if (updated === content)
    return ctx.reply.fail(
      "INVALID_PARAM",
      `No changes made to ${path}. The replacement produced identical content.`,
      extras,
    );
  if (ctx.signal?.aborted) return ctx.reply.fail("EXECUTION_ERROR", "Operation aborted", extras);

  // The diff code loads with the first edit, not at start-up.
  const { regionDiff } = await import("./edit-diff.ts");
  // Size and mtime catch most changes; the bytes catch one made within the same timestamp tick.
  const now = await ctx.env.stat(absolute);
  if (!now || changed(before, now) || !sameBytes(await ctx.env.readFile(absolute), bytes)) {
    return ctx.reply.fail(
      "CONFLICT",
      `File ${path} changed on disk while the change was being prepared; nothing was written. Look at it again${naming(toolFor(ctx.toolNames, "read"), (t) => ` with ${t}`)} and retry.`,
      extras,
    );
  }
  const output = encoder.encode(bom + updated);
  await ctx.env.writeFile(absolute, output);

  const last = spans[spans.length - 1];
  const growth = replacement.length * spans.length - spans.reduce((n, [s, e]) => n + (e - s), 0);
  const { diff, firstChangedLine } = regionDiff(path, content, updated, spans[0][0], last[1], last[1] + growth);
  const count = spans.length;
  const what = count === 1 ? "text" : `${count} occurrences`;
  const how = fuzzy ? " (matched after normalising trailing whitespace, quotes, dashes and Unicode spaces)" : "";
  const summary = `Successfully replaced ${what} in ${path}${how}.`;
  return ctx.reply.success(
    { applied: true, replacements: count, diff, first_changed_line: firstChangedLine, fuzzy_match: fuzzy },
    `${summary}\n${diff}`,
    { ...extras, stats: { replacements: count, bytes_written: output.length, first_changed_line: firstChangedLine } },
  );
}

/** The file's line ending, from its first line break: CRLF, a lone CR (classic Mac) or LF. */
function detectEol(content: string): "\r\n" | "\r" | "\n" {
  const at = content.search(/[\r\n]/);
  if (at < 0 || content[at] === "\n") return "\n";
  return content[at + 1] === "\n" ? "\r\n" : "\r";
}

function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function changed(a: FileInfo, b: FileInfo): boolean {
  return a.size !== b.size || a.mtimeMs !== b.mtimeMs;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);
}
