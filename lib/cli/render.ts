/**
 * Terminal rendering for the line-mode shell and text output: one line per tool call, a short
 * result, colored diffs for edits. Color is off when NO_COLOR is set or the stream is not a TTY.
 */
import type { Plan } from "../../tools/plan.ts";
import { oneLine } from "../output/cut.ts";

export interface Style {
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
}

const wrap = (open: number, close: number) => (s: string) => `\x1b[${open}m${s}\x1b[${close}m`;
const plain = (s: string) => s;

export function makeStyle(color: boolean): Style {
  if (!color) return { bold: plain, dim: plain, red: plain, green: plain, yellow: plain, cyan: plain };
  return {
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  };
}

export function useColor(stream: { isTTY?: boolean }, env: Record<string, string | undefined> = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return true;
  return Boolean(stream.isTTY);
}

/**
 * "bash  npm test": a tool event's name and the one-line summary the tool gave of the call
 * (`call_summary` on tool_call_update/start/end). The tool describes itself, so nothing here
 * depends on which tool it is.
 */
export function callLabel(data: { tool_name: string; call_summary?: string }): string {
  return data.call_summary ? `${data.tool_name}  ${data.call_summary}` : data.tool_name;
}

/** The one-line result the tool gave (`result_summary` on tool_call_end): "exit 0 · 12 lines", "3 matches", the error sentence… */
export function resultLine(data: { result_summary?: string }): string {
  return data.result_summary ?? "";
}

/** How each status of a plan item is shown: its mark and its style. */
const PLAN_LOOK: Record<string, [string, keyof Style | null]> = {
  completed: ["✔", "green"],
  in_progress: ["◼", "bold"],
  pending: ["☐", null],
  cancelled: ["✘", "dim"],
  blocked: ["!", "yellow"],
};

/** "3/10 · indexing" — how far a long call has got, from a tool_call_progress event. */
export function describeProgress(d: { progress: number; total?: number; message?: string }): string {
  const done = typeof d.total === "number" ? `${d.progress}/${d.total}` : String(d.progress);
  return d.message ? `${done} · ${oneLine(d.message, 60)}` : done;
}

/**
 * The plan of a `plan_update` event as a checklist, one item a line: ✔ done, ◼ in progress (in its
 * "-ing" form when the model gave one), ☐ pending, ✘ cancelled, ! blocked.
 */
export function planChecklist(plan: Plan, style: Style): string {
  const lines: string[] = [];
  if (plan.explanation) lines.push(style.dim(plan.explanation));
  if (plan.items.length === 0) lines.push(style.dim("(plan cleared)"));
  for (const item of plan.items) {
    const [mark, look] = PLAN_LOOK[item.status] ?? PLAN_LOOK.pending;
    const active = item.status === "in_progress" && item.active_form;
    const line = `${mark} ${active || item.text}`;
    lines.push(look ? style[look](line) : line);
  }
  return lines.join("\n");
}

/** Indents every line by four spaces (results and checklists under their tool line). */
export const indent = (text: string) =>
  text
    .split("\n")
    .map((l) => `    ${l}`)
    .join("\n");

/** Colors a unified diff: additions green, removals red, hunk headers cyan. */
export function colorDiff(diff: string, style: Style, maxLines = 40): string {
  const lines = diff.split("\n").filter((l) => !l.startsWith("===") && !l.startsWith("Index:"));
  const shown = lines.slice(0, maxLines).map((l) => {
    if (l.startsWith("+++") || l.startsWith("---")) return style.dim(l);
    if (l.startsWith("+")) return style.green(l);
    if (l.startsWith("-")) return style.red(l);
    if (l.startsWith("@@")) return style.cyan(l);
    return style.dim(l);
  });
  if (lines.length > maxLines) shown.push(style.dim(`… ${lines.length - maxLines} more diff lines`));
  return shown.join("\n");
}

/** "+3 −1": the lines a unified diff adds and removes. */
export function diffSummary(diff: string): string {
  const lines = diff.split("\n");
  const added = lines.filter((l) => l.startsWith("+") && !l.startsWith("+++")).length;
  const removed = lines.filter((l) => l.startsWith("-") && !l.startsWith("---")).length;
  return `+${added} −${removed}`;
}

/**
 * A unified diff as people read it: each line under its line number (the new file's, the old
 * one's for a removal), additions green, removals red, no file or hunk headers; "⋮" between hunks.
 */
export function numberedDiff(diff: string, style: Style, maxLines = 40): string {
  const rows: Array<[number | null, string, string]> = [];
  let oldNo = 0;
  let newNo = 0;
  for (const line of diff.split("\n")) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      if (rows.length) rows.push([null, " ", "⋮"]);
      oldNo = Number(hunk[1]);
      newNo = Number(hunk[2]);
    } else if (
      line.startsWith("+++") ||
      line.startsWith("---") ||
      line.startsWith("===") ||
      line.startsWith("Index:") ||
      line.startsWith("\\")
    )
      continue;
    else if (line.startsWith("+")) rows.push([newNo++, "+", line.slice(1)]);
    else if (line.startsWith("-")) rows.push([oldNo++, "-", line.slice(1)]);
    else if (line.startsWith(" ")) rows.push([(oldNo++, newNo++), " ", line.slice(1)]);
  }
  const width = String(Math.max(1, ...rows.map(([n]) => n ?? 0))).length;
  const shown = rows.slice(0, maxLines).map(([n, mark, text]) => {
    const line = `${n === null ? " ".repeat(width) : String(n).padStart(width)} ${mark}${text}`;
    return mark === "+" ? style.green(line) : mark === "-" ? style.red(line) : style.dim(line);
  });
  if (rows.length > maxLines) shown.push(style.dim(`… ${rows.length - maxLines} more diff lines`));
  return shown.join("\n");
}

export function formatUsage(
  usage: { input: number; output: number; cacheRead?: number; cost?: number } | undefined,
): string {
  if (!usage) return "";
  const k = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n));
  const cache = usage.cacheRead ? ` · cache ${k(usage.cacheRead)}` : "";
  const cost = usage.cost ? ` · $${usage.cost.toFixed(4)}` : "";
  return `↑ ${k(usage.input)} ↓ ${k(usage.output)}${cache}${cost}`;
}
