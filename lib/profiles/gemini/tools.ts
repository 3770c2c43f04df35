/**
 * The tools of the `gemini` profile, under gemini-cli's names and argument shapes (checked
 * against gemini-cli 0.56's declarations for Gemini 2.5/3): read_file, read_many_files,
 * write_file, replace, run_shell_command (+ read_background_output, list_background_processes),
 * grep_search, glob, list_directory. Each maps its arguments onto gong's core tools.
 */
import { OutputCapture } from "../../output/capture.ts";
import picomatch from "picomatch";
import * as v from "valibot";
import { flag, text, whole } from "../../../tools/args.ts";
import { bashTool, commandDirectory, runShellCommand } from "../../../tools/bash.ts";
import { editTool, editToolWith } from "../../../tools/edit.ts";
import { findFiles, findTool } from "../../../tools/find.ts";
import { grepTool } from "../../../tools/grep.ts";
import { lsTool, lsToolWith } from "../../../tools/ls.ts";
import { count, defaultResultSummary } from "../../../tools/metadata.ts";
import { READ_MAX_LIMIT, readTool, readToolWith } from "../../../tools/read.ts";
import type { Tool, ToolRunContext } from "../../../tools/types.ts";
import { writeTool } from "../../../tools/write.ts";
import { delegate, describedLike } from "../delegate.ts";
import { matchesOf, searchContent } from "../content-search.ts";

export const GEMINI_SHELL_DEFAULT_TIMEOUT_MS = 10_000;
const BACKGROUND_DELAY_MS = 200;
const GREP_DEFAULT_TOTAL = 100;
/** read_many_files stops adding files past this many characters. */
const MANY_FILES_MAX_CHARS = 200_000;
const DEFAULT_EXCLUDES = [
  "**/node_modules/**",
  "**/.git/**",
  "**/dist/**",
  "**/build/**",
  "**/*.lock",
  "**/*.min.js",
  "**/*.{png,jpg,jpeg,gif,webp,ico,pdf,zip,gz,tar,exe,dll,so,dylib,class,jar,wasm}",
];

const filtering = v.optional(
  v.pipe(
    v.strictObject({
      respect_git_ignore: v.optional(flag("Default true.")),
      respect_gemini_ignore: v.optional(flag("Default true.")),
    }),
    v.description("Ignore files to respect."),
  ),
);

/** The core read without line numbers: gemini-cli shows file content as it is, any range it is asked for. */
const plainRead = readToolWith(() => "", undefined, { maxLimit: undefined });

const readSchema = v.strictObject({
  file_path: text("Path of the file to read."),
  start_line: v.optional(whole("First line to read, 1-based.", 1)),
  end_line: v.optional(whole("Last line to read, 1-based and inclusive.", 1)),
});

export const geminiReadFileTool: Tool<v.InferOutput<typeof readSchema>> = {
  name: "read_file",
  description: `Reads a file: its first ${READ_MAX_LIMIT} lines, or the lines from start_line to end_line (start_line alone: to the end). Images come back for viewing.`,
  schema: readSchema,
  truncation: "head_tail",
  ...describedLike(readTool, (a) => ({ path: a.file_path, start_line: a.start_line })),
  async run(args, ctx) {
    const start = args.start_line ?? 1;
    if (args.end_line !== undefined && args.end_line < start)
      return ctx.reply.fail("INVALID_PARAM", `end_line (${args.end_line}) is before start_line (${start}).`);
    // As gemini-cli reads: no range, the first 2000 lines; a range, all of it (start_line alone: to the end).
    const limit =
      args.end_line !== undefined
        ? args.end_line - start + 1
        : args.start_line !== undefined
          ? Number.MAX_SAFE_INTEGER
          : READ_MAX_LIMIT;
    return delegate(plainRead, { path: args.file_path, start_line: start, limit }, ctx);
  },
};

const manySchema = v.strictObject({
  include: v.pipe(
    v.array(v.pipe(v.string(), v.minLength(1))),
    v.minLength(1),
    v.description('Paths or globs, e.g. ["src/**/*.ts", "docs/"].'),
  ),
  exclude: v.optional(v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.description("Globs to skip.")), []),
  recursive: v.optional(flag("Descend into directories (default true)."), true),
  useDefaultExcludes: v.optional(flag("Skip node_modules, .git, build output, binaries (default true)."), true),
  file_filtering_options: filtering,
});
type ManyArgs = v.InferOutput<typeof manySchema>;

