/**
 * The tools of the `anthropic` profile, under Claude Code's names and argument shapes (checked
 * against Claude Code 2.1's published tool schemas): Read, Write, Edit, Bash (+ TaskOutput and
 * TaskStop for background commands), Grep, Glob. Each maps its arguments onto gong's core tool.
 */
import * as v from "valibot";
import type { ToolResponse } from "../../envelope.ts";
import { flag, text } from "../../../tools/args.ts";
import { BASH_MAX_TIMEOUT_S, bashTool, runShellCommand } from "../../../tools/bash.ts";
import { editTool, editToolWith } from "../../../tools/edit.ts";
import { findTool } from "../../../tools/find.ts";
import { grepTool } from "../../../tools/grep.ts";
import { count, defaultResultSummary } from "../../../tools/metadata.ts";
import { numbered, READ_MAX_LIMIT, readTool, readToolWith, windowWording } from "../../../tools/read.ts";
import type { Tool } from "../../../tools/types.ts";
import { writeTool } from "../../../tools/write.ts";
import { describeProcess } from "./background.ts";
import { delegate, describedLike, num, wholeCount } from "../delegate.ts";
import { compileSearchRegex } from "../../env/search/regex.ts";
import { COLLECT_LIMIT, matchesOf, newestFirst, searchContent } from "../content-search.ts";

export const CLAUDE_BASH_DEFAULT_TIMEOUT_MS = 120_000;
/** Claude Code's Grep shows at most this many rows unless head_limit says otherwise. */
const GREP_HEAD_LIMIT = 250;
const MAX_TIMEOUT_MS = BASH_MAX_TIMEOUT_S * 1000;

const readSchema = v.strictObject({
  file_path: text("Path of the file to read (absolute, or relative to the project root)."),
  offset: v.optional(num("Line number to start reading at (1-based). Give it with limit for large files.")),
  limit: v.optional(num(`Number of lines to read (default ${READ_MAX_LIMIT}).`)),
  pages: v.optional(
    text('Page range of a PDF, e.g. "1-5" (gong does not render PDFs: extract their text with a command instead).'),
  ),
});

/** The core read in Read's words: pages by `offset`. */
// Claude Code reads the range it is asked for: no 2000-line ceiling on limit.
const claudeRead = readToolWith(numbered, windowWording("offset"), { maxLimit: undefined });

export const ReadTool: Tool<v.InferOutput<typeof readSchema>> = {
  name: "Read",
  description:
    `Reads a file from the project with numbered lines ("   1 | text"), up to ${READ_MAX_LIMIT} lines from the start unless offset/limit say otherwise. ` +
    "Images (PNG, JPEG, GIF, WebP) come back for viewing. Read a file before you edit it; read several files in parallel when you need them.",
  schema: readSchema,
  truncation: "head",
  ...describedLike(readTool, (a) => ({ path: a.file_path, start_line: a.offset, limit: a.limit })),
  run: (args, ctx) =>
    args.pages !== undefined
      ? Promise.resolve(
          ctx.reply.fail(
            "INVALID_PARAM",
            `pages is for PDF files, which gong does not render. Extract the text with a command (e.g. pdftotext -f 1 -l 5 '${args.file_path}' -) and read that.`,
          ),
        )
      : delegate(
          claudeRead,
          {
            path: args.file_path,
            start_line: wholeCount(args.offset, 1),
            limit: wholeCount(args.limit, 1) ?? READ_MAX_LIMIT,
          },
          ctx,
        ),
};

const writeSchema = v.strictObject({
  file_path: text("Path of the file to write (absolute, or relative to the project root)."),
  content: text("The full content of the file."),
});

export const WriteTool: Tool<v.InferOutput<typeof writeSchema>> = {
  name: "Write",
  description:
    "Creates a file or replaces an existing file completely. Read an existing file first; prefer Edit for changing part of a file. Parent directories are created.",
  schema: writeSchema,
  truncation: "tail",
  ...describedLike(writeTool, (a) => ({ path: a.file_path, content: a.content })),
  run: (args, ctx) => delegate(writeTool, { path: args.file_path, content: args.content }, ctx),
};

const editSchema = v.strictObject({
  file_path: text("Path of the file to change (absolute, or relative to the project root)."),
  old_string: text("The exact text to replace. It must occur exactly once unless replace_all is true."),
  new_string: text("The text to put in its place (must differ from old_string)."),
  replace_all: v.optional(flag("Replace every occurrence of old_string (default false)."), false),
});

