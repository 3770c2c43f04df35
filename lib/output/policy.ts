/**
 * The framework truncator (docs/conformance.md: 001, 004 §5.1–5.3): the only place tool output is
 * cut for the model. Every tool returns its complete output; `observe()` then produces two views of
 * it:
 *
 * - for the model: characters cut first, then lines, with the tool's limits and direction, and
 *   one visible marker saying exactly what was removed and where the full output is
 *   (docs/conformance.md: 001 §5, §7);
 * - for `tool_call_end`: the complete envelope, or — past the event limit — its first and last
 *   parts with `full_output_path`.
 *
 * The full output goes to one file per call under `tool-output/` (spill-store.ts), written
 * only when some view is cut. Limits resolve, most specific first: perTool[tool] → the tool's
 * declared direction → createObserver options → TOOL_OUTPUT_* environment variables → defaults
 * (51200 characters, 2000 lines, head; docs/conformance.md: 001 §3).
 */
import { resolve } from "node:path";
import { relativeToRoot } from "../paths.ts";
import process from "node:process";
import type { ToolResponse } from "../envelope.ts";
import { SpillStore } from "./spill-store.ts";
import { type CutHints, DEFAULT_EVENT_LIMIT_CHARS, OutputCapture, type SpillInfo } from "./capture.ts";
import { cutOutput, type CutResult, type HeldText, type TruncateMode } from "./cut.ts";

export const DEFAULT_MAX_CHARS = 51_200;
export const DEFAULT_MAX_LINES = 2000;
export const DEFAULT_SPILL_CAP_BYTES = 256 * 1024 * 1024;
export const DEFAULT_SPILL_BUDGET_BYTES = 2 * 1024 * 1024 * 1024;
export const DEFAULT_RETENTION_DAYS = 7;

/** Framework limits for one tool: characters and lines the model sees, and which end is kept. */
export interface ToolLimits {
  maxChars?: number;
  /** No line cut when absent and no default applies; 0 is not allowed. */
  maxLines?: number;
  direction?: TruncateMode;
}

export interface ObserverOptions extends ToolLimits {
  /** Project root: spills go to `<root>/<dir>` and full_output_path is relative to it. */
  root: string;
  /** Spill directory, relative to root (or absolute). Default "tool-output". */
  dir?: string;
  /** Days a spill file is kept; 0 keeps them forever. Default 7. */
  retentionDays?: number;
  perTool?: Record<string, ToolLimits>;
  /** Characters of output tool_call_end carries before it keeps only the first and last parts. Default 10,000,000. */
  eventLimitChars?: number;
  /** Bytes stored per spill file; past it bytes are counted, not stored. Default 256 MB. */
  spillCapBytes?: number;
  /** Total bytes the spill directory may hold; the oldest files are deleted first. Default 2 GB; 0 = no budget. */
  spillBudgetBytes?: number;
  /** Where TOOL_OUTPUT_* variables are read; defaults to process.env. */
  env?: Record<string, string | undefined>;
  now?: () => Date;
}

export interface ObserveOptions {
  /** The tool's own direction (Tool.truncation), used when no limit names one. */
  direction?: TruncateMode;
  /** The call's capture (from `capture()`): the output the tool streamed there, and its cut hints. */
  capture?: OutputCapture;
  /** Limits of what the tool does (a subagent's answer), for a tool the per-tool table does not name. */
  kindLimits?: ToolLimits;
  /** The call's limits as its caller resolved them (a session's Toolset entry): they replace the per-tool table's. */
  limits?: ToolLimits;
  /**
   * The active subagent tool, when there is one: the hint points at it
   * (docs/conformance.md: 001 §7).
   */
  subagentToolName?: string;
  /** How to page or search the spilled file, in the profile's own words (default: CORE_PAGING_HINT). */
  pagingHint?: string;
  /** Named in the hint for a line longer than the limit. */
  shellToolName?: string;
}

export interface TruncationInfo {
  direction: TruncateMode;
  max_chars: number;
  max_lines: number | null;
  original_chars: number;
  original_lines: number;
  kept_chars: number;
  kept_lines: number;
  removed_chars: number;
  removed_lines: number;
  /** Relative to the root (POSIX); null when the full output could not be saved. */
  full_output_path: string | null;
  /** The file holds only its first stored_bytes: the spill cap was reached. */
  spill_capped: boolean;
}