export const readManyFilesTool: Tool<ManyArgs> = {
  name: "read_many_files",
  description: "Reads several text files found by paths or globs, each headed by its path.",
  schema: manySchema,
  truncation: "head",
  kind: "read",
  summarizeCall: (a) => (Array.isArray(a.include) ? a.include.join(" ") : ""),
  touches: (a) => a.include.map((path) => ({ as: "Read", target: path })),
  summarizeResult: (r) =>
    r.status === "error" || !Array.isArray(r.data.files) ? defaultResultSummary(r) : count(r.data.files.length, "file"),
  files: (r) => (Array.isArray(r.data.files) ? (r.data.files as string[]) : []),
  run: async (args: ManyArgs, ctx) => {
    const excludes = [...args.exclude, ...(args.useDefaultExcludes ? DEFAULT_EXCLUDES : [])];
    const skip = excludes.length ? picomatch(excludes, { dot: true }) : () => false;
    const files = new Set<string>();
    for (const item of args.include) {
      const pattern = item.endsWith("/") ? `${item}${args.recursive ? "**/*" : "*"}` : item;
      const plain = await ctx.env.resolvePath(item, { reading: true }).catch(() => null);
      const info = plain?.exists ? await ctx.env.stat(plain.absolute) : null;
      if (info?.type === "file") files.add(plain!.relative);
      else if (info?.type === "dir")
        for (const p of (
          await ctx.env.glob({ pattern: args.recursive ? "**/*" : "*", path: plain!.absolute, limit: 5000 })
        ).paths)
          files.add(p);
      else
        for (const p of (await ctx.env.glob({ pattern, path: ctx.env.workingDirectory(), limit: 5000 })).paths)
          files.add(p);
    }
    const chosen = [...files].filter((f) => !f.endsWith("/") && !skip(f)).sort();
    const parts: string[] = [];
    const read: string[] = [];
    const skipped: string[] = [];
    let size = 0;
    for (const file of chosen) {
      if (size > MANY_FILES_MAX_CHARS) {
        skipped.push(`${file} (size budget reached)`);
        continue;
      }
      // Each file is a read of its own: its own output capture (held in memory, never spilled); one it may not read is skipped.
      const r = await delegate(
        plainRead,
        { path: file, limit: READ_MAX_LIMIT },
        { ...ctx, output: new OutputCapture() },
      ).catch((e: unknown) => ctx.reply.fromError(e));
      if (r.status === "error" || Array.isArray(r.data.images)) {
        skipped.push(`${file} (${r.error?.message ?? "not text"})`);
        continue;
      }
      const content = String(r.data.content ?? "");
      size += content.length;
      read.push(file);
      parts.push(`--- ${file} ---\n${content}`);
    }
    if (read.length === 0)
      return ctx.reply.fail(
        "NOT_FOUND",
        `No readable files matched ${JSON.stringify(args.include)}${skipped.length ? ` (skipped: ${skipped.slice(0, 5).join(", ")})` : ""}. Check the patterns.`,
      );
    const body = [
      ...parts,
      "--- End of content ---",
      ...(skipped.length ? [`Skipped ${skipped.length}: ${skipped.slice(0, 20).join(", ")}`] : []),
    ].join("\n");
    const data = { files: read, skipped };
    return skipped.length ? ctx.reply.partial(data, body) : ctx.reply.success(data, body);
  },
};

const writeSchema = v.strictObject({
  file_path: text("Path of the file to write."),
  content: text("The content to write."),
});

export const geminiWriteFileTool: Tool<v.InferOutput<typeof writeSchema>> = {
  name: "write_file",
  description:
    "Writes content to a file, creating it (and its directories) or replacing what it held. Prefer replace for changing part of an existing file.",
  schema: writeSchema,
  truncation: "tail",
  ...describedLike(writeTool, (a) => ({ path: a.file_path, content: a.content })),
  run: (args, ctx) => delegate(writeTool, { path: args.file_path, content: args.content }, ctx),
};

const replaceSchema = v.strictObject({
  file_path: text("Path of the file to change."),
  instruction: text("What the change does and why, in a sentence."),
  old_string: text(
    "The exact literal text to replace, with its whitespace and a few lines of context so it is unique. Empty to create a new file.",
  ),
  new_string: text("The exact literal text to put in its place."),
  allow_multiple: v.optional(flag("Replace every occurrence of old_string instead of requiring exactly one.")),
});

const GEMINI_EDIT_NAMES = { oldText: "old_string", replaceAll: "allow_multiple" };
const geminiEdit = editToolWith(GEMINI_EDIT_NAMES);

