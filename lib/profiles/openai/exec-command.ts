/**
 * codex's long-running command model (checked against codex 0.169's `exec_command` and
 * `write_stdin` definitions). `exec_command` starts a command and waits up to `yield_time_ms` for
 * it: a command that finished answers with its output and exit code; one still running keeps
 * running and answers with its output so far and a session id. `write_stdin` sends that session
 * input (or nothing, to poll) and answers with the output written since. The gong session kills
 * every one still running when it closes.
 *
 * Each answer carries the complete output of its stretch: the command streams into the process
 * table's capture, which the answering call takes over (one spill file per call, memory bounded),
 * and the framework cuts it once with the profile's shell limits.
 */
import * as v from "valibot";
import type { ToolResponse } from "../../envelope.ts";
import { shellQuote } from "../../env/sandbox-profiles.ts";
import { patchFromShellCommand } from "../../../tools/apply-patch/shell.ts";
import { patchTouches } from "../../../tools/apply-patch/tool.ts";
import { flag, text } from "../../../tools/args.ts";
import { commandDirectory, runShellPatch } from "../../../tools/bash.ts";
import type { BackgroundProcess, ProcessTable } from "../../../tools/processes.ts";
import type { Tool, ToolRunContext } from "../../../tools/types.ts";
import { num } from "../delegate.ts";

export const EXEC_DEFAULT_YIELD_MS = 10_000;
const MIN_YIELD_MS = 250;
const MAX_YIELD_MS = 30_000;
const WRITE_DEFAULT_YIELD_MS = 250;
const POLL_DEFAULT_YIELD_MS = 5_000;
const POLL_MAX_YIELD_MS = 300_000;
/** Tokens are estimated at four characters each. */
const CHARS_PER_TOKEN = 4;

const MAX_TOKENS_NOTE =
  "Show at most about this many tokens of the output (its start and end); by default it is shown up to the tool's output limit.";

const execSchema = v.strictObject({
  cmd: text("The shell command."),
  workdir: v.optional(text("Working directory (default: the session's).")),
  tty: v.optional(flag("Ask for a terminal (stdin is a pipe either way).")),
  yield_time_ms: v.optional(
    num(`Wait this long, in ms (default ${EXEC_DEFAULT_YIELD_MS}, ${MIN_YIELD_MS}-${MAX_YIELD_MS}).`),
  ),
  max_output_tokens: v.optional(num(MAX_TOKENS_NOTE)),
  shell: v.optional(text("Default bash.")),
  login: v.optional(flag("Login shell (-l) for the given shell; default true.")),
  // codex's approval fields. gong's sandbox is the user's choice when it starts, so a command cannot
  // ask its way out; the fields are accepted so a codex-trained call is never refused for them.
  sandbox_permissions: v.optional(
    text('"use_default" (default) or "require_escalated"; gong keeps every command in the sandbox the user chose.'),
  ),
  justification: v.optional(text("Why the command needs to leave the sandbox (with require_escalated).")),
  prefix_rule: v.optional(
    v.pipe(v.array(v.string()), v.description('Command prefix a user might allow from now on, e.g. ["git", "pull"].')),
  ),
});
type ExecArgs = v.InferOutput<typeof execSchema>;

export const execCommandTool: Tool<ExecArgs> = {
  name: "exec_command",
  description:
    "Runs a command with bash -c; one still running after yield_time_ms keeps running and returns its output so far and a session_id for write_stdin.",
  schema: execSchema,
  // The end, as every profile's shell keeps it; the status lines before the output stay whole (a header hint).
  truncation: "tail",
  kind: "shell",
  summarizeCall: (a) => String(a.cmd ?? ""),
  summarizeResult: summarizeRun,
  touches(a) {
    const shellPatch = patchFromShellCommand(a.cmd);
    if (shellPatch) return patchTouches(shellPatch.patch, shellPatch.workdir);
    return [{ as: "Bash", target: commandLine(a), input: { description: a.justification } }];
  },
  async run(args, ctx) {
    // codex-trained models also patch through the shell (`apply_patch <<'EOF' … EOF`): apply it directly.
    const shellPatch = patchFromShellCommand(args.cmd);
    if (shellPatch) return runShellPatch(shellPatch, ctx);
    const table = ctx.processes;
    const command = commandLine(args);
    const started = performance.now();
    if (args.workdir !== undefined) {
      const dir = await ctx.env.resolvePath(args.workdir);
      if (!dir.exists)
        return ctx.reply.fail(
          "NOT_FOUND",
          `Working directory '${args.workdir}' does not exist. Create it first or pick an existing workdir.`,
        );
    }
    const ranIn = await commandDirectory(ctx, args.workdir, args.cmd);
    const process = table.start(command, { cwd: args.workdir, output: ctx.output });
    const yieldMs = clamp(
      args.yield_time_ms ?? ctx.commandTimeoutMs ?? EXEC_DEFAULT_YIELD_MS,
      MIN_YIELD_MS,
      MAX_YIELD_MS,
    );
    await table.waitForExit(process.id, yieldMs, ctx.signal);
    if (ctx.signal?.aborted && !process.result) await table.kill(process.id);
    return answer(table, process, ctx, started, args.max_output_tokens, ranIn);
  },
};

