/**
 * The framework-level truncator (spec 001, envelope shape of 000 §2): every tool result passes
 * through `observe()` before the model sees it. A result whose `text` is within the limits comes
 * back as the same object; a longer one comes back as a "partial" envelope (an "error" stays
 * "error") holding a preview, the truncation figures and the path of the full original JSON.
 *
 * Limits resolve, most specific first: perTool[tool] → the call's direction → createObserver
 * options → TOOL_OUTPUT_* environment variables → defaults (2000 lines, 51200 bytes, head,
 * "tool-output", 7 days).
 */
import { isAbsolute, relative, resolve, sep } from "node:path";
import process from "node:process";
import type { ToolResponse } from "./envelope.ts";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, truncateOutput, type OutputTruncation, type TruncateMode } from "./truncate.ts";
import { excludeFromGit, sweepSpills, writeSpill } from "./observe-spill.ts";

export interface ToolLimits {
  maxLines?: number;
  maxBytes?: number;
  /** Characters; used where maxBytes is not given. */
  maxChars?: number;
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
  /** Where TOOL_OUTPUT_* variables are read; defaults to process.env. */
  env?: Record<string, string | undefined>;
  now?: () => Date;
}

export interface ObserveOptions {
  /** The tool's own preferred direction (Tool.truncation). */
  direction?: TruncateMode;
  /** A subagent tool is registered: the hint points at it (001 §7). */
  hasSubagentTool?: boolean;
  subagentToolName?: string;
  readToolName?: string;
  grepToolName?: string;
}

export interface TruncationInfo {
  direction: TruncateMode;
  max_lines: number;
  max_bytes: number;
  original_lines: number;
  original_bytes: number;
  kept_lines: number;
  kept_bytes: number;
  /** Relative to the root (POSIX); null when the full output could not be saved. */
  full_output_path: string | null;
}

export interface Observer {
  /** Truncates `response` when its text is over the limits; never throws. */
  observe(toolName: string, response: ToolResponse, opts?: ObserveOptions): Promise<ToolResponse>;
  /** Deletes spill files older than the retention period; returns how many were deleted. */
  sweep(): Promise<number>;
}

const DIRECTIONS: readonly TruncateMode[] = ["head", "tail", "head_tail"];

export function createObserver(options: ObserverOptions): Observer {
  const env = options.env ?? process.env;
  const now = options.now ?? (() => new Date());
  const root = resolve(options.root);
  const dir = resolve(root, options.dir ?? nonEmpty(env.TOOL_OUTPUT_DIR) ?? "tool-output");
  const retentionDays = options.retentionDays ?? envNumber(env.TOOL_OUTPUT_RETENTION_DAYS, { min: 0 }) ?? 7;
  const global = {
    maxLines: options.maxLines ?? envNumber(env.TOOL_OUTPUT_MAX_LINES, { min: 1, integer: true }) ?? DEFAULT_MAX_LINES,
    maxBytes: options.maxBytes ?? envNumber(env.TOOL_OUTPUT_MAX_BYTES, { min: 1, integer: true }) ?? DEFAULT_MAX_BYTES,
    direction: options.direction ?? envDirection(env.TOOL_OUTPUT_TRUNCATE_DIRECTION),
  };
  let firstSpill = true;

  const sweep = () => sweepSpills(dir, retentionDays, now()).catch(() => 0);

  /** Saves the full response; returns the path to show, or the reason it could not be saved. */
  async function spill(toolName: string, response: ToolResponse): Promise<{ path: string } | { failure: string }> {
    try {
      const written = await writeSpill(dir, toolName, JSON.stringify(response), now());
      if (firstSpill) {
        firstSpill = false;
        await sweep();
        await excludeFromGit(dir).catch(() => {});
      }
      return { path: displayPath(root, written) };
    } catch (e) {
      return { failure: e instanceof Error ? e.message : String(e) };
    }
  }

  async function observe(toolName: string, response: ToolResponse, opts: ObserveOptions = {}): Promise<ToolResponse> {
    try {
      if (response.context?.truncation_skip === true || isFrameworkTruncated(response)) return response;
      if (typeof response.text !== "string") return response;
      const own = options.perTool?.[toolName] ?? {};
      const limits = {
        maxLines: own.maxLines ?? global.maxLines,
        maxBytes: own.maxBytes ?? own.maxChars ?? global.maxBytes,
        direction: own.direction ?? opts.direction ?? global.direction ?? "head",
      };
      const cut = truncateOutput(response.text, limits);
      if (!cut.truncated) return response;
      const saved = await spill(toolName, response);
      const info: TruncationInfo = {
        direction: limits.direction,
        max_lines: limits.maxLines,
        max_bytes: limits.maxBytes,
        original_lines: cut.totalLines,
        original_bytes: cut.totalBytes,
        kept_lines: cut.keptLines,
        kept_bytes: cut.keptBytes,
        full_output_path: "path" in saved ? saved.path : null,
      };
      const notice = `[${describeCut(cut, limits)} ${nextStep(saved, opts)}]`;
      const truncated: ToolResponse = {
        status: response.status === "error" ? "error" : "partial",
        data: { truncated: true, truncation: info, preview: cut.content },
        text: `${cut.content}\n\n${notice}`,
        stats: { ...response.stats },
        context: { ...response.context },
      };
      if (response.status === "error" && response.error) truncated.error = { ...response.error };
      return truncated;
    } catch {
      // A truncator failure must not lose the tool's answer.
      return response;
    }
  }

  return { observe, sweep };
}

/** "Output truncated: showing the first 2000 of 5234 lines (49.9KB of 178.1KB; limit 2000 lines / 50.0KB)." */
function describeCut(cut: OutputTruncation, limits: { maxLines: number; maxBytes: number }): string {
  const shown =
    cut.direction === "head"
      ? `the first ${cut.keptLines}`
      : cut.direction === "tail"
        ? `the last ${cut.keptLines}`
        : `${cut.keptLines} (from the start and the end)`;
  const partial = cut.partialLine ? ", a line longer than the limit was cut" : "";
  return (
    `Output truncated: showing ${shown} of ${cut.totalLines} lines ` +
    `(${formatSize(cut.keptBytes)} of ${formatSize(cut.totalBytes)}${partial}; ` +
    `limit ${limits.maxLines} lines / ${formatSize(limits.maxBytes)}).`
  );
}

/** Where the full output is and how to get at it (001 §7). */
function nextStep(saved: { path: string } | { failure: string }, opts: ObserveOptions): string {
  if ("failure" in saved) {
    return `The full output could not be saved (${saved.failure}); re-run the tool with narrower parameters to see a specific part.`;
  }
  if (opts.hasSubagentTool) {
    return `Full output saved to ${saved.path}. Use ${opts.subagentToolName ?? "Task"} to have a subagent process the full output file if you need all of it.`;
  }
  return (
    `Full output saved to ${saved.path}. Use ${opts.readToolName ?? "read"} with start_line pagination ` +
    `or ${opts.grepToolName ?? "grep"} to search the full output file instead of re-running the tool.`
  );
}

/** Already the envelope this module builds: truncating it again would only nest notices. */
function isFrameworkTruncated(response: ToolResponse): boolean {
  const data = response.data as Record<string, unknown> | undefined;
  return data?.truncated === true && typeof data.truncation === "object" && data.truncation !== null && "full_output_path" in data.truncation;
}

/** Relative POSIX path when inside the root, absolute otherwise. */
function displayPath(root: string, file: string): string {
  const rel = relative(root, file);
  if (rel.startsWith("..") || isAbsolute(rel)) return file;
  return rel.split(sep).join("/");
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
