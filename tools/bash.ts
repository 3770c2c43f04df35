/**
 * bash — run a shell command in the workspace (003 §3.3/§B, 004 §3.3 shell).
 *
 * The environment runs it (own process group, timeout SIGTERM → grace → SIGKILL, rolling output
 * window, spill file); this tool picks the timeout, streams the tail to `onUpdate`, keeps the last
 * 2000 lines / 50 KB for the model and says exactly which lines it shows. A non-zero exit, a
 * timeout or an abort is reported as status "error" with the output kept in `text`, so the model
 * both notices the failure and sees why.
 */
import { randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import type { ErrorCode, ToolResponse } from "../lib/envelope.ts";
import type { ExecResult } from "../lib/env/types.ts";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, truncateTail } from "../lib/truncate.ts";
import { text, whole } from "./args.ts";
import type { Tool, ToolRunContext } from "./types.ts";
import { count, defaultResultSummary, firstLine } from "./metadata.ts";

export const BASH_DEFAULT_TIMEOUT_S = 120;
export const BASH_MAX_TIMEOUT_S = 600;
/** onUpdate is called at most this often, with the tail of the output so far. */
const UPDATE_INTERVAL_MS = 100;

const schema = v.strictObject({
  command: text("The command to run with bash -c in the project directory. Stdin is closed: interactive commands fail or time out."),
  timeout: v.optional(whole(`Timeout in seconds (1-${BASH_MAX_TIMEOUT_S}). Default ${BASH_DEFAULT_TIMEOUT_S}.`, 1, BASH_MAX_TIMEOUT_S)),
  description: v.optional(text("A few words saying what the command does, shown to the user.")),
});
export type BashArgs = v.InferOutput<typeof schema>;

export const bashTool: Tool<BashArgs> = {
  name: "bash",
  description:
    "Runs a bash command in the project directory and returns its combined stdout and stderr. " +
    `Output is cut to the last ${DEFAULT_MAX_LINES} lines or ${formatSize(DEFAULT_MAX_BYTES)}; the full output is then saved to a file whose path is given. ` +
    `Default timeout ${BASH_DEFAULT_TIMEOUT_S} s (max ${BASH_MAX_TIMEOUT_S} s); the whole process tree is killed on timeout. ` +
    "Prefer the read, grep and find tools for looking at files.",
  schema,
  truncation: "tail",
  kind: "shell",
  summarizeCall: (a) => String(a.command ?? ""),
  summarizeResult: summarizeCommand,
  async run(args, ctx) {
    const timeoutS = args.timeout ?? BASH_DEFAULT_TIMEOUT_S;
    const lines = new LineCounter();
    const updates = ctx.onUpdate ? new TailUpdates(ctx.onUpdate) : null;
    let result: ExecResult;
    try {
      result = await ctx.env.exec(args.command, {
        timeoutMs: timeoutS * 1000,
        signal: ctx.signal,
        onData(chunk) {
          lines.add(chunk);
          updates?.add(chunk);
        },
      });
    } catch (e) {
      return ctx.reply.fromError(e);
    }
    return respond(result, timeoutS, lines.total(), ctx);
  },
};

async function respond(result: ExecResult, timeoutS: number, totalLines: number, ctx: ToolRunContext): Promise<ToolResponse> {
  const cut = truncateTail(result.output, { maxLines: DEFAULT_MAX_LINES, maxBytes: DEFAULT_MAX_BYTES });
  const truncated = cut.truncated || result.outputTruncated;
  const fullOutputPath = truncated ? (result.spillPath ?? (await saveOutput(result.output, ctx))) : undefined;

  let body = truncated ? cut.content : result.output;
  if (body === "") body = "(no output)";
  if (truncated) {
    const first = totalLines - cut.outputLines + 1;
    const where = fullOutputPath ? ` Full output: ${fullOutputPath}` : "";
    body += cut.lastLinePartial
      ? `\n[Showing the last ${formatSize(cut.outputBytes)} of line ${totalLines}.${where}]`
      : `\n[Showing lines ${first}-${totalLines} of ${totalLines}.${where}]`;
  }

  const data: Record<string, unknown> = {
    exit_code: result.exitCode,
    timed_out: result.timedOut,
    aborted: result.aborted,
    duration_ms: result.durationMs,
    total_bytes: result.totalBytes,
    truncated,
  };
  if (fullOutputPath) data.full_output_path = fullOutputPath;
  const extras = { stats: { total_bytes: result.totalBytes, total_lines: totalLines } };

  const failure = failureOf(result, timeoutS);
  if (failure) return ctx.reply.fail(failure.code, failure.message, { ...extras, data, text: `${body}\n\n${failure.message}` });
  return truncated ? ctx.reply.partial(data, body, extras) : ctx.reply.success(data, body, extras);
}