/** The command line exec_command starts: `cmd`, through the shell the call names when it names one. */
function commandLine(args: ExecArgs): string {
  return args.shell
    ? `${shellQuote(args.shell)}${args.login === false ? "" : " -l"} -c ${shellQuote(args.cmd)}`
    : args.cmd;
}

const writeSchema = v.strictObject({
  session_id: num("From exec_command."),
  chars: v.optional(v.pipe(v.string(), v.description("Text for stdin; empty or omitted to poll."))),
  yield_time_ms: v.optional(
    num(`Wait ms (write default ${WRITE_DEFAULT_YIELD_MS}; poll default ${POLL_DEFAULT_YIELD_MS}).`),
  ),
  max_output_tokens: v.optional(num(MAX_TOKENS_NOTE)),
});
type WriteArgs = v.InferOutput<typeof writeSchema>;

export const writeStdinTool: Tool<WriteArgs> = {
  name: "write_stdin",
  description: "Writes to a running exec_command session's stdin (or polls it) and returns its new output.",
  schema: writeSchema,
  truncation: "tail",
  kind: "shell",
  summarizeCall: (a) => `session ${a.session_id ?? ""}${a.chars ? ` ← ${JSON.stringify(a.chars)}` : " (poll)"}`,
  summarizeResult: summarizeRun,
  // What it types may be a command for a shell it started: deny rules read it; no rule can allow it.
  touches: (a) => (a.chars ? [{ as: "Bash", target: a.chars, typed: true }] : []),
  async run(args, ctx) {
    const table = ctx.processes;
    const process = table.get(args.session_id);
    if (!process) {
      const running = table
        .list()
        .filter((p) => !p.result)
        .map((p) => p.id);
      return ctx.reply.fail(
        "NOT_FOUND",
        `No running session ${args.session_id}: it finished (its last output was returned) or never existed. Running sessions: ${running.join(", ") || "none"}.`,
      );
    }
    const started = performance.now();
    const chars = args.chars ?? "";
    if (chars !== "" && !(await table.write(process.id, chars))) {
      if (!process.result)
        return ctx.reply.fail(
          "EXECUTION_ERROR",
          `Session ${process.id} closed its input: the text was not delivered. Poll it with empty chars for its output, or stop it.`,
        );
    }
    const yieldMs =
      chars === ""
        ? clamp(args.yield_time_ms ?? POLL_DEFAULT_YIELD_MS, MIN_YIELD_MS, POLL_MAX_YIELD_MS)
        : clamp(args.yield_time_ms ?? WRITE_DEFAULT_YIELD_MS, 0, MAX_YIELD_MS);
    await table.waitForExit(process.id, yieldMs, ctx.signal);
    return answer(table, process, ctx, started, args.max_output_tokens);
  },
};

/**
 * The codex-style answer: wall time, exit code or session id, the true token count, then the new
 * output — all of it. The framework cuts it for the model (keeping this header whole): with the
 * profile's shell limits, or — when the model names max_output_tokens — to that many tokens (four
 * characters each) from the start and end.
 */
function answer(
  table: ProcessTable,
  process: BackgroundProcess,
  ctx: ToolRunContext,
  started: number,
  maxTokens: number | undefined,
  ranIn?: string,
): ToolResponse {
  // Same tick as finish(): output written from here on waits for the next write_stdin.
  table.take(process.id, ctx.output);
  const output = ctx.output.finish();
  const wall = ((performance.now() - started) / 1000).toFixed(1);
  const result = process.result;
  const status = result
    ? result.exitCode !== null
      ? `Process exited with code ${result.exitCode}`
      : `Process was killed (${result.aborted ? "stopped" : (result.signal ?? "signal")})`
    : `Process running with session ID ${process.id}`;
  const tokens = Math.ceil(output.totalChars / CHARS_PER_TOKEN);
  const header = `${[`Wall time: ${wall} seconds`, status, `Original token count: ${tokens}`, "Output:"].join("\n")}\n`;
  const data: Record<string, unknown> = { wall_time_seconds: Number(wall), original_token_count: tokens };
  if (output.spill?.path) data.full_output_path = output.spill.path;
  if (result) {
    data.exit_code = result.exitCode;
    table.forget(process.id);
  } else data.session_id = process.id;
  const text = header + output.text;
  // The status lines stay whole; a budget the model named is the call's own (the framework cuts to it).
  ctx.output.hint(
    maxTokens === undefined
      ? { headerChars: header.length }
      : { headerChars: header.length, budgetChars: Math.max(1, Math.floor(maxTokens)) * CHARS_PER_TOKEN },
  );
  const extras = {
    cwd: ranIn,
    stats: { output_chars: output.totalChars, total_lines: output.newlines + (output.endsOpen ? 1 : 0) },
  };
  if (result && result.exitCode !== 0) {
    const why = result.exitCode === null ? "Command was killed" : `Command exited with code ${result.exitCode}`;
    return ctx.reply.fail("EXECUTION_ERROR", why, { ...extras, data, text });
  }
  return ctx.reply.success(data, text, extras);
}

/** "exit 0", "running (session 1000)". */
function summarizeRun(r: ToolResponse): string {
  if (typeof r.data.session_id === "number") return `running (session ${r.data.session_id})`;
  return r.data.exit_code !== undefined ? `exit ${r.data.exit_code}` : (r.error?.message ?? "");
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.floor(value)));
}
