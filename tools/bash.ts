/**
 * bash — run a shell command in the workspace (docs/conformance.md: 003 §3.3/§B, 004 §3.3 shell).
 *
 * The environment runs it (own process group, timeout SIGTERM → grace → SIGKILL); this tool picks
 * the timeout, streams every byte of output to the call's capture (memory bounded by the event
 * limit, one capped spill file) and what is new of it to `onUpdate`, and returns the complete output: the
 * framework alone cuts it for the model, keeping the end. A non-zero exit, a timeout or an abort
 * is reported as status "error" with the output kept in `text`, so the model both notices the
 * failure and sees why.
 */
import * as v from "valibot";
import type { ErrorCode, ToolResponse } from "../lib/envelope.ts";
import type { ExecResult } from "../lib/env/types.ts";
import { SubdirEnvironment } from "../lib/env/subdir.ts";
import { resolve } from "node:path";
import { relativeToRoot } from "../lib/paths.ts";
import { leadingCd, patchFromShellCommand, type ShellPatch } from "./apply-patch/shell.ts";
import { patchTouches, runPatch } from "./apply-patch/tool.ts";
import { text, whole } from "./args.ts";
import { TailRing } from "../lib/output/tail-ring.ts";
import { locate } from "./locate.ts";
import { failedStart } from "./processes.ts";
import type { Tool, ToolRunContext, Touch } from "./types.ts";
import { firstLine } from "../lib/output/cut.ts";
import { count, defaultResultSummary } from "./metadata.ts";

export const BASH_DEFAULT_TIMEOUT_S = 120;
export const BASH_MAX_TIMEOUT_S = 600;
/** onUpdate is called at most this often, with the output added since its last call. */
const UPDATE_INTERVAL_MS = 100;
/** At most this many bytes (so characters) per update: a faster flood keeps its end and says what it skipped. */
const UPDATE_MAX_BYTES = 30_000;
const encoder = new TextEncoder();
/** The end of a movable command's output kept for the background task it may become. */
const RECENT_BYTES = 16_000;

const schema = v.strictObject({
  command: text(
    "The command to run with bash -c in the project directory. Stdin is closed: interactive commands fail or time out.",
  ),
  timeout: v.optional(
    whole(
      `Timeout in seconds (1-${BASH_MAX_TIMEOUT_S}). Default ${BASH_DEFAULT_TIMEOUT_S}, or the session's command timeout when set.`,
      1,
      BASH_MAX_TIMEOUT_S,
    ),
  ),
  description: v.optional(text("A few words saying what the command does, shown to the user.")),
});
export type BashArgs = v.InferOutput<typeof schema>;

export const bashTool: Tool<BashArgs> = {
  name: "bash",
  description:
    "Runs a bash command in the project directory and returns its combined stdout and stderr. " +
    "When the output is long, the end of it is shown and the full output is saved to a file whose path is given. " +
    `Default timeout ${BASH_DEFAULT_TIMEOUT_S} s (max ${BASH_MAX_TIMEOUT_S} s); the whole process tree is killed on timeout. ` +
    "Prefer the read, grep and find tools for looking at files.",
  schema,
  truncation: "tail",
  kind: "shell",
  summarizeCall: (a) => String(a.command ?? ""),
  summarizeResult: summarizeCommand,
  touches: (a) => shellTouches(a.command, { description: a.description }),
  async run(args, ctx) {
    const timeoutMs =
      args.timeout !== undefined ? args.timeout * 1000 : (ctx.commandTimeoutMs ?? BASH_DEFAULT_TIMEOUT_S * 1000);
    return runShellCommand(ctx, {
      command: args.command,
      timeoutMs,
      retryHint: `retry with a larger timeout (at most ${BASH_MAX_TIMEOUT_S})`,
    });
  },
};

/**
 * What a foreground shell call touches: the command line it runs — or, for `apply_patch <<'EOF' …`,
 * which runShellCommand applies instead of running, the files the patch changes (relative to the
 * session's directory and a leading `cd`, as runShellPatch applies it).
 */
export function shellTouches(command: string, input: Record<string, unknown> = {}): Promise<Touch[]> {
  const shellPatch = patchFromShellCommand(command);
  if (!shellPatch) return Promise.resolve([{ as: "Bash", target: command, input }]);
  return patchTouches(shellPatch.patch, shellPatch.workdir);
}

export interface ShellRun {
  command: string;
  timeoutMs: number;
  /** Working directory (relative to the working directory, or absolute). */
  cwd?: string;
  /** How the model asks for more time, in its tool's own terms ("retry with a larger timeout …"). */
  retryHint: string;
  /**
   * Moved to the background by the user: what the model is told, in the words of its tools that
   * read such a command (without: it is told the user follows the command), and whether those read
   * its new output (the default) or its last lines.
   */
  background?: { say(id: number): string; readAs?: "new-output" | "last-lines" };
}

