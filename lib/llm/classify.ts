/**
 * Error classification (docs/conformance.md: 003 §4.4): SDK errors, HTTP statuses and body wording
 * become one LlmError kind. A 429 is never an overflow, whatever its message says; a thinking-block
 * ordering complaint is an invalid request, not an overflow.
 */
import { LlmError } from "./errors.ts";
import type { ModelInfo, Usage } from "./types.ts";

/** Each provider's wording for "the prompt does not fit". */
export const OVERFLOW_PATTERNS: RegExp[] = [
  /prompt is too long/i, // Anthropic
  /exceeds the context window/i, // OpenAI Responses
  /input token count.*exceeds/i, // Gemini
  /maximum prompt length is \d+/i, // xAI
  /reduce the length of the messages/i, // Groq, OpenAI Chat
  /context_length_exceeded/i, // OpenAI code
  /maximum context length/i, // OpenAI, vLLM, DeepSeek
  /context length exceeded|context window exceeded/i,
  /too many tokens/i, // Mistral and others
  /exceeds the maximum number of tokens/i,
  /prompt (is )?too large|too large for model with \d+ maximum context length/i, // Mistral
  /exceeds? (the )?context (length|limit)|greater than the context length/i, // Ollama, LM Studio, llama.cpp
];

/**
 * Anthropic's thinking-ordering complaints: must never be taken for an overflow
 * (docs/conformance.md: J.9 5.3).
 */
const THINKING_ORDER = [
  /expected `?(thinking|redacted_thinking)`? or `?(redacted_thinking|thinking)`?/i,
  /must start with a thinking block/i,
  /thinking.{0,40}blocks?.{0,60}cannot be modified/i,
];

const QUOTA = /insufficient_quota|exceeded your current quota/i;

const NETWORK =
  /ECONNRESET|ECONNREFUSED|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|fetch failed|socket hang up|terminated|other side closed|network|connection (error|closed|reset)|premature close|unexpected end|aborted by peer/i;

/** Turns any thrown value into a classified LlmError. */
export function classifyError(err: unknown, provider?: string): LlmError {
  if (err instanceof LlmError) return err;
  const e = (err ?? {}) as Record<string, any>;
  const name = `${e.name ?? ""} ${e.constructor?.name ?? ""}`;
  const status = typeof e.status === "number" ? e.status : typeof e.code === "number" ? e.code : undefined;
  const bodyText = describeBody(e);
  const text = `${e.message ?? String(err)} ${bodyText}`;
  const message = cleanMessage(provider, status, e, bodyText);
  const options = { status, provider, retryAfterMs: retryAfterMs(e, text), cause: err };

  if (
    /AbortError|APIUserAbortError/.test(name) ||
    /request was aborted|user aborted|operation was aborted/i.test(text)
  ) {
    return new LlmError("aborted", message || "Request aborted", options);
  }
  if (status === undefined && (/Timeout/i.test(name) || /request timed out/i.test(text)))
    return new LlmError("timeout", message || "Request timed out", options);

  // Out of credit: retrying cannot help; it is the account's to fix, like a rejected key.
  if (QUOTA.test(text)) return new LlmError("auth", message, options);
  if (status === 429) return new LlmError("rate_limit", message, options);
  if (status === 401 || status === 403) return new LlmError("auth", message, options);
  if (THINKING_ORDER.some((p) => p.test(text))) return new LlmError("invalid_request", message, options);
  if (OVERFLOW_PATTERNS.some((p) => p.test(text))) return new LlmError("context_overflow", message, options);
  if ((status === 400 || status === 413) && bodyText === "" && /no body|^\s*$/i.test(String(e.message ?? ""))) {
    // Cerebras and Mistral answer an oversized prompt with a bare 400/413.
    return new LlmError("context_overflow", `${message} (no body: taken as context overflow)`, options);
  }
  if (status === 413) return new LlmError("context_overflow", message, options);
  if (status === 529 || status === 503) return new LlmError("overloaded", message, options);
  if (status === 408) return new LlmError("timeout", message, options);
  if (status !== undefined && (status >= 500 || status === 409)) return new LlmError("server", message, options);
  if (status !== undefined && status >= 400) return new LlmError("invalid_request", message, options);

  // No status: an error event inside a 200 stream, a broken body, or the network.
  const type = String(e.error?.error?.type ?? e.error?.type ?? "");
  if (/overloaded/i.test(type) || /overloaded/i.test(text)) return new LlmError("overloaded", message, options);
  if (/rate_limit/i.test(type)) return new LlmError("rate_limit", message, options);
  if (/authentication|permission/i.test(type)) return new LlmError("auth", message, options);
  if (/invalid_request/i.test(type)) return new LlmError("invalid_request", message, options);
  if (/api_error|server_error/i.test(type)) return new LlmError("server", message, options);
  if (err instanceof SyntaxError || /JSON|parse/i.test(text)) {
    return new LlmError(
      "server",
      `Malformed response from ${provider ?? "the provider"}: ${e.message ?? String(err)}`,
      options,
    );
  }
  if (
    /APIConnectionError|ConnectionError|TypeError/.test(name) ||
    NETWORK.test(text) ||
    NETWORK.test(String(e.cause?.code ?? e.cause?.message ?? ""))
  ) {
    return new LlmError("network", message || "Network error", options);
  }
  return new LlmError("unknown", message || "Unknown error", options);
}

