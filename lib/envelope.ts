/**
 * The standard envelope every tool returns (docs/conformance.md: 000 §1).
 *
 * Tools never build the object literal themselves: they use a `Reply` (from `startReply`) so the
 * invariants hold by construction — no extra top-level fields, `error` present iff status is
 * "error", `data` always an object, `stats.time_ms` always set, `context.cwd` and
 * `context.params_input` always filled.
 */

export type ToolStatus = "success" | "partial" | "error";

/** The codes of the spec's envelope and Read contract (docs/conformance.md: 000 §3.3, 002 §4.1). */
export const ERROR_CODES = [
  "NOT_FOUND",
  "ACCESS_DENIED",
  "PERMISSION_DENIED",
  "INVALID_PARAM",
  "TIMEOUT",
  "INTERNAL_ERROR",
  "EXECUTION_ERROR",
  "CONFLICT",
  "IS_DIRECTORY",
  "BINARY_FILE",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorInfo {
  code: ErrorCode;
  message: string;
}

export interface ToolStats {
  time_ms: number;
  [key: string]: number | string;
}

export interface ToolContext {
  /** Working directory of the call, relative to the project root ("." usually). */
  cwd: string;
  /** The raw arguments exactly as the caller gave them. */
  params_input: unknown;
  /** POSIX path relative to the project root, when the tool resolved one. */
  path_resolved?: string;
  /** Set by tools that paginate themselves: the framework truncator lets the result through. */
  truncation_skip?: boolean;
  [key: string]: unknown;
}

export interface ToolResponse<D extends Record<string, unknown> = Record<string, unknown>> {
  status: ToolStatus;
  data: D;
  /** What the model reads. */
  text: string;
  error?: ErrorInfo;
  stats: ToolStats;
  context: ToolContext;
}

export type EntryType = "file" | "dir" | "link";
export interface Entry {
  path: string;
  type: EntryType;
}
/** An image a multimodal model can see (read returns these in `data.images`). */
export interface ImageData {
  mimeType: string;
  /** base64 */
  data: string;
  width?: number;
  height?: number;
}

/** Thrown inside tools and environments; `Reply.fromError` turns it into an error envelope. */
export class ToolError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = "ToolError";
    this.code = code;
  }
}

export function isToolError(e: unknown): e is ToolError {
  return e instanceof ToolError;
}

interface ReplyExtras {
  /** The directory the call really worked in (a command's workdir or leading `cd`), when not the session's. */
  cwd?: string;
  stats?: Record<string, number | string>;
  context?: Record<string, unknown>;
  pathResolved?: string;
}

/** Builds envelopes for one call; measures time from its creation. */
export interface Reply {
  success(data: Record<string, unknown>, text: string, extras?: ReplyExtras): ToolResponse;
  partial(data: Record<string, unknown>, text: string, extras?: ReplyExtras): ToolResponse;
  fail(
    code: ErrorCode,
    message: string,
    extras?: ReplyExtras & { data?: Record<string, unknown>; text?: string },
  ): ToolResponse;
  /** Any thrown value → error envelope (ToolError keeps its code, the rest become INTERNAL_ERROR). */
  fromError(e: unknown, extras?: ReplyExtras): ToolResponse;
  /** Milliseconds since the reply was started. */
  elapsed(): number;
}

export function startReply(paramsInput: unknown, cwd = "."): Reply {
  const started = performance.now();
  const elapsed = () => Math.max(0, Math.round(performance.now() - started));

  const build = (
    status: ToolStatus,
    data: Record<string, unknown>,
    text: string,
    extras: ReplyExtras = {},
    error?: ErrorInfo,
  ): ToolResponse => {
    const stats: ToolStats = { ...cleanStats(extras.stats), time_ms: elapsed() };
    const context: ToolContext = { ...(extras.context ?? {}), cwd: extras.cwd ?? cwd, params_input: paramsInput };
    if (extras.pathResolved !== undefined) context.path_resolved = extras.pathResolved;
    const response: ToolResponse = {
      status,
      data: isPlainObject(data) ? data : {},
      text: String(text),
      stats,
      context,
    };
    if (error) response.error = error;
    return response;
  };

  return {
    elapsed,
    success: (data, text, extras) => build("success", data, text, extras),
    partial: (data, text, extras) => build("partial", data, text, extras),
    fail: (code, message, extras = {}) =>
      build("error", extras.data ?? {}, extras.text ?? message, extras, { code, message }),
    fromError(e, extras) {
      if (isToolError(e)) return this.fail(e.code, e.message, extras);
      const message = e instanceof Error ? e.message : String(e);
      return this.fail("INTERNAL_ERROR", `Internal error: ${message}`, extras);
    },
  };
}

function cleanStats(stats: Record<string, number | string> | undefined): Record<string, number | string> {
  const out: Record<string, number | string> = {};
  for (const [k, v] of Object.entries(stats ?? {})) {
    if (typeof v === "number" && Number.isFinite(v)) out[k] = v;
    else if (typeof v === "string") out[k] = v;
  }
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const TOP_LEVEL = new Set(["status", "data", "text", "error", "stats", "context"]);

/** Lists every way `value` breaks the envelope invariants; empty when it is a valid ToolResponse. */
export function envelopeProblems(value: unknown): string[] {
  const problems: string[] = [];
  if (!isPlainObject(value)) return ["not an object"];
  for (const key of Object.keys(value)) if (!TOP_LEVEL.has(key)) problems.push(`extra top-level field '${key}'`);
  const { status, data, text, error, stats, context } = value as Record<string, unknown>;
  if (status !== "success" && status !== "partial" && status !== "error") problems.push(`bad status ${String(status)}`);
  if (!isPlainObject(data)) problems.push("data is not an object");
  if (typeof text !== "string") problems.push("text is not a string");
  if (status === "error") {
    if (!isPlainObject(error)) problems.push("error missing on an error status");
    else {
      if (!(ERROR_CODES as readonly string[]).includes(String(error.code)))
        problems.push(`unknown error code ${String(error.code)}`);
      if (typeof error.message !== "string" || error.message === "") problems.push("error.message empty");
    }
  } else if (error !== undefined) problems.push("error present on a non-error status");
  if (!isPlainObject(stats) || typeof stats.time_ms !== "number" || !Number.isFinite(stats.time_ms))
    problems.push("stats.time_ms missing");
  if (!isPlainObject(context)) problems.push("context missing");
  else {
    if (typeof context.cwd !== "string") problems.push("context.cwd missing");
    if (!("params_input" in context)) problems.push("context.params_input missing");
  }
  return problems;
}