/**
 * Runs one command to its end (or its timeout) and answers with its complete output (the framework
 * cuts it for the model, keeping the end): the shared core of every profile's foreground shell tool.
 */
export async function runShellCommand(ctx: ToolRunContext, run: ShellRun): Promise<ToolResponse> {
  // `apply_patch <<'EOF' … EOF` is how codex-trained models patch through a shell: apply it directly.
  const shellPatch = patchFromShellCommand(run.command);
  if (shellPatch) return runShellPatch(shellPatch, ctx);
  const updates = ctx.onUpdate ? new TailUpdates(ctx.onUpdate) : null;
  const ranIn = await commandDirectory(ctx, run.cwd, run.command);
  const movable = ctx.background && !ctx.background.aborted ? ctx.background : undefined;
  // The command's own stop: the call's signal while it runs here, the task's once it was moved.
  const stop = new AbortController();
  const follow = () => stop.abort(ctx.signal?.reason);
  if (ctx.signal?.aborted) follow();
  ctx.signal?.addEventListener("abort", follow, { once: true });
  // Where the output goes: this call's capture and updates, then the background task's (which starts with the end of it).
  const recent = movable ? new TailRing(RECENT_BYTES) : null;
  let sink = {
    bytes: (chunk: Uint8Array) => ctx.output.write(chunk),
    text: (text: string) => {
      updates?.add(text);
      recent?.push(encoder.encode(text));
    },
  };
  const startedAt = Date.now();
  const done = ctx.env.exec(run.command, {
    timeoutMs: run.timeoutMs,
    cwd: run.cwd,
    signal: stop.signal,
    background: movable,
    onOutput: (chunk) => sink.bytes(chunk),
    onData: (text) => sink.text(text),
  });
  const moved = movable ? new Promise<null>((resolve) => movable.addEventListener("abort", () => resolve(null))) : null;
  let result: ExecResult | null;
  try {
    result = await (moved ? Promise.race([done, moved]) : done);
  } finally {
    ctx.signal?.removeEventListener("abort", follow);
    // What came after the last update is sent before the call ends (a failure is the registry's to report).
    updates?.flush();
  }
  if (result) return respond(result, run, ctx, ranIn);
  const task = ctx.processes.adopt(run.command, {
    startedAt,
    done: done.catch(failedStart),
    controller: stop,
    output: run.background?.readAs === "last-lines" ? undefined : ctx.output,
    before: recent?.text(),
  });
  sink = task;
  return respondMoved(task.process.id, run, ctx, ranIn);
}

/** The user moved the command to the background: its output so far, and where it went. */
function respondMoved(id: number, run: ShellRun, ctx: ToolRunContext, ranIn: string | undefined): ToolResponse {
  const output = ctx.output.finish();
  const said =
    run.background?.say(id) ??
    `The user moved this command to the background (task ${id}): it is still running, and the user follows it; its later output is not shown here.`;
  const body = output.totalBytes === 0 ? "(no output yet)" : output.text;
  return ctx.reply.success({ moved_to_background: true, task_id: id }, `${body}\n\n${said}`, {
    cwd: ranIn,
    stats: { total_lines: output.newlines + (output.endsOpen ? 1 : 0) },
  });
}

/**
 * Where a command really runs, for the envelope's `context.cwd`: its working directory (a
 * workdir, dir_path) and then the directory of a leading `cd <dir> &&` when that exists — relative
 * to the project root (POSIX), absolute outside it. Undefined when it is the session's own.
 */
export async function commandDirectory(
  ctx: ToolRunContext,
  cwd: string | undefined,
  command: string,
): Promise<string | undefined> {
  const base = cwd === undefined ? ctx.env.workingDirectory() : (await ctx.env.resolvePath(cwd)).absolute;
  let dir = base;
  const cd = leadingCd(command);
  // `cd ~`, `cd $X` and `cd -` depend on the shell's state: the command's directory is then not known here.
  if (cd !== undefined && !/^[~$-]/.test(cd)) {
    const target = resolve(base, cd);
    if ((await ctx.env.stat(target))?.type === "dir") dir = target;
  }
  if (dir === ctx.env.workingDirectory()) return undefined;
  return relativeToRoot(ctx.env.root, dir);
}

/** Applies a patch found in a shell command; after `cd <dir> &&` its paths are relative to that directory. */
export async function runShellPatch({ patch, workdir }: ShellPatch, ctx: ToolRunContext): Promise<ToolResponse> {
  if (workdir === undefined) return runPatch(patch, ctx);
  const { resolved, info } = await locate(ctx, workdir);
  if (info?.type !== "dir")
    return ctx.reply.fail("NOT_FOUND", `cd: ${workdir}: no such directory. Nothing was changed.`);
  return runPatch(patch, { ...ctx, env: new SubdirEnvironment(ctx.env, resolved.absolute) });
}

