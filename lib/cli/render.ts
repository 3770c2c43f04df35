/**
 * Terminal rendering for the line-mode shell and text output: one line per tool call, a short
 * result, colored diffs for edits. Color is off when NO_COLOR is set or the stream is not a TTY.
 */
import type { ToolResponse } from "../envelope.ts";

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
  return { bold: wrap(1, 22), dim: wrap(2, 22), red: wrap(31, 39), green: wrap(32, 39), yellow: wrap(33, 39), cyan: wrap(36, 39) };
}

export function useColor(stream: { isTTY?: boolean }, env: Record<string, string | undefined> = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return true;
  return Boolean(stream.isTTY);
}

const oneLine = (s: string, max = 80) => {
  const flat = s.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** "bash  ls -la" — the most telling argument of a call, on one line. */
export function describeCall(name: string, args: Record<string, unknown> | undefined): string {
  const a = args ?? {};
  const main = a.command ?? a.pattern ?? a.path ?? a.file_path ?? a.patch ?? a.task ?? "";
  const extra = a.pattern !== undefined && a.path !== undefined ? ` in ${String(a.path)}` : "";
  return `${name}  ${oneLine(String(main))}${extra}`;
}

/** "3/10 · indexing" — how far a long call has got, from a tool_call_progress event. */
export function describeProgress(d: Record<string, unknown>): string {
  const done = typeof d.total === "number" ? `${String(d.progress)}/${d.total}` : String(d.progress);
  return typeof d.message === "string" && d.message ? `${done} · ${oneLine(d.message, 60)}` : done;
}

/** A short result: "exit 0 · 12 lines", "3 matches", the error sentence… */
export function describeResult(result: ToolResponse | undefined): string {
  if (!result) return "";
  const d = result.data as Record<string, unknown>;
  if (typeof d.exit_code === "number" && d.exit_code !== 0) {
    // A failed command: its last line of output usually says why.
    const last = commandOutput(result).trimEnd().split("\n").pop() ?? "";
    return `exit ${d.exit_code}${last ? ` · ${oneLine(last, 110)}` : ""}`;
  }
  if (result.status === "error") return oneLine(result.error?.message ?? result.text, 120);
  if (typeof d.exit_code === "number") return `exit 0 · ${countLines(result.text)} lines`;
  if (Array.isArray(d.matches)) return `${d.matches.length} matches`;
  if (Array.isArray(d.paths)) return `${d.paths.length} paths`;
  if (Array.isArray(d.entries)) return `${d.entries.length} entries`;
  if (typeof d.replacements === "number") return `${d.replacements} replacement${d.replacements === 1 ? "" : "s"}`;
  if (typeof d.bytes_written === "number") return `${d.bytes_written} bytes written`;
  if (typeof result.stats.lines_read === "number") return `${result.stats.lines_read} lines read`;
  return oneLine(result.text, 120);
}

/** A failed command's text without the error sentence the tool appended to it. */
function commandOutput(result: ToolResponse): string {
  const sentence = result.error?.message;
  return sentence && result.text.endsWith(sentence) ? result.text.slice(0, -sentence.length) : result.text;
}

function countLines(text: string): number {
  const body = text.endsWith("\n") ? text.slice(0, -1) : text;
  return body === "" ? 0 : body.split("\n").length;
}

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

export function formatUsage(usage: { input: number; output: number; cacheRead?: number; cost?: number } | undefined): string {
  if (!usage) return "";
  const k = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n));
  const cache = usage.cacheRead ? ` · cache ${k(usage.cacheRead)}` : "";
  const cost = usage.cost ? ` · $${usage.cost.toFixed(4)}` : "";
  return `↑ ${k(usage.input)} ↓ ${k(usage.output)}${cache}${cost}`;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** A one-line spinner on a TTY; prints nothing animated elsewhere. */
export class Spinner {
  private timer?: ReturnType<typeof setInterval>;
  private frame = 0;
  private label = "";
  constructor(
    private readonly out: { write(s: string): unknown; isTTY?: boolean },
    private readonly style: Style,
  ) {}

  /** Shows `label` with a spinner; when one already runs, only its label changes. */
  start(label: string): void {
    this.label = label;
    if (!this.out.isTTY || this.timer) return;
    this.draw();
    this.timer = setInterval(() => {
      this.frame = (this.frame + 1) % FRAMES.length;
      this.draw();
    }, 80);
  }

  stop(): void {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
      this.out.write("\r\x1b[K");
    }
  }

  private draw(): void {
    this.out.write(`\r${this.style.cyan(FRAMES[this.frame])} ${this.label}\x1b[K`);
  }
}
