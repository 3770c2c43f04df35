/**
 * `/context` — what fills the model's context window: the system prompt, the tool definitions
 * (MCP tools apart), and the conversation (inputs, answers, tool results), each by its share of
 * the window, with what is left — and `/usage`: this session's tokens and cost, per model, from
 * what its file recorded (a resumed session's earlier inputs included).
 */
import type { Session } from "../agent/index.ts";
import { estimateMessageTokens, textTokens } from "../agent/compaction/tokens.ts";
import { getModel } from "../llm/catalog.ts";
import type { Message, Usage } from "../llm/types.ts";
import { addUsage, zeroUsage } from "../llm/usage.ts";
import type { Entry } from "../store/format.ts";
import type { Style } from "./render.ts";

const BAR = 20;

const k = (n: number) =>
  n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);

/** The `/context` lines. */
export function contextReport(session: Session, style: Style): string {
  let window = 0;
  try {
    window = getModel(session.model).contextWindow;
  } catch {
    // An unknown model: tokens without shares.
  }
  const specs = session.toolSpecs();
  const specTokens = (list: typeof specs) => Math.ceil(list.reduce((n, t) => n + textTokens(JSON.stringify(t)), 0));
  const mcp = specs.filter((t) => t.name.startsWith("mcp__"));
  const own = specs.filter((t) => !t.name.startsWith("mcp__"));
  const byRole = (role: Message["role"]) => session.messages.filter((m) => m.role === role);
  const sum = (messages: readonly Message[]) => messages.reduce((n, m) => n + estimateMessageTokens(m), 0);
  const rows: [string, number][] = [
    ["system prompt", Math.ceil(textTokens(session.systemPrompt()))],
    [`tools (${own.length})`, specTokens(own)],
    ...(mcp.length ? ([[`MCP tools (${mcp.length})`, specTokens(mcp)]] as [string, number][]) : []),
    [`your inputs (${byRole("user").length})`, sum(byRole("user"))],
    [`answers (${byRole("assistant").length})`, sum(byRole("assistant"))],
    [`tool results (${byRole("tool").length})`, sum(byRole("tool"))],
  ];
  const used = rows.reduce((n, [, t]) => n + t, 0);
  const share = (t: number) => (window > 0 ? `${((t / window) * 100).toFixed(1).padStart(5)}%` : "");
  const bar = (t: number) => (window > 0 ? style.cyan("█".repeat(Math.round((t / window) * BAR))) : "");
  const lines = [
    `${session.model} · ${window > 0 ? `${k(window)} window · ` : ""}about ${k(used)} tokens in use${window > 0 ? ` (${Math.round((used / window) * 100)}%)` : ""}`,
    ...rows.map(([name, t]) => `  ${name.padEnd(22)} ${k(t).padStart(6)} ${share(t)} ${bar(t)}`),
  ];
  if (window > 0)
    lines.push(
      `  ${"free".padEnd(22)} ${k(Math.max(0, window - used)).padStart(6)} ${share(Math.max(0, window - used))}`,
    );
  const last = session.messages.findLast((m) => m.role === "assistant" && m.usage !== undefined);
  if (last?.role === "assistant" && last.usage) {
    const u = last.usage;
    lines.push(
      style.dim(
        `the last request carried ${k(u.input + u.cacheRead + u.cacheWrite)} tokens by the provider's count; the rows are estimates`,
      ),
    );
  } else lines.push(style.dim("estimates (about 4 characters a token); the provider counts once a request is sent"));
  return `${lines.join("\n")}\n`;
}

/** The `/usage` lines: tokens and cost per model over every answer the session's file holds. */
export function usageReport(entries: Iterable<Entry>, sessionId: string, style: Style): string {
  const byModel = new Map<string, { usage: Usage; calls: number }>();
  for (const entry of entries) {
    if (entry.type !== "message" || entry.message.role !== "assistant" || !entry.message.usage) continue;
    const model = entry.message.model ?? "unknown model";
    const row = byModel.get(model) ?? { usage: zeroUsage(), calls: 0 };
    byModel.set(model, { usage: addUsage(row.usage, entry.message.usage), calls: row.calls + 1 });
  }
  if (byModel.size === 0) return "no model calls in this session yet.\n";
  let total = zeroUsage();
  let calls = 0;
  const line = (name: string, u: Usage, n: number) =>
    `  ${name}\n    ${n} call${n === 1 ? "" : "s"} · input ${k(u.input)} · cache read ${k(u.cacheRead)} · cache write ${k(u.cacheWrite)} · output ${k(u.output)}${u.reasoning ? ` (reasoning ${k(u.reasoning)})` : ""} · ${style.bold(`$${u.cost.toFixed(4)}`)}`;
  const lines = [`session ${sessionId.slice(0, 8)}:`];
  for (const [model, row] of byModel) {
    lines.push(line(model, row.usage, row.calls));
    total = addUsage(total, row.usage);
    calls += row.calls;
  }
  if (byModel.size > 1) lines.push(line("all models", total, calls));
  return `${lines.join("\n")}\n`;
}