function respond(result: ExecResult, run: ShellRun, ctx: ToolRunContext, ranIn: string | undefined): ToolResponse {
  const output = ctx.output.finish();
  const body = output.totalBytes === 0 ? "(no output)" : output.text;
  const data: Record<string, unknown> = {
    exit_code: result.exitCode,
    timed_out: result.timedOut,
    aborted: result.aborted,
    duration_ms: result.durationMs,
    total_bytes: result.totalBytes,
  };
  if (output.spill?.path) data.full_output_path = output.spill.path;
  const extras = {
    cwd: ranIn,
    stats: { total_bytes: result.totalBytes, total_lines: output.newlines + (output.endsOpen ? 1 : 0) },
  };

  const failure = failureOf(result, run);
  if (failure)
    return ctx.reply.fail(failure.code, failure.message, { ...extras, data, text: `${body}\n\n${failure.message}` });
  return ctx.reply.success(data, body, extras);
}

function failureOf(result: ExecResult, run: ShellRun): { code: ErrorCode; message: string } | null {
  if (result.timedOut) {
    return {
      code: "TIMEOUT",
      message: `Command timed out after ${formatDuration(run.timeoutMs)}. The output so far is shown above; ${run.retryHint} or run long jobs in the background.`,
    };
  }
  if (result.aborted) return { code: "EXECUTION_ERROR", message: "Command aborted" };
  if (result.exitCode === null)
    return { code: "EXECUTION_ERROR", message: `Command was killed by signal ${result.signal ?? "unknown"}` };
  if (result.exitCode !== 0) return { code: "EXECUTION_ERROR", message: `Command exited with code ${result.exitCode}` };
  return null;
}

/** The timeout as the model set it: whole seconds when it is a whole number of seconds. */
function formatDuration(timeoutMs: number): string {
  return timeoutMs % 1000 === 0 ? `${timeoutMs / 1000} seconds` : `${timeoutMs} ms`;
}

/**
 * Sends onUpdate the output added since its last call (the event is a delta: joined, the updates
 * are the output), at most every UPDATE_INTERVAL_MS; a timer sends what a quiet spell leaves
 * waiting, and `flush` what is left when the command ends. A flood keeps its end (the one tail
 * ring) and the update says how many characters it skipped.
 */
class TailUpdates {
  private readonly pending = new TailRing(UPDATE_MAX_BYTES);
  /** Characters added since the last update: those the ring no longer holds were skipped. */
  private addedChars = 0;
  private lastSent = 0;
  private timer?: ReturnType<typeof setTimeout>;
  /** The last update ended a line (a skip note starts on a line of its own). */
  private atLineStart = true;

  constructor(private readonly send: (text: string) => void) {}

  add(chunk: string): void {
    this.addedChars += chunk.length;
    this.pending.push(encoder.encode(chunk));
    const wait = this.lastSent + UPDATE_INTERVAL_MS - performance.now();
    if (wait <= 0) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), wait);
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.addedChars === 0) return;
    const kept = this.pending.text();
    const skipped = this.addedChars - kept.length;
    const note = skipped > 0 ? `${this.atLineStart ? "" : "\n"}[… ${skipped} characters of output skipped …]\n` : "";
    const text = note + kept;
    this.pending.clear();
    this.addedChars = 0;
    this.lastSent = performance.now();
    this.atLineStart = text.endsWith("\n");
    this.send(text);
  }
}

/** "exit 0 · 12 lines"; a failed command shows its last line of output, which usually says why. */
export function summarizeCommand(r: ToolResponse): string {
  if (r.data.moved_to_background) return `moved to the background · task ${r.data.task_id} (/tasks)`;
  const code = r.data.exit_code;
  if (typeof code !== "number") return defaultResultSummary(r);
  const sentence = r.error?.message;
  const output = sentence && r.text.endsWith(sentence) ? r.text.slice(0, -sentence.length) : r.text;
  if (code !== 0) {
    const last = firstLine(output.trimEnd().split("\n").pop());
    return `exit ${code}${last ? ` · ${last}` : ""}`;
  }
  if (r.status === "error") return defaultResultSummary(r);
  // The whole output's line count, not only the part the model was shown.
  const total = r.stats.total_lines;
  const body = output.endsWith("\n") ? output.slice(0, -1) : output;
  return `exit 0 · ${count(typeof total === "number" ? total : body === "" ? 0 : body.split("\n").length, "line")}`;
}
