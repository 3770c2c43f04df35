/**
 * How child agents show in the terminal: one indented line when a child starts, one per tool call
 * it makes (its current tool), and one with its summary when it ends. Everything else a child
 * emits (its streamed text, thinking, turns) stays off the parent's screen.
 */
import type { SessionEvent } from "../agent/index.ts";
import { firstLine } from "../output/cut.ts";
import { callLabel, resultLine, type Style } from "./render.ts";

/** The line for a subagent event (a forwarded child event or subagent_start/end), or undefined to show nothing. */
export function subagentLine(event: SessionEvent, style: Style): string | undefined {
  const tag = (id: string) => style.dim(`↳ agent ${id}`);
  if (event.kind === "subagent_start")
    return `  ${tag(event.data.agent_id)} ${style.cyan("started")} ${event.data.name}\n`;
  if (event.kind === "subagent_end") {
    const d = event.data;
    const status = d.status === "failed" ? style.red("failed") : style.green(d.status);
    return `  ${tag(d.agent_id)} ${status} ${style.dim(`(${d.turns} turns)`)} ${firstLine(d.status === "failed" ? (d.error ?? "") : d.output, 100)}\n`;
  }
  if (event.agent_id === undefined) return undefined;
  if (event.kind === "tool_call_start") return `    ${tag(event.agent_id)} ${callLabel(event.data)}\n`;
  if (event.kind === "tool_call_end" && (event.data.is_error || event.data.output.status === "error")) {
    return `    ${tag(event.agent_id)} ${style.red(resultLine(event.data) || "failed")}\n`;
  }
  return undefined;
}