export const replaceTool: Tool<v.InferOutput<typeof replaceSchema>> = {
  name: "replace",
  description:
    "Replaces exact text in a file: old_string must match the file literally (read it first) and exactly once, unless allow_multiple is true. " +
    "An empty old_string on a path that does not exist creates the file with new_string.",
  schema: replaceSchema,
  truncation: "tail",
  ...describedLike(editTool, (a) => ({
    path: a.file_path,
    old_text: a.old_string,
    new_text: a.new_string,
    replace_all: a.allow_multiple,
  })),
  async run(args, ctx) {
    if (args.old_string === "") {
      const target = await ctx.env.resolvePath(args.file_path).catch(() => null);
      if (target && !target.exists) return delegate(writeTool, { path: args.file_path, content: args.new_string }, ctx);
    }
    // expected_replacements (earlier replace): exactly that many occurrences, all replaced.
    const expected = ctx.earlier?.expected_replacements;
    return delegate(
      typeof expected === "number" ? editToolWith(GEMINI_EDIT_NAMES, expected) : geminiEdit,
      {
        path: args.file_path,
        old_text: args.old_string,
        new_text: args.new_string,
        replace_all: args.allow_multiple ?? false,
      },
      ctx,
    );
  },
};

const shellSchema = v.strictObject({
  command: text("The bash command to run (bash -c <command>)."),
  description: v.optional(text("A short description of what the command does.")),
  dir_path: v.optional(text("Directory to run the command in (default: the project root).")),
  is_background: v.optional(flag("Run the command in the background (servers, watchers) and return at once.")),
  delay_ms: v.optional(
    whole("For background commands: milliseconds to wait for first output before returning (default 200)."),
  ),
  // gemini-cli's sandbox request. gong's sandbox is the user's choice when it starts; a command keeps it.
  additional_permissions: v.optional(
    v.pipe(
      v.strictObject({
        fileSystem: v.optional(
          v.strictObject({ read: v.optional(v.array(v.string())), write: v.optional(v.array(v.string())) }),
        ),
        network: v.optional(v.boolean()),
      }),
      v.description("Asks for more sandbox access; gong keeps every command in the sandbox the user chose."),
    ),
  ),
});
type ShellArgs = v.InferOutput<typeof shellSchema>;

export const runShellCommandTool: Tool<ShellArgs> = {
  name: "run_shell_command",
  description:
    `Runs a bash command and returns its combined output, exit code and any error. Default timeout ${GEMINI_SHELL_DEFAULT_TIMEOUT_MS / 1000} s; the process tree is killed on timeout. ` +
    "Set is_background for servers and long jobs; read their output with read_background_output.",
  schema: shellSchema,
  truncation: "tail",
  ...describedLike(bashTool, (a) => ({ command: a.command, description: a.description })),
  async run(args, ctx) {
    if (args.dir_path !== undefined) {
      const dir = await ctx.env.resolvePath(args.dir_path);
      if (!dir.exists)
        return ctx.reply.fail(
          "NOT_FOUND",
          `Directory '${args.dir_path}' does not exist. Run the command from an existing directory.`,
        );
    }
    if (args.is_background) {
      const table = ctx.processes;
      const ranIn = await commandDirectory(ctx, args.dir_path, args.command);
      const started = table.start(args.command, { cwd: args.dir_path });
      await table.waitForExit(started.id, args.delay_ms ?? BACKGROUND_DELAY_MS, ctx.signal);
      const first = table.tail(started.id, 20).text;
      const state = started.result ? `It already exited (code ${started.result.exitCode}).` : "It keeps running.";
      return ctx.reply.success(
        { pid: started.id, running: !started.result },
        `Started in the background. Background PIDs: ${started.id}. ${state} Read its output with read_background_output (pid ${started.id}).\nOutput: ${first === "" ? "(empty)" : first}`,
        { cwd: ranIn },
      );
    }
    const timeoutMs = ctx.commandTimeoutMs ?? GEMINI_SHELL_DEFAULT_TIMEOUT_MS;
    return runShellCommand(ctx, {
      command: args.command,
      cwd: args.dir_path,
      timeoutMs,
      retryHint: "run it with is_background: true",
      background: {
        readAs: "last-lines",
        say: (id) =>
          `The user moved this command to the background. Background PIDs: ${id}. Read its output with read_background_output (pid ${id}).`,
      },
    });
  },
};

const backgroundOutputSchema = v.strictObject({
  pid: whole("PID of the background process."),
  lines: v.optional(whole("Lines from the end (default 100).", 1)),
  delay_ms: v.optional(whole("Wait this long before reading (ms).")),
});

