/**
 * A tool's self-description with the defaults filled in (see `Tool` in types.ts): every consumer
 * (the agent's events, compaction, the CLI) asks here instead of keeping a list of tool names.
 * A summarizer that throws or returns nothing falls back to the default: describing a call must
 * never break running it.
 */
import type { ToolResponse } from "../lib/envelope.ts";
import { firstLine, oneLine } from "../lib/output/cut.ts";
import { TOOL_KINDS, type Tool, type ToolKind } from "./types.ts";

export interface CallDescription {
  kind: ToolKind;
  /** One line, without the tool's name. */
  call_summary: string;
}

export function kindOf(tool: Tool | undefined): ToolKind {
  return tool?.kind && TOOL_KINDS.includes(tool.kind) ? tool.kind : "other";
}

export function describeCall(tool: Tool | undefined, args: unknown): CallDescription {
  const a = isRecord(args) ? args : {};
  const own = attempt(() => tool?.summarizeCall?.(a));
  return { kind: kindOf(tool), call_summary: oneLine(own || defaultCallSummary(a)) };
}

export function summarizeResult(tool: Tool | undefined, response: ToolResponse): string {
  const own = attempt(() => tool?.summarizeResult?.(response));
  return oneLine(own || defaultResultSummary(response), 120);
}

/** The files a finished call read or changed, as its envelope names them. */
export function filesOf(tool: Tool | undefined, response: ToolResponse): string[] {
  if (tool?.files) {
    try {
      const files = tool.files(response);
      return Array.isArray(files) ? files.filter((f): f is string => typeof f === "string" && f !== "") : [];
    } catch {
      return [];
    }
  }
  const path = response.context?.path_resolved;
  return response.status !== "error" && typeof path === "string" && path !== "" ? [path] : [];
}

/** `key=value` pairs of the scalar arguments; a tool that says nothing about itself still gets a readable line. */
export function defaultCallSummary(args: Record<string, unknown>): string {
  return Object.entries(args)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : String(v)}`)
    .join(" ");
}

export function defaultResultSummary(response: ToolResponse): string {
  if (response.status === "error") return response.error?.message ?? firstLine(response.text);
  return firstLine(response.text);
}

/** "1 match", "3 matches". */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function attempt(fn: () => unknown): string {
  try {
    const value = fn();
    return typeof value === "string" ? value : "";
  } catch {
    return "";
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