/** Silent overflow (z.ai style): the call succeeded but the prompt was larger than the window. */
export function silentOverflow(usage: Usage, model: ModelInfo): LlmError | undefined {
  const input = usage.input + usage.cacheRead + usage.cacheWrite;
  if (input <= model.contextWindow) return undefined;
  return new LlmError(
    "context_overflow",
    `${model.ref} used ${input} input tokens, more than its ${model.contextWindow}-token context window`,
    {
      provider: model.provider,
    },
  );
}

function describeBody(e: Record<string, any>): string {
  const body = e.error;
  if (body === undefined || body === null || body === "") return "";
  return typeof body === "string" ? body : safeJson(body);
}

function cleanMessage(
  provider: string | undefined,
  status: number | undefined,
  e: Record<string, any>,
  bodyText: string,
): string {
  const inner = e.error?.error?.message ?? e.error?.message ?? (typeof e.error === "string" ? e.error : undefined);
  let text = String(inner ?? e.message ?? "").trim();
  if (!inner && bodyText === "" && e.cause?.message && !/no body/.test(text))
    text = `${text} (${e.cause.message})`.trim();
  const prefix = [provider, status].filter((x) => x !== undefined).join(" ");
  return prefix ? `${prefix}: ${text}` : text;
}

/** Units a provider writes a wait in, longest spelling first, in milliseconds. */
const UNITS: Array<[RegExp, number]> = [
  [/^(?:milliseconds?|msecs?|ms)$/i, 1],
  [/^(?:seconds?|secs?|s)$/i, 1000],
  [/^(?:minutes?|mins?|m)$/i, 60_000],
  [/^(?:hours?|hrs?|h)$/i, 3_600_000],
];
const UNIT = "milliseconds?|msecs?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h";
/** One amount and unit ("20s", "20 seconds", "1.5 min"); a unit ends at a non-letter ("1m30s" is two parts). */
const PART = `\\d+(?:\\.\\d+)?\\s*(?:${UNIT})(?![a-z])`;
/** A duration: parts with nothing, spaces, commas or "and" between them ("1m30s", "1 minute and 30 seconds"). */
const DURATION = `${PART}(?:(?:\\s*,\\s*|\\s+and\\s+|\\s*)${PART})*`;
/**
 * A wait said in words: OpenAI's "Please try again in 20s" and "in 1.2s", Groq's "in 7m12.864s",
 * Azure's "Please retry after 20 seconds", "try again in 2 minutes", Gemini's "Please retry in 17.1s".
 */
const SAID_WAIT = new RegExp(`(?:try again|retry|wait)(?:\\s+(?:in|after|for))?\\s+(${DURATION})`, "i");

/** Milliseconds of a duration ("1m30s", "2 minutes", "20 seconds", "250ms"), or undefined when it is not one. */
export function durationMs(text: string): number | undefined {
  const whole = new RegExp(`^\\s*(?:${DURATION})\\s*$`, "i");
  if (!whole.test(text)) return undefined;
  let ms = 0;
  for (const [, amount, unit] of text.matchAll(new RegExp(`(\\d+(?:\\.\\d+)?)\\s*(${UNIT})(?![a-z])`, "gi")))
    ms += Number(amount) * (UNITS.find(([re]) => re.test(unit))?.[1] ?? 0);
  return Math.round(ms);
}

function saidWaitMs(text: string): number | undefined {
  const said = SAID_WAIT.exec(text);
  return said ? durationMs(said[1]) : undefined;
}

/**
 * The wait a 429 asks for: retry-after-ms, retry-after (seconds or an HTTP date), the reset of the
 * limit that ran out (`x-ratelimit-remaining-*: 0` with `x-ratelimit-reset-*: 6m0s`, as OpenAI and
 * Groq send), Gemini's RetryInfo retryDelay, or a wait the message says.
 */
function retryAfterMs(e: Record<string, any>, text: string): number | undefined {
  const header = (name: string): string | undefined => {
    const h = e.headers;
    if (!h) return undefined;
    const v = typeof h.get === "function" ? h.get(name) : h[name];
    return v === null || v === undefined ? undefined : String(v);
  };
  const ms = Number(header("retry-after-ms"));
  if (header("retry-after-ms") !== undefined && Number.isFinite(ms)) return ms;
  const after = header("retry-after");
  if (after !== undefined) {
    const seconds = Number(after);
    if (Number.isFinite(seconds)) return seconds * 1000;
    const date = Date.parse(after);
    if (Number.isFinite(date)) return Math.max(0, date - Date.now());
  }
  const resets = ["requests", "tokens"]
    .filter((limit) => header(`x-ratelimit-remaining-${limit}`)?.trim() === "0")
    .map((limit) => durationMs(header(`x-ratelimit-reset-${limit}`) ?? ""))
    .filter((wait): wait is number => wait !== undefined);
  if (resets.length > 0) return Math.max(...resets);
  const delay = /"retryDelay"\s*:\s*"([\d.]+)s"/.exec(text);
  return delay ? Number(delay[1]) * 1000 : saidWaitMs(text);
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}