const CLAUDE_EDIT_NAMES = { oldText: "old_string", replaceAll: "replace_all" };
const claudeEdit = editToolWith(CLAUDE_EDIT_NAMES);

export const EditTool: Tool<v.InferOutput<typeof editSchema>> = {
  name: "Edit",
  description:
    "Replaces an exact piece of text in a file. Copy old_string from what Read showed you, without the line-number prefix, with enough surrounding lines to make it unique. " +
    "Use replace_all to rename something throughout the file. Returns a diff of the change.",
  schema: editSchema,
  truncation: "tail",
  ...describedLike(editTool, (a) => ({
    path: a.file_path,
    old_text: a.old_string,
    new_text: a.new_string,
    replace_all: a.replace_all,
  })),
  run: (args, ctx) => {
    // expected_replacements (earlier Edit): exactly that many occurrences, all replaced.
    const expected = ctx.earlier?.expected_replacements;
    return delegate(
      typeof expected === "number" ? editToolWith(CLAUDE_EDIT_NAMES, expected) : claudeEdit,
      { path: args.file_path, old_text: args.old_string, new_text: args.new_string, replace_all: args.replace_all },
      ctx,
    );
  },
};

const bashSchema = v.strictObject({
  command: text("The command to run (bash)."),
  timeout: v.optional(
    v.pipe(
      v.number(),
      v.maxValue(MAX_TIMEOUT_MS),
      v.description(`Timeout in milliseconds (at most ${MAX_TIMEOUT_MS}); default ${CLAUDE_BASH_DEFAULT_TIMEOUT_MS}.`),
    ),
  ),
  description: v.optional(text("A short description of what the command does, in 5-10 words.")),
  run_in_background: v.optional(
    flag("Start the command in the background and return at once; read its output later with TaskOutput."),
  ),
  dangerouslyDisableSandbox: v.optional(
    flag(
      "Ask to run outside the sandbox. The user decides the sandbox when starting gong; a command never leaves it on its own.",
    ),
  ),
});

export const BashTool: Tool<v.InferOutput<typeof bashSchema>> = {
  name: "Bash",
  description:
    "Runs a bash command in the project directory and returns its output (stdout and stderr together). " +
    `Default timeout ${CLAUDE_BASH_DEFAULT_TIMEOUT_MS / 1000} s; the whole process tree is killed on timeout. ` +
    "Use run_in_background for servers and long jobs, then TaskOutput / TaskStop. Prefer Read, Grep and Glob over cat, grep and find.",
  schema: bashSchema,
  truncation: "tail",
  ...describedLike(bashTool, (a) => ({ command: a.command, description: a.description })),
  async run(args, ctx) {
    if (args.run_in_background) {
      const table = ctx.processes;
      // Kept whole until TaskOutput reads it, in captures like this call's (one spill file per reading call).
      const started = table.start(args.command, { output: ctx.output });
      await table.waitForExit(started.id, 50, ctx.signal);
      return ctx.reply.success(
        { task_id: String(started.id), running: !started.result },
        `Command running in the background with ID: ${started.id}. Read its output with TaskOutput (task_id "${started.id}"); stop it with TaskStop.`,
      );
    }
    const timeoutMs =
      args.timeout !== undefined
        ? Math.max(1, Math.floor(args.timeout))
        : (ctx.commandTimeoutMs ?? CLAUDE_BASH_DEFAULT_TIMEOUT_MS);
    return runShellCommand(ctx, {
      command: args.command,
      timeoutMs,
      retryHint: `retry with a larger timeout (in ms, at most ${MAX_TIMEOUT_MS})`,
      background: {
        say: (id) =>
          `The user moved this command to the background; it is still running with ID: ${id}. Read its output with TaskOutput (task_id "${id}"); stop it with TaskStop.`,
      },
    });
  },
};

const taskOutputSchema = v.strictObject({
  task_id: text("The ID of the background task."),
  // Claude Code declares all three required (with defaults true and 30000 its models always send).
  block: flag("Wait for the task to finish (usually true)."),
  timeout: v.pipe(
    v.number(),
    v.minValue(0),
    v.maxValue(600_000),
    v.description("Longest wait in milliseconds (usually 30000)."),
  ),
});