function failureOf(result: ExecResult, timeoutS: number): { code: ErrorCode; message: string } | null {
  if (result.timedOut) {
    return {
      code: "TIMEOUT",
      message: `Command timed out after ${timeoutS} seconds. The output so far is shown above; retry with a larger timeout (at most ${BASH_MAX_TIMEOUT_S}) or run long jobs in the background.`,
    };
  }
  if (result.aborted) return { code: "EXECUTION_ERROR", message: "Command aborted" };
  if (result.exitCode === null) return { code: "EXECUTION_ERROR", message: `Command was killed by signal ${result.signal ?? "unknown"}` };
  if (result.exitCode !== 0) return { code: "EXECUTION_ERROR", message: `Command exited with code ${result.exitCode}` };
  return null;
}

/** Output cut by lines but under the spill threshold has no file yet: keep it for the model. */
async function saveOutput(output: string, ctx: ToolRunContext): Promise<string | undefined> {
  const path = join(tmpdir(), `gong-bash-${randomUUID()}.log`);
  try {
    await ctx.env.writeFile(path, output);
    return path;
  } catch {
    return undefined;
  }
}

/** Counts lines of streamed output exactly: every "\n", plus a final line without one. */
class LineCounter {
  private newlines = 0;
  private endsOpen = false;

  add(chunk: string): void {
    if (chunk === "") return;
    for (let i = chunk.indexOf("\n"); i !== -1; i = chunk.indexOf("\n", i + 1)) this.newlines++;
    this.endsOpen = !chunk.endsWith("\n");
  }

  total(): number {
    return this.newlines + (this.endsOpen ? 1 : 0);
  }
}

/** Sends the tail of the output so far to onUpdate, at most every UPDATE_INTERVAL_MS. */
class TailUpdates {
  private tail = "";
  private lastSent = 0;

  constructor(private readonly send: (text: string) => void) {}

  add(chunk: string): void {
    this.tail += chunk;
    if (this.tail.length > 2 * DEFAULT_MAX_BYTES) this.tail = this.tail.slice(-DEFAULT_MAX_BYTES);
    const now = performance.now();
    if (now - this.lastSent < UPDATE_INTERVAL_MS) return;
    this.lastSent = now;
    this.send(truncateTail(this.tail, { maxLines: DEFAULT_MAX_LINES, maxBytes: DEFAULT_MAX_BYTES }).content);
  }
}

/** "exit 0 · 12 lines"; a failed command shows its last line of output, which usually says why. */
export function summarizeCommand(r: ToolResponse): string {
  const code = r.data.exit_code;
  if (typeof code !== "number") return defaultResultSummary(r);
  const sentence = r.error?.message;
  const output = sentence && r.text.endsWith(sentence) ? r.text.slice(0, -sentence.length) : r.text;
  if (code !== 0) {
    const last = firstLine(output.trimEnd().split("\n").pop());
    return `exit ${code}${last ? ` · ${last}` : ""}`;
  }
  if (r.status === "error") return defaultResultSummary(r);
  const body = output.endsWith("\n") ? output.slice(0, -1) : output;
  return `exit 0 · ${count(body === "" ? 0 : body.split("\n").length, "line")}`;
}