export const readBackgroundOutputTool: Tool<v.InferOutput<typeof backgroundOutputSchema>> = {
  name: "read_background_output",
  description: "Reads the latest output of a background process and whether it still runs.",
  schema: backgroundOutputSchema,
  truncation: "tail",
  kind: "shell",
  summarizeCall: (a) => `pid ${a.pid ?? ""}`,
  touches: () => [],
  async run(args, ctx) {
    const table = ctx.processes;
    const process = table.get(args.pid);
    if (!process)
      return ctx.reply.fail(
        "NOT_FOUND",
        `No background process with PID ${args.pid}. List them with list_background_processes.`,
      );
    if (args.delay_ms) await table.waitForExit(process.id, args.delay_ms, ctx.signal);
    // gemini-cli's own window: the last `lines` lines of the log (default 100). The framework cuts that once.
    const tail = table.tail(process.id, args.lines ?? 100);
    const r = process.result;
    const state = r ? `exited with code ${r.exitCode ?? r.signal}` : "running";
    const from = tail.totalLines - tail.lines + 1;
    const shown =
      tail.lines === 0
        ? ""
        : from === tail.totalLines
          ? `, line ${from} of ${tail.totalLines}`
          : `, lines ${from}-${tail.totalLines} of ${tail.totalLines}`;
    const clipped = tail.clipped ? ` (only the end of line ${from} is kept)` : "";
    const header = `PID ${process.id} (${state})${shown}${clipped}:\n`;
    ctx.output.hint({ headerChars: header.length });
    return ctx.reply.success(
      { pid: process.id, running: !r, lines_shown: tail.lines, total_lines: tail.totalLines },
      header + (tail.text === "" ? "(no output yet)" : tail.text),
      {
        context: args.lines !== undefined ? { truncation_skip: true } : {},
      },
    );
  },
};

export const listBackgroundProcessesTool: Tool<Record<string, never>> = {
  name: "list_background_processes",
  description: "Lists this session's background processes.",
  schema: v.strictObject({}),
  truncation: "head",
  kind: "shell",
  touches: () => [],
  async run(_args, ctx) {
    const table = ctx.processes;
    const all = table.list();
    const lines = all.map(
      (p) => `${p.id}: ${p.result ? `exited (${p.result.exitCode ?? p.result.signal})` : "running"} — ${p.command}`,
    );
    return ctx.reply.success(
      { processes: all.map((p) => ({ pid: p.id, running: !p.result, command: p.command })) },
      lines.length ? lines.join("\n") : "No background processes.",
    );
  },
};

const grepSchema = v.strictObject({
  pattern: text("Regular expression to search for (ripgrep syntax)."),
  dir_path: v.optional(text("File or directory to search (default: the project root).")),
  include_pattern: v.optional(text('Glob of files to search, e.g. "*.ts".')),
  exclude_pattern: v.optional(text("Regular expression: matching lines that also match it are left out.")),
  names_only: v.optional(flag("Only the names of matching files.")),
  case_sensitive: v.optional(flag("Match case (default false).")),
  fixed_strings: v.optional(flag("Pattern is literal text.")),
  context: v.optional(whole("Context lines around a match.", 0)),
  after: v.optional(whole("Context lines after a match.", 0)),
  before: v.optional(whole("Context lines before a match.", 0)),
  no_ignore: v.optional(flag("Search files that .gitignore leaves out too (default false).")),
  max_matches_per_file: v.optional(whole("Most matches per file.", 1)),
  total_max_matches: v.optional(whole(`Most matches in all (default ${GREP_DEFAULT_TOTAL}).`, 1)),
});
type GrepArgs = v.InferOutput<typeof grepSchema>;

