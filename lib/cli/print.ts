/**
 * Print mode (`gong -p`): one input run to completion. `text` prints the final answer, `json` one
 * result object, `stream-json` every session event as a JSON line as it happens, then the result.
 * With --verbose, tool calls are shown on stderr as they run, and a failed model call's stack.
 */
import type { Session, SessionEvent } from "../agent/index.ts";
import type { AnswerSchema } from "../core/answer-schema.ts";
import { resultRecord, runHeadless } from "../core/outcome.ts";
import type { OutputFormat } from "./args.ts";
import type { Io } from "./session-io.ts";
import { callLabel, indent, makeStyle, planChecklist, resultLine, useColor } from "./render.ts";
import { subagentLine } from "./subagent-lines.ts";

export interface PrintOptions {
  prompt: string;
  format: OutputFormat;
  verbose: boolean;
  /** Aborted when gong is told to end (Ctrl-C, SIGTERM, SIGHUP; see termination.ts): the input stops. */
  terminated?: AbortSignal;
  /** The schema the final answer must match (--json-schema). */
  schema?: AnswerSchema;
  /** Images sent with the prompt. */
  images?: { mimeType: string; data: string }[];
}

export async function runPrint(session: Session, options: PrintOptions, io: Io): Promise<number> {
  // A reader that stops early (`gong -p … | head -1`) closes the pipe: nobody reads on, so stop the work.
  const readerGone = new AbortController();
  const onStdoutError = (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") readerGone.abort();
  };
  io.stdout.on("error", onStdoutError);
  const write = (text: string) => {
    if (!readerGone.signal.aborted) io.stdout.write(text);
  };
  const writeLine = (value: unknown) => write(`${JSON.stringify(value)}\n`);
  const style = makeStyle(useColor(io.stderr, io.env));
  // Events as JSON lines only for stream-json: the mapping loads then.
  const eventJson = options.format === "stream-json" ? (await import("./event-json.ts")).eventJson : undefined;
  const unsubscribe = session.subscribe((event) => {
    if (eventJson) writeLine(eventJson(event));
    // With --verbose a failed model call shows where it failed; the sentence follows at the end.
    if (event.kind === "error" && options.verbose && event.data.stack) io.stderr.write(`${event.data.stack}\n`);
    // A failing MCP server is the headless run's warning, verbose or not.
    const mcpFailed = event.kind === "mcp_server" && event.data.state === "failed";
    if (options.verbose && !mcpFailed) reportProgress(event, io, style);
  });
  let run: Awaited<ReturnType<typeof runHeadless>>;
  try {
    run = await runHeadless(session, options.prompt, {
      stops: [options.terminated, readerGone.signal],
      verbose: options.verbose,
      warn: (line) => io.stderr.write(style.yellow(`${line}\n`)),
      schema: options.schema,
      images: options.images,
    });
  } finally {
    unsubscribe();
  }
  if (options.format === "text") {
    const text = run.result.text;
    if (text) write(text.endsWith("\n") ? text : `${text}\n`);
  } else writeLine(resultRecord(session, run));
  io.stdout.off("error", onStdoutError);
  if (run.failure && !readerGone.signal.aborted) io.stderr.write(`gong: ${run.failure}\n`);
  return run.code;
}

export function reportProgress(event: SessionEvent, io: Io, style: ReturnType<typeof makeStyle>): void {
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