export interface Observed {
  /** What the model reads: the response itself, or a "partial" envelope (an "error" stays "error") with the marked preview. */
  forModel: ToolResponse;
  /** What tool_call_end carries: the complete response, or its first and last parts past the event limit. */
  forEvent: ToolResponse;
  /** The model's view was cut. */
  truncated: boolean;
  /** The event's view holds the whole output. */
  complete: boolean;
  fullOutputPath: string | null;
}

export interface Observer {
  /** A capture for one call's streamed output (memory bounded by the event limit, one spill file). */
  capture(toolName: string): OutputCapture;
  /** Cuts `response` for the model and the event; never throws. */
  observe(toolName: string, response: ToolResponse, opts?: ObserveOptions): Promise<Observed>;
  /** Deletes expired spill files and the oldest ones past the budget; returns how many. */
  sweep(): Promise<number>;
  /** Resolves once the sweeps that spills started in the background are done. */
  settled(): Promise<unknown>;
}

const DIRECTIONS: readonly TruncateMode[] = ["head", "tail", "head_tail"];

export function createObserver(options: ObserverOptions): Observer {
  const env = options.env ?? process.env;
  const now = options.now ?? (() => new Date());
  const root = resolve(options.root);
  const store = new SpillStore({
    dir: resolve(root, options.dir ?? nonEmpty(env.TOOL_OUTPUT_DIR) ?? "tool-output"),
    retentionDays:
      options.retentionDays ?? envNumber(env.TOOL_OUTPUT_RETENTION_DAYS, { min: 0 }) ?? DEFAULT_RETENTION_DAYS,
    capBytes: options.spillCapBytes ?? DEFAULT_SPILL_CAP_BYTES,
    budgetBytes: options.spillBudgetBytes ?? DEFAULT_SPILL_BUDGET_BYTES,
    now,
  });
  const eventLimitChars = options.eventLimitChars ?? DEFAULT_EVENT_LIMIT_CHARS;
  // TOOL_OUTPUT_MAX_BYTES (docs/conformance.md: 001 §9) is read as characters, the unit the cut now counts.
  const envChars =
    envNumber(env.TOOL_OUTPUT_MAX_CHARS, { min: 1, integer: true }) ??
    envNumber(env.TOOL_OUTPUT_MAX_BYTES, { min: 1, integer: true });
  const global = {
    maxChars: options.maxChars ?? envChars ?? DEFAULT_MAX_CHARS,
    maxLines: options.maxLines ?? envNumber(env.TOOL_OUTPUT_MAX_LINES, { min: 1, integer: true }) ?? DEFAULT_MAX_LINES,
    direction: options.direction ?? envDirection(env.TOOL_OUTPUT_TRUNCATE_DIRECTION),
  };
  const show = (absolute: string) => relativeToRoot(root, absolute);

  /** The limits that apply to a tool; `byKind` stands in when the per-tool table does not name it. */
  function limits(toolName: string, direction?: TruncateMode, byKind?: ToolLimits) {
    return resolved(options.perTool?.[toolName] ?? byKind ?? {}, direction);
  }

  function resolved(own: ToolLimits, direction?: TruncateMode) {
    return {
      maxChars: own.maxChars ?? global.maxChars,
      maxLines: own.maxLines ?? global.maxLines,
      direction: own.direction ?? direction ?? global.direction ?? "head",
    };
  }

  function capture(toolName: string): OutputCapture {
    return new OutputCapture({ eventLimitChars, openSpill: () => store.open(toolName), displayPath: show });
  }

  async function observe(toolName: string, response: ToolResponse, opts: ObserveOptions = {}): Promise<Observed> {
    const unchanged: Observed = {
      forModel: response,
      forEvent: response,
      truncated: false,
      complete: true,
      fullOutputPath: null,
    };
    try {
      if (typeof response.text !== "string" || isFrameworkTruncated(response)) {
        opts.capture?.dropSpill();
        return unchanged;
      }
      const streamed = opts.capture?.used ? opts.capture : null;
      const captured = streamed?.finish() ?? null;
      const hints = opts.capture?.hints ?? {};
      // A header the tool put before the output (exec_command's status lines) stays whole and out of the counts.
      const header = response.text.slice(0, headerLength(response, hints));
      const body = response.text.slice(header.length);
      const held = heldText(body, captured?.gapLine ?? null, captured?.omitted ?? null);
      const tooBigForEvent = !held.omitted && body.length > eventLimitChars;
      const callLimit = budgetChars(hints);
      // A call naming its own budget (exec_command's max_output_tokens) is cut to it from the middle,
      // never past the tool's limit; the budget is in characters only, so no line cut.
      const toolLimit = opts.limits
        ? resolved(opts.limits, opts.direction)
        : limits(toolName, opts.direction, opts.kindLimits);
      const limit =
        callLimit === null
          ? toolLimit
          : { ...toolLimit, maxChars: Math.min(toolLimit.maxChars, callLimit), direction: "head_tail" as const };
      // The character cut always runs; a tool paging itself waives only the line cut
      // (docs/conformance.md: 004 §5.3, 001 §6).
      const skipLines = response.context?.truncation_skip === true || callLimit !== null;
      const cut = cutOutput(held, {
        maxChars: limit.maxChars,
        maxLines: skipLines ? undefined : limit.maxLines,
        direction: limit.direction,
      });
      if (!cut.truncated && !held.omitted && !tooBigForEvent) {
        opts.capture?.dropSpill();
        return unchanged;
      }

      // The call's one spill file: the capture's when the tool streamed, else the response text
      // written to a capture now, which also gives the event its first and last parts.
      const full = streamed ?? capture(toolName);
      if (!streamed) full.write(body);
      const kept = full.finish();
      const spill = full.keepSpill();
      const forEvent = tooBigForEvent ? { ...response, text: header + kept.text } : response;
      const complete = !held.omitted && !tooBigForEvent;
      if (!cut.truncated)
        return { forModel: response, forEvent, truncated: false, complete, fullOutputPath: spill.path };

      const info: TruncationInfo = {
        direction: limit.direction,
        max_chars: limit.maxChars,
        max_lines: skipLines ? null : limit.maxLines,
        original_chars: cut.totalChars,
        original_lines: cut.totalLines,
        kept_chars: cut.keptChars,
        kept_lines: cut.totalLines - cut.removedLines,
        removed_chars: cut.removedChars,
        removed_lines: cut.removedLines,
        full_output_path: spill.path,
        spill_capped: spill.capped,
      };
      const marker = `[${describeCut(cut, limit.maxChars, limit.direction)} ${whereFull(spill, cut, limit.maxChars, opts)}]`;
      const parts = [cut.head?.text, marker, cut.tail?.text].filter((p): p is string => p !== undefined && p !== "");
      const forModel: ToolResponse = {
        status: response.status === "error" ? "error" : "partial",
        data: {
          truncated: true,
          truncation: info,
          preview: [cut.head?.text, cut.tail?.text].filter((p) => p).join("\n"),
        },
        text: header + parts.join("\n"),
        stats: { ...response.stats },
        context: { ...response.context },
      };
      if (response.status === "error" && response.error) forModel.error = { ...response.error };
      return { forModel, forEvent, truncated: true, complete, fullOutputPath: spill.path };
    } catch {
      // A truncator failure must not lose the tool's answer.
      return unchanged;
    }
  }

  return { capture, observe, sweep: () => store.sweep().catch(() => 0), settled: () => store.settled() };
}