export const TaskOutputTool: Tool<v.InferOutput<typeof taskOutputSchema>> = {
  name: "TaskOutput",
  description:
    "Returns the new output of a background command started with Bash run_in_background, and whether it is still running. block=true waits for it to finish (up to timeout ms).",
  schema: taskOutputSchema,
  truncation: "tail",
  kind: "shell",
  summarizeCall: (a) => `task ${a.task_id ?? ""}`,
  touches: () => [],
  async run(args, ctx) {
    const table = ctx.processes;
    const process = table.get(Number(args.task_id));
    if (!process)
      return ctx.reply.fail(
        "NOT_FOUND",
        `No background task with ID '${args.task_id}' (it may have finished and been read already). Running: ${
          table
            .list()
            .map((p) => p.id)
            .join(", ") || "none"
        }.`,
      );
    if (args.block) await table.waitForExit(process.id, args.timeout, ctx.signal);
    return describeProcess(table, process, ctx, { idLabel: "task" });
  },
};

const taskStopSchema = v.strictObject({
  task_id: v.optional(text("The ID of the background task to stop.")),
  shell_id: v.optional(text("Deprecated: the same as task_id.")),
});

export const TaskStopTool: Tool<v.InferOutput<typeof taskStopSchema>> = {
  name: "TaskStop",
  description: "Stops a background command (and every process it started).",
  schema: taskStopSchema,
  truncation: "tail",
  kind: "shell",
  summarizeCall: (a) => `stop task ${a.task_id ?? a.shell_id ?? ""}`,
  touches: () => [],
  async run(args, ctx) {
    const id = args.task_id ?? args.shell_id;
    if (id === undefined)
      return ctx.reply.fail(
        "INVALID_PARAM",
        "TaskStop needs task_id: the ID Bash gave when it started the background command.",
      );
    const table = ctx.processes;
    const process = table.get(Number(id));
    if (!process) return ctx.reply.fail("NOT_FOUND", `No background task with ID '${id}'.`);
    await table.kill(process.id);
    return describeProcess(table, process, ctx, { idLabel: "task" });
  },
};

const grepSchema = v.strictObject({
  pattern: text("Regular expression to search for (ripgrep syntax)."),
  path: v.optional(text("File or directory to search (default: the working directory).")),
  glob: v.optional(text('Only files matching this glob, e.g. "*.js" or "src/**/*.{ts,tsx}".')),
  output_mode: v.optional(
    v.pipe(
      v.picklist(["content", "files_with_matches", "count"]),
      v.description(
        '"content" shows matching lines, "files_with_matches" the files (default), "count" matches per file.',
      ),
    ),
  ),
  "-B": v.optional(num('Lines of context before each match (output_mode "content").')),
  "-A": v.optional(num('Lines of context after each match (output_mode "content").')),
  "-C": v.optional(num('Lines of context before and after each match (output_mode "content"); the same as context.')),
  context: v.optional(num('Lines of context before and after each match (output_mode "content").')),
  "-n": v.optional(flag('Show line numbers (output_mode "content"; default true).')),
  "-i": v.optional(flag("Ignore case.")),
  "-o": v.optional(flag('Show only the matching part of each line, one per row (output_mode "content").')),
  type: v.optional(text('File type to search, e.g. "js", "py", "rust", "go".')),
  head_limit: v.optional(
    num(`Only the first N lines / files / counts of the output (default ${GREP_HEAD_LIMIT}; 0 for all).`),
  ),
  offset: v.optional(num("Skip the first N lines / files / counts of the output.")),
  multiline: v.optional(flag("Let patterns span lines and '.' match newlines (default false).")),
});
type GrepArgs = v.InferOutput<typeof grepSchema>;

export const GrepTool: Tool<GrepArgs> = {
  name: "Grep",
  description:
    "Searches file contents with a regular expression (ripgrep syntax); .gitignore'd and binary files are skipped. " +
    'output_mode "files_with_matches" (default, newest first), "content" (matching lines, with -A/-B/-C context) or "count". ' +
    "Filter with glob or type. Use this instead of running grep or rg in Bash.",
  schema: grepSchema,
  truncation: "head",
  ...describedLike(grepTool, (a) => ({ pattern: a.pattern, path: a.path, glob: a.glob })),
  summarizeResult: (r) =>
    r.status === "error" ? defaultResultSummary(r) : count(Number(r.data.total_matches ?? 0), "match", "matches"),
  files: () => [],
  run: grep,
};

