/**
 * Print mode (`gong -p`): one input run to completion. `text` prints the final answer, `json` one
 * result object, `stream-json` every session event as a JSON line as it happens, then the result.
 * With --verbose, tool calls are shown on stderr as they run, and a failed model call's stack.
 */
import type { Session, SessionEvent, SubmitResult } from "../agent/index.ts";
import type { OutputFormat } from "./args.ts";
import { describeFailure, exitCodeOf, EXIT, type Io } from "./session-io.ts";
import { formatWait } from "../llm/retry.ts";
import { eventJson } from "./event-json.ts";
import { callLabel, indent, makeStyle, planChecklist, resultLine, useColor } from "./render.ts";
import { subagentLine } from "./subagent-lines.ts";

export interface PrintOptions {
  prompt: string;
  format: OutputFormat;
  verbose: boolean;
  /** Aborted when gong is told to end (Ctrl-C, SIGTERM, SIGHUP; see termination.ts): the input stops. */
  terminated?: AbortSignal;
}

export async function runPrint(session: Session, options: PrintOptions, io: Io): Promise<number> {
  const started = Date.now();
  // A reader that stops early (`gong -p … | head -1`) closes the pipe: nobody reads on, so stop the work.
  let readerGone = false;
  const onStdoutError = (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE" || readerGone) return;
    readerGone = true;
    void session.abort();
  };
  io.stdout.on("error", onStdoutError);
  const write = (text: string) => {
    if (!readerGone) io.stdout.write(text);
  };
  const writeLine = (value: unknown) => write(`${JSON.stringify(value)}\n`);
  const style = makeStyle(useColor(io.stderr, io.env));
  // A session file that cannot be written is said once on stderr, whatever the format.
  let notSaved = false;
  const unsubscribe = session.subscribe((event) => {
    if (options.format === "stream-json") writeLine(eventJson(event));
    if (event.kind === "warning" && event.data.kind === "session_file" && !notSaved) {
      notSaved = true;
      if (!options.verbose) io.stderr.write(style.yellow(`gong: warning: ${String(event.data.message)}\n`));
    }
    // A wait the server asked for (rate limits) is said, so a pause is never silent.
    if (event.kind === "retry" && !options.verbose) {
      const error = event.data.error as { message?: string; retryAfterMs?: number } | undefined;
      if (error?.retryAfterMs !== undefined)
        io.stderr.write(
          style.yellow(
            `gong: ${error.message}; retrying in ${formatWait(Number(event.data.delay_ms))} (attempt ${String(event.data.attempt)})\n`,
          ),
        );
    }
    // With --verbose a failed model call shows where it failed; the sentence follows at the end.
    if (event.kind === "error" && options.verbose && event.data.stack) io.stderr.write(`${event.data.stack}\n`);
    // A failing MCP server is told once, in one line, with or without --verbose.
    if (event.kind === "mcp_server" && event.data.state === "failed")
      io.stderr.write(style.yellow(`gong: warning: ${event.data.message}\n`));
    else if (options.verbose) reportProgress(event, io, style);
  });

  let interrupted = false;
  const onTerminated = () => {
    interrupted = true;
    void session.abort();
  };
  options.terminated?.addEventListener("abort", onTerminated, { once: true });

  let result: SubmitResult;
  try {
    result = await session.submit(options.prompt);
  } finally {
    options.terminated?.removeEventListener("abort", onTerminated);
    unsubscribe();
  }
  if ((interrupted || readerGone) && result.stopReason !== "aborted") result = { ...result, stopReason: "aborted" };

  const code = exitCodeOf(result);
  const failure = describeFailure(result);
  if (options.format === "text") {
    if (result.text) write(result.text.endsWith("\n") ? result.text : `${result.text}\n`);
  } else {
    writeLine({
      kind: "result",
      session_id: session.id,
      model: session.model,
      profile: session.profile,
      answer: result.text,
      stop_reason: result.stopReason,
      is_error: code !== EXIT.ok,
      error: code !== EXIT.ok ? failure : undefined,
      turns: result.turns,
      usage: result.usage,
      cost_usd: result.usage.cost,
      duration_ms: Date.now() - started,
      // Only a file that holds the whole session is named; otherwise the result says it was not saved.
      session_file: notSaved ? undefined : session.sessionFile,
      session_saved: !notSaved && session.sessionFile !== undefined,
    });
  }
  io.stdout.off("error", onStdoutError);
  if (failure && code !== EXIT.ok && !readerGone) io.stderr.write(`gong: ${failure}\n`);
  return code;
}

function reportProgress(event: SessionEvent, io: Io, style: ReturnType<typeof makeStyle>): void {
  const child = subagentLine(event, style);
  if (child !== undefined || event.agent_id !== undefined) {
    if (child) io.stderr.write(child);
    return;
  }
  if (event.kind === "tool_call_start") io.stderr.write(`${style.cyan("●")} ${callLabel(event.data)}\n`);
  else if (event.kind === "tool_call_end") io.stderr.write(`  ${style.dim("⎿")} ${resultLine(event.data)}\n`);
  else if (event.kind === "plan_update") io.stderr.write(`${indent(planChecklist(event.data, style))}\n`);
  else if (event.kind === "retry")
    io.stderr.write(style.yellow(`retrying (attempt ${event.data.attempt}): ${event.data.error.message}\n`));
  else if (event.kind === "warning") io.stderr.write(style.yellow(`warning: ${event.data.message}\n`));
  else if (event.kind === "mcp_server" && event.data.state === "connected")
    io.stderr.write(style.dim(`MCP server '${event.data.server}' connected: ${event.data.tools.length} tools\n`));
}