/** Already the envelope this module builds: cutting it again would only nest markers. */
function isFrameworkTruncated(response: ToolResponse): boolean {
  const data = response.data as Record<string, unknown> | undefined;
  return (
    data?.truncated === true &&
    typeof data.truncation === "object" &&
    data.truncation !== null &&
    "full_output_path" in data.truncation
  );
}

/** The tool's header length, when it is a whole number of characters within the text; else 0. */
function headerLength(response: ToolResponse, hints: CutHints): number {
  const n = hints.headerChars;
  return typeof n === "number" && Number.isInteger(n) && n > 0 && n <= response.text.length ? n : 0;
}

/** The call's own budget, when it is a positive whole number; else null. */
function budgetChars(hints: CutHints): number | null {
  const n = hints.budgetChars;
  return typeof n === "number" && Number.isInteger(n) && n > 0 ? n : null;
}

/** The response text as the cut sees it: around the capture's gap line when the capture left out a middle. */
function heldText(text: string, gapLine: string | null, omitted: HeldText["omitted"] | null): HeldText {
  const at = gapLine ? text.indexOf(gapLine) : -1;
  if (at === -1 || !omitted) return { head: text };
  return { head: text.slice(0, at), omitted, tail: text.slice(at + gapLine!.length) };
}

const FROM = { head: "from the end", tail: "from the start", head_tail: "from the middle" } as const;

