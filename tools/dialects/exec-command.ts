/**
 * codex's long-running command model (checked against codex 0.169's `exec_command` and
 * `write_stdin` definitions). `exec_command` starts a command and waits up to `yield_time_ms` for
 * it: a command that finished answers with its output and exit code; one still running keeps
 * running and answers with its output so far and a session id. `write_stdin` sends that session
 * input (or nothing, to poll) and answers with the output written since. The gong session kills
 * every one still running when it closes.
 */
import * as v from "valibot";
import type { ToolResponse } from "../../lib/envelope.ts";
import { patchFromShellCommand } from "../apply-patch/shell.ts";
import { flag, text } from "../args.ts";
import { runShellPatch } from "../bash.ts";
import type { BackgroundProcess, ProcessTable } from "../processes.ts";
import type { Tool, ToolRunContext } from "../types.ts";
import { isResponse, processTable } from "./background.ts";
import { num } from "./delegate.ts";

export const EXEC_DEFAULT_YIELD_MS = 10_000;
const MIN_YIELD_MS = 250;
const MAX_YIELD_MS = 30_000;
const WRITE_DEFAULT_YIELD_MS = 250;
const POLL_DEFAULT_YIELD_MS = 5_000;
const POLL_MAX_YIELD_MS = 300_000;
const DEFAULT_MAX_OUTPUT_TOKENS = 10_000;
/** Tokens are estimated at four characters each. */
const CHARS_PER_TOKEN = 4;

const execSchema = v.strictObject({
  cmd: text("The shell command."),
  workdir: v.optional(text("Working directory (default: the session's).")),
  tty: v.optional(flag("Ask for a terminal (stdin is a pipe either way).")),
  yield_time_ms: v.optional(num(`Wait this long, in ms (default ${EXEC_DEFAULT_YIELD_MS}, ${MIN_YIELD_MS}-${MAX_YIELD_MS}).`)),
  max_output_tokens: v.optional(num(`Default ${DEFAULT_MAX_OUTPUT_TOKENS}.`)),
  shell: v.optional(text("Default bash.")),
  login: v.optional(flag("Login shell (-l) for the given shell; default true.")),
  // codex's approval fields. gong's sandbox is the user's choice when it starts, so a command cannot
  // ask its way out; the fields are accepted so a codex-trained call is never refused for them.
  sandbox_permissions: v.optional(text('"use_default" (default) or "require_escalated"; gong keeps every command in the sandbox the user chose.')),
  justification: v.optional(text("Why the command needs to leave the sandbox (with require_escalated).")),
  prefix_rule: v.optional(v.pipe(v.array(v.string()), v.description('Command prefix a user might allow from now on, e.g. ["git", "pull"].'))),
});
type ExecArgs = v.InferOutput<typeof execSchema>;

export const execCommandTool: Tool<ExecArgs> = {
  name: "exec_command",
  description: "Runs a shell command; one still running after yield_time_ms keeps running and returns its output so far and a session_id for write_stdin.",
  schema: execSchema,
  truncation: "head_tail",
  kind: "shell",
  summarizeCall: (a) => String(a.cmd ?? ""),
  summarizeResult: summarizeRun,
  async run(args, ctx) {
    // codex-trained models also patch through the shell (`apply_patch <<'EOF' … EOF`): apply it directly.
    const shellPatch = patchFromShellCommand(args.cmd);
    if (shellPatch) return runShellPatch(shellPatch, ctx);
    const table = processTable(ctx);
    if (isResponse(table)) return table;
    const command = args.shell ? `${quote(args.shell)}${args.login === false ? "" : " -l"} -c ${quote(args.cmd)}` : args.cmd;
    const started = performance.now();
    let process: BackgroundProcess;
    try {
      if (args.workdir !== undefined) {
        const dir = await ctx.env.resolvePath(args.workdir);
        if (!dir.exists) return ctx.reply.fail("NOT_FOUND", `Working directory '${args.workdir}' does not exist. Create it first or pick an existing workdir.`);
      }
      process = table.start(command, { cwd: args.workdir });
    } catch (e) {
      return ctx.reply.fromError(e);
    }
    const yieldMs = clamp(args.yield_time_ms ?? ctx.commandTimeoutMs ?? EXEC_DEFAULT_YIELD_MS, MIN_YIELD_MS, MAX_YIELD_MS);
    await table.waitForExit(process.id, yieldMs, ctx.signal);
    if (ctx.signal?.aborted && !process.result) await table.kill(process.id);
    return answer(table, process, ctx, started, args.max_output_tokens);
  },
};

