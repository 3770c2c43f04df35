/**
 * How child agents show in the terminal: one indented line when a child starts, one per tool call
 * it makes (its current tool), and one with its summary when it ends. Everything else a child
 * emits (its streamed text, thinking, turns) stays off the parent's screen.
 */
import type { SessionEvent } from "../agent/index.ts";
import type { ToolResponse } from "../envelope.ts";
import { describeCall, describeResult, type Style } from "./render.ts";

/** The line for a subagent event (a forwarded child event or subagent_start/end), or undefined to show nothing. */
export function subagentLine(event: SessionEvent, style: Style): string | undefined {
  const d = event.data;
  const tag = (id: unknown) => style.dim(`↳ agent ${String(id)}`);
  if (event.kind === "subagent_start") return `  ${tag(d.agent_id)} ${style.cyan("started")} ${String(d.name ?? "")}\n`;
  if (event.kind === "subagent_end") {
    const summary = firstLine(String(d.status === "failed" ? (d.error ?? "") : (d.output ?? "")));
    const status = d.status === "failed" ? style.red("failed") : style.green(String(d.status));
    return `  ${tag(d.agent_id)} ${status} ${style.dim(`(${String(d.turns ?? 0)} turns)`)} ${summary}\n`;
  }
  if (event.agent_id === undefined) return undefined;
  if (event.kind === "tool_call_start") return `    ${tag(event.agent_id)} ${describeCall(String(d.tool_name), d.arguments as Record<string, unknown>)}\n`;
  if (event.kind === "tool_call_end" && (d.is_error === true || (d.output as ToolResponse | undefined)?.status === "error")) {
    return `    ${tag(event.agent_id)} ${style.red(describeResult(d.output as ToolResponse | undefined) || "failed")}\n`;
  }
  return undefined;
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}