export const grepSearchTool: Tool<GrepArgs> = {
  name: "grep_search",
  aliases: ["search_file_content"],
  description:
    "Searches file contents for a regular expression (ripgrep), skipping .gitignore'd and binary files; matching lines come grouped by file.",
  schema: grepSchema,
  truncation: "head",
  ...describedLike(grepTool, (a) => ({ pattern: a.pattern, path: a.dir_path, glob: a.include_pattern })),
  summarizeResult: (r) =>
    r.status === "error"
      ? defaultResultSummary(r)
      : count(
          Number(r.data.total_matches ?? (Array.isArray(r.data.files) ? r.data.files.length : 0)),
          "match",
          "matches",
        ),
  files: () => [],
  run: async (args: GrepArgs, ctx: ToolRunContext) => {
    const result = await searchContent(ctx, {
      pattern: args.pattern,
      path: args.dir_path,
      glob: args.include_pattern,
      excludeLines: args.exclude_pattern,
      noIgnore: args.no_ignore,
      ignoreCase: !(args.case_sensitive ?? false),
      literal: args.fixed_strings,
      before: args.before ?? args.context ?? 0,
      after: args.after ?? args.context ?? 0,
      signal: ctx.signal,
    });
    const extras = { pathResolved: result.where, stats: { files: result.files.length, engine: result.engine } };
    const where = args.dir_path ?? ".";
    if (result.files.length === 0)
      return ctx.reply.success(
        { files: [], matches: [], total_matches: 0 },
        `No matches found for pattern "${args.pattern}" in ${where}.`,
        extras,
      );
    if (args.names_only)
      return ctx.reply.success(
        { files: result.files, matches: matchesOf(result) },
        `Found ${count(result.files.length, "file")} matching "${args.pattern}":\n${result.files.join("\n")}`,
        extras,
      );
    const total = args.total_max_matches ?? GREP_DEFAULT_TOTAL;
    const perFile = args.max_matches_per_file ?? Number.MAX_SAFE_INTEGER;
    const blocks: string[] = [];
    let shown = 0;
    for (const file of result.files) {
      if (shown >= total) break;
      let inFile = 0;
      const rows: string[] = [];
      for (const l of result.lines.filter((x) => x.file === file)) {
        if (l.kind === "match") {
          if (inFile >= perFile || shown >= total) break;
          inFile++;
          shown++;
        }
        rows.push(`L${l.line}${l.kind === "match" ? ":" : "-"} ${l.text}`);
      }
      blocks.push(`File: ${file}\n${rows.join("\n")}`);
    }
    const all = [...result.counts.values()].reduce((a, b) => a + b, 0);
    // Whole lines: the framework cuts what the model sees, once.
    const listing = blocks.join("\n---\n");
    const cut = shown < all;
    const head = `Found ${count(all, "match", "matches")} for pattern "${args.pattern}" in ${where}${cut ? ` (showing ${shown})` : ""}:`;
    const body = `${head}\n---\n${listing}${cut ? "\n[Narrow the pattern or raise total_max_matches to see more.]" : ""}`;
    const data = { files: result.files, matches: matchesOf(result), total_matches: all, truncated: cut };
    return cut ? ctx.reply.partial(data, body, extras) : ctx.reply.success(data, body, extras);
  },
};

const globSchema = v.strictObject({
  pattern: text("Glob to match, e.g. '**/*.py' or 'docs/*.md'."),
  dir_path: v.optional(text("Directory to search in (default: the project root).")),
  case_sensitive: v.optional(flag("Match case (default false).")),
  respect_git_ignore: v.optional(flag("Default true.")),
  respect_gemini_ignore: v.optional(flag("Default true.")),
});

export const geminiGlobTool: Tool<v.InferOutput<typeof globSchema>> = {
  name: "glob",
  description:
    "Finds files by glob pattern and lists them newest first (directories end in '/'). .gitignore'd paths are skipped unless respect_git_ignore is false.",
  schema: globSchema,
  truncation: "head",
  ...describedLike(findTool, (a) => ({ pattern: a.pattern, path: a.dir_path })),
  run: async (args, ctx) =>
    await findFiles({ pattern: args.pattern, path: args.dir_path }, ctx, {
      ignoreCase: !(args.case_sensitive ?? false),
      noIgnore: args.respect_git_ignore === false,
    }),
};

const listSchema = v.strictObject({
  dir_path: text("The directory to list."),
  ignore: v.optional(v.pipe(v.array(v.string()), v.description("Globs of entries to skip."))),
  file_filtering_options: filtering,
});

export const listDirectoryTool: Tool<v.InferOutput<typeof listSchema>> = {
  name: "list_directory",
  description: "Lists the entries directly inside a directory (directories end in '/').",
  schema: listSchema,
  truncation: "head",
  ...describedLike(lsTool, (a) => ({ path: a.dir_path })),
  async run(args, ctx) {
    if (!args.ignore?.length) return delegate(lsTool, { path: args.dir_path }, ctx);
    // Ignored entries leave the listing, the data and the counts alike.
    const ignored = picomatch(args.ignore, { dot: true });
    return delegate(
      lsToolWith((name) => !ignored(name)),
      { path: args.dir_path },
      ctx,
    );
  },
};

export const geminiTools: readonly Tool[] = [
  geminiReadFileTool,
  readManyFilesTool,
  geminiWriteFileTool,
  replaceTool,
  runShellCommandTool,
  readBackgroundOutputTool,
  listBackgroundProcessesTool,
  grepSearchTool,
  geminiGlobTool,
  listDirectoryTool,
];