const writeSchema = v.strictObject({
  session_id: num("From exec_command."),
  chars: v.optional(v.pipe(v.string(), v.description("Text for stdin; empty or omitted to poll."))),
  yield_time_ms: v.optional(num(`Wait ms (write default ${WRITE_DEFAULT_YIELD_MS}; poll default ${POLL_DEFAULT_YIELD_MS}).`)),
  max_output_tokens: v.optional(num(`Default ${DEFAULT_MAX_OUTPUT_TOKENS}.`)),
});
type WriteArgs = v.InferOutput<typeof writeSchema>;

export const writeStdinTool: Tool<WriteArgs> = {
  name: "write_stdin",
  description: "Writes to a running exec_command session's stdin (or polls it) and returns its new output.",
  schema: writeSchema,
  truncation: "head_tail",
  kind: "shell",
  summarizeCall: (a) => `session ${a.session_id ?? ""}${a.chars ? ` ← ${JSON.stringify(a.chars)}` : " (poll)"}`,
  summarizeResult: summarizeRun,
  async run(args, ctx) {
    const table = processTable(ctx);
    if (isResponse(table)) return table;
    const process = table.get(args.session_id);
    if (!process) {
      const running = table.list().filter((p) => !p.result).map((p) => p.id);
      return ctx.reply.fail("NOT_FOUND", `No running session ${args.session_id}: it finished (its last output was returned) or never existed. Running sessions: ${running.join(", ") || "none"}.`);
    }
    const started = performance.now();
    const chars = args.chars ?? "";
    if (chars !== "" && !table.write(process.id, chars)) {
      if (!process.result) return ctx.reply.fail("EXECUTION_ERROR", `Session ${process.id} no longer reads its input. Poll it with empty chars for its output.`);
    }
    const yieldMs = chars === "" ? clamp(args.yield_time_ms ?? POLL_DEFAULT_YIELD_MS, MIN_YIELD_MS, POLL_MAX_YIELD_MS) : clamp(args.yield_time_ms ?? WRITE_DEFAULT_YIELD_MS, 0, MAX_YIELD_MS);
    await table.waitForExit(process.id, yieldMs, ctx.signal);
    return answer(table, process, ctx, started, args.max_output_tokens);
  },
};

/** The codex-style answer: wall time, exit code or session id, then the new output. */
function answer(table: ProcessTable, process: BackgroundProcess, ctx: ToolRunContext, started: number, maxTokens: number | undefined): ToolResponse {
  const fresh = table.takeNewOutput(process.id);
  const budget = Math.max(1, Math.floor(maxTokens ?? DEFAULT_MAX_OUTPUT_TOKENS)) * CHARS_PER_TOKEN;
  const output = fresh.text.length > budget ? `${fresh.text.slice(0, budget / 2)}\n…${fresh.text.length - budget} characters omitted…\n${fresh.text.slice(-budget / 2)}` : fresh.text;
  const wall = ((performance.now() - started) / 1000).toFixed(1);
  const result = process.result;
  const status = result
    ? result.exitCode !== null
      ? `Process exited with code ${result.exitCode}`
      : `Process was killed (${result.aborted ? "stopped" : (result.signal ?? "signal")})`
    : `Process running with session ID ${process.id}`;
  const lines = [`Wall time: ${wall} seconds`, status, `Original token count: ${Math.ceil(fresh.text.length / CHARS_PER_TOKEN)}`, "Output:", output.trimEnd()];
  const data: Record<string, unknown> = { output: fresh.text, wall_time_seconds: Number(wall) };
  if (result) {
    data.exit_code = result.exitCode;
    table.forget(process.id);
  } else data.session_id = process.id;
  const body = lines.join("\n");
  if (result && result.exitCode !== 0) {
    const why = result.exitCode === null ? "Command was killed" : `Command exited with code ${result.exitCode}`;
    return ctx.reply.fail("EXECUTION_ERROR", why, { data, text: body });
  }
  return ctx.reply.success(data, body, { stats: { output_chars: fresh.text.length } });
}

/** "exit 0", "running (session 1000)". */
function summarizeRun(r: ToolResponse): string {
  if (typeof r.data.session_id === "number") return `running (session ${r.data.session_id})`;
  return r.data.exit_code !== undefined ? `exit ${r.data.exit_code}` : (r.error?.message ?? "");
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.floor(value)));
}

function quote(word: string): string {
  return /^[\w./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