/**
 * "WARNING: Tool output was truncated: 588639 of 588895 characters were removed from the start.
 * Lines 1-99744 of 100000 are not shown; lines 99745-100000 are." — exact counts, never rounded.
 */
function describeCut(cut: CutResult, maxChars: number, direction: TruncateMode): string {
  const sentences = [
    `WARNING: Tool output was truncated: ${cut.removedChars} of ${cut.totalChars} characters were removed ${FROM[direction]}.`,
  ];
  const total = cut.totalLines;
  const headLines = cut.head?.lines ?? 0;
  const tailFirst = cut.tail && cut.tail.lines > 0 ? cut.tail.firstLine : total + 1;
  if (cut.removedLines > 0) {
    const from = headLines + 1;
    const to = tailFirst - 1;
    sentences.push(`${range("Line", from, to)} of ${total} ${from === to ? "is" : "are"} not shown.`);
  }
  const shared = cut.head?.partialLine && cut.tail?.partialLine && cut.tail.firstLine === headLines;
  const shown: string[] = [];
  if (headLines > 0) shown.push(range("line", 1, headLines));
  if (cut.tail && cut.tail.lines > 0 && !shared) shown.push(range("line", tailFirst, total));
  if (cut.tail && shared && cut.tail.lines > 1) shown.push(range("line", tailFirst + 1, total));
  if (shown.length > 0) sentences.push(`Shown: ${shown.join(" and ")}.`);
  const first = cut.head?.partialLine ? cut.head.text.length - cut.head.text.lastIndexOf("\n") - 1 : 0;
  const last = cut.tail?.partialLine ? firstLineLength(cut.tail.text) : 0;
  const tooLong = (line: number, part: string) =>
    `Line ${line} alone is longer than the ${maxChars}-character limit: only ${part} characters are shown.`;
  if (shared) sentences.push(tooLong(headLines, `its first ${first} and last ${last}`));
  else {
    if (first > 0) sentences.push(tooLong(headLines, `its first ${first}`));
    if (last > 0) sentences.push(tooLong(tailFirst, `its last ${last}`));
  }
  return sentences.join(" ");
}

function firstLineLength(text: string): number {
  const nl = text.indexOf("\n");
  return nl === -1 ? text.length : nl;
}

const range = (word: string, from: number, to: number) => (from === to ? `${word} ${from}` : `${word}s ${from}-${to}`);

/** How to get at a spilled file with the core tools (read pages by start_line; grep takes a file as its path). */
export const CORE_PAGING_HINT =
  "Use read with start_line to page through that file, or grep to search it, instead of re-running the tool.";

/** Where the full output is and how to get at it (docs/conformance.md: 001 §7). */
function whereFull(spill: SpillInfo, cut: CutResult, maxChars: number, opts: ObserveOptions): string {
  if (!spill.path) {
    return `The full output could not be saved (${spill.failure ?? "unknown error"}); re-run the tool with narrower parameters to see a specific part.`;
  }
  const capped = spill.capped
    ? ` (only its first ${spill.storedBytes} of ${spill.totalBytes} bytes were stored: the spill file is capped)`
    : "";
  const next = opts.subagentToolName
    ? `Use ${opts.subagentToolName} to have a subagent process the full output file if you need all of it.`
    : (opts.pagingHint ?? CORE_PAGING_HINT);
  // Paging by lines cannot show the rest of one huge line: say how to page it by characters.
  const longLine =
    cut.head?.partialLine || cut.tail?.partialLine
      ? ` To see other parts of the long line, cut that file by characters with ${opts.shellToolName ?? "a shell command"} (e.g. cut -c 1-${maxChars}).`
      : "";
  return `The full output is in ${spill.path}${capped}. ${next}${longLine}`;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== "" ? value.trim() : undefined;
}

/** A number ≥ min (an integer when asked) from an environment variable; anything else is ignored. */
function envNumber(value: string | undefined, rule: { min: number; integer?: boolean }): number | undefined {
  const v = nonEmpty(value);
  if (v === undefined) return undefined;
  const n = Number(v);
  const valid = Number.isFinite(n) && n >= rule.min && (!rule.integer || Number.isInteger(n));
  return valid ? n : undefined;
}

function envDirection(value: string | undefined): TruncateMode | undefined {
  const v = nonEmpty(value)?.toLowerCase();
  return DIRECTIONS.find((d) => d === v);
}