async function grep(args: GrepArgs, ctx: Parameters<Tool["run"]>[1]): Promise<ToolResponse> {
  const mode = args.output_mode ?? "files_with_matches";
  const around = wholeCount(args.context) ?? wholeCount(args["-C"]) ?? 0;
  const result = await searchContent(ctx, {
    pattern: args.pattern,
    path: args.path,
    glob: args.glob,
    type: args.type,
    ignoreCase: args["-i"],
    multiline: args.multiline,
    before: mode === "content" ? (wholeCount(args["-B"]) ?? around) : 0,
    after: mode === "content" ? (wholeCount(args["-A"]) ?? around) : 0,
    signal: ctx.signal,
  });
  let rows: string[];
  if (mode === "content") {
    const numbers = args["-n"] ?? true;
    const only = args["-o"] ? compileSearchRegex(args.pattern, { ignoreCase: args["-i"] }) : null;
    rows = result.lines.flatMap((l) => {
      const sep = l.kind === "match" ? ":" : "-";
      const prefix = numbers ? `${l.file}${sep}${l.line}${sep}` : `${l.file}${sep}`;
      if (!only) return [`${prefix}${l.text}`];
      return l.kind === "match" ? matchedParts(l.text, only).map((part) => `${prefix}${part}`) : [];
    });
  } else if (mode === "count") rows = result.files.map((f) => `${f}:${result.counts.get(f)}`);
  else rows = await newestFirst(ctx, result.files);
  const skip = wholeCount(args.offset) ?? 0;
  const limit = wholeCount(args.head_limit) ?? GREP_HEAD_LIMIT;
  const shown = rows.slice(skip, limit === undefined || limit === 0 ? undefined : skip + limit);
  // Whole lines, the whole listing: the framework cuts what the model sees, once.
  const listing = shown.join("\n");
  const total = [...result.counts.values()].reduce((a, b) => a + b, 0);
  const notes: string[] = [];
  if (shown.length < rows.length - skip)
    notes.push(
      `Showing ${shown.length} of ${rows.length - skip}; raise head_limit or use offset=${skip + shown.length} for more.`,
    );
  if (result.limitReached) notes.push(`The search stopped at ${COLLECT_LIMIT} matches; narrow the pattern or path.`);
  const head =
    total === 0
      ? `No matches for '${args.pattern}'.`
      : mode === "files_with_matches"
        ? `Found ${count(result.files.length, "file")}:`
        : `Found ${count(total, "match", "matches")} in ${count(result.files.length, "file")}:`;
  const body = [head, total === 0 ? "" : listing, ...notes.map((n) => `[${n}]`)].filter((l) => l !== "").join("\n");
  const data = {
    mode,
    matches: matchesOf(result),
    files: result.files,
    total_matches: total,
    truncated: notes.length > 0,
  };
  const extras = {
    pathResolved: result.where,
    stats: { total_matches: total, files: result.files.length, engine: result.engine },
  };
  return notes.length > 0 ? ctx.reply.partial(data, body, extras) : ctx.reply.success(data, body, extras);
}

/** The non-empty matches of `regex` in one line, as `rg -o` prints them. */
function matchedParts(line: string, regex: RegExp): string[] {
  const global = new RegExp(regex.source, regex.flags.includes("g") ? regex.flags : `${regex.flags}g`);
  return [...line.matchAll(global)].map((m) => m[0]).filter((m) => m !== "");
}

const globSchema = v.strictObject({
  pattern: text('Glob to match, e.g. "**/*.ts" or "src/**/test_*.py".'),
  path: v.optional(text("Directory to search in (default: the working directory).")),
});

export const GlobTool: Tool<v.InferOutput<typeof globSchema>> = {
  name: "Glob",
  description:
    "Finds files by glob pattern, newest first. Hidden files are included; .gitignore'd paths are skipped. Use it to locate files by name.",
  schema: globSchema,
  truncation: "head",
  ...describedLike(findTool, (a) => ({ pattern: a.pattern, path: a.path })),
  run: (args, ctx) => delegate(findTool, { pattern: args.pattern, path: args.path }, ctx),
};

export const anthropicTools: readonly Tool[] = [
  ReadTool,
  WriteTool,
  EditTool,
  BashTool,
  TaskOutputTool,
  TaskStopTool,
  GrepTool,
  GlobTool,
];
