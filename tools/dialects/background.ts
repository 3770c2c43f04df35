/**
 * The answers the shell dialects give about background commands: start one, report its new output
 * and state. The process table (tools/processes.ts) does the work; these only put it in words.
 */
import type { ToolResponse } from "../../lib/envelope.ts";
import type { BackgroundProcess, ProcessTable } from "../processes.ts";
import type { ToolRunContext } from "../types.ts";

/** The table of the context, or a sentence saying background commands are unavailable. */
export function processTable(ctx: ToolRunContext): ProcessTable | ToolResponse {
  return ctx.processes ?? ctx.reply.fail("EXECUTION_ERROR", "Background commands are not available in this environment; run the command in the foreground.");
}

export function isResponse(value: unknown): value is ToolResponse {
  return typeof value === "object" && value !== null && "status" in value && "stats" in value;
}

/** One running or finished process, with the output written since it was last read. */
export function describeProcess(table: ProcessTable, process: BackgroundProcess, ctx: ToolRunContext, options: { idLabel: string; maxChars?: number }): ToolResponse {
  const fresh = table.takeNewOutput(process.id);
  const cut = options.maxChars !== undefined && fresh.text.length > options.maxChars;
  // The model asked for at most this much (codex's max_output_tokens): its end, the newest output.
  const body = cut ? fresh.text.slice(-options.maxChars!) : fresh.text;
  const result = process.result;
  const state = result ? (result.exitCode !== null ? `exited with code ${result.exitCode}` : result.aborted ? "was stopped" : `was killed by ${result.signal ?? "a signal"}`) : "is still running";
  const lines = [
    `Process ${options.idLabel} ${process.id} ${state}.`,
    fresh.missed > 0 ? `[${fresh.missed} earlier characters were dropped before they were read.]` : null,
    cut ? `[Showing the end of the new output (${options.maxChars} characters).]` : null,
    body === "" ? "(no new output)" : body.trimEnd(),
  ].filter((l): l is string => l !== null);
  const data: Record<string, unknown> = { id: process.id, running: !result, exit_code: result?.exitCode ?? null, output: fresh.text };
  if (result) table.forget(process.id);
  return ctx.reply.success(data, lines.join("\n"), { stats: { new_chars: fresh.text.length } });
}
