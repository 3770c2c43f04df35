/** Classified LLM failures: every adapter throws these, the retry policy and the agent read `kind`. */
import type { LlmErrorKind } from "./types.ts";

export class LlmError extends Error {
  readonly kind: LlmErrorKind;
  readonly status?: number;
  readonly provider?: string;
  /** Server-given delay before a retry (retry-after, retry-after-ms, Gemini RetryInfo). */
  readonly retryAfterMs?: number;

  constructor(
    kind: LlmErrorKind,
    message: string,
    options: { status?: number; provider?: string; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "LlmError";
    this.kind = kind;
    this.status = options.status;
    this.provider = options.provider;
    this.retryAfterMs = options.retryAfterMs;
  }

  /** Transient failures worth another attempt; auth and invalid requests never are. */
  get retryable(): boolean {
    return (
      this.kind === "rate_limit" || this.kind === "overloaded" || this.kind === "server" || this.kind === "network"
    );
  }
}
