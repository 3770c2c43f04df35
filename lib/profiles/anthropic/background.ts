/**
 * How Claude Code's TaskOutput and TaskStop answer about a background command: its new output and
 * its state. The process table (tools/processes.ts) does the work; this only puts it in words.
 */
import type { ToolResponse } from "../../envelope.ts";
import type { BackgroundProcess, ProcessTable } from "../../../tools/processes.ts";
import type { ToolRunContext } from "../../../tools/types.ts";

/**
 * One running or finished process, with the output written since it was last read: all of it,
 * taken over from the process table into this call's capture (one spill file, memory bounded),
 * for the framework to cut once. The status line is a header the cut keeps whole.
 */
export function describeProcess(
  table: ProcessTable,
  process: BackgroundProcess,
  ctx: ToolRunContext,
  options: { idLabel: string },
): ToolResponse {
  // Same tick as finish(): output written from here on waits for the next read.
  table.take(process.id, ctx.output);
  const output = ctx.output.finish();
  const result = process.result;
  const state = result
    ? result.exitCode !== null
      ? `exited with code ${result.exitCode}`
      : result.aborted
        ? "was stopped"
        : `was killed by ${result.signal ?? "a signal"}`
    : "is still running";
  const header = `Process ${options.idLabel} ${process.id} ${state}.\n`;
  const data: Record<string, unknown> = { id: process.id, running: !result, exit_code: result?.exitCode ?? null };
  if (output.spill?.path) data.full_output_path = output.spill.path;
  if (result) table.forget(process.id);
  ctx.output.hint({ headerChars: header.length });
  return ctx.reply.success(data, header + (output.totalChars === 0 ? "(no new output)" : output.text), {
    stats: { new_chars: output.totalChars, total_lines: output.newlines + (output.endsOpen ? 1 : 0) },
  });
}
