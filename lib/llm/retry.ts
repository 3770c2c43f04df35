/**
 * The one retry policy for every adapter (the SDKs' own retries are off): transient failures are
 * retried with exponential backoff and full jitter, a server-given delay wins, everything is capped.
 */
import { LlmError } from "./errors.ts";

export interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 3, baseDelayMs: 1000, maxDelayMs: 30_000 };

/** 408/409/429/5xx/529 and network errors; never auth, invalid requests or overflow. */
export function shouldRetry(err: LlmError): boolean {
  if (
    err.kind === "auth" ||
    err.kind === "invalid_request" ||
    err.kind === "context_overflow" ||
    err.kind === "aborted"
  )
    return false;
  return err.retryable || err.status === 408 || err.status === 409;
}

/** Delay before retry number `attempt` (1-based). */
function retryDelayMs(attempt: number, err: LlmError, policy: RetryPolicy, random: () => number = Math.random): number {
  if (err.retryAfterMs !== undefined) return Math.min(Math.max(0, err.retryAfterMs), policy.maxDelayMs);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(random() * ceiling);
}

/**
 * A server that asks to wait longer than the policy ever waits (retry-after: 3600 against a 30 s
 * cap) will not be satisfied by retrying sooner: fail at once, saying when to come back.
 */
function waitBeyondBudget(err: LlmError, policy: RetryPolicy): LlmError | undefined {
  if (err.retryAfterMs === undefined || err.retryAfterMs <= policy.maxDelayMs || !shouldRetry(err)) return undefined;
  return new LlmError(
    "rate_limit",
    `rate-limited by ${err.provider ?? "the provider"}; retry after ${formatWait(err.retryAfterMs)}`,
    {
      status: err.status,
      provider: err.provider,
      retryAfterMs: err.retryAfterMs,
      cause: err,
    },
  );
}

/**
 * What follows failure number `attempt` (1-based): the error to give up with — a wait the server
 * asks for beyond the budget, retries used up, a failure not worth retrying — or the delay before
 * the next try.
 */
export function retryStep(
  err: LlmError,
  attempt: number,
  policy: RetryPolicy,
): { giveUp: LlmError } | { delayMs: number } {
  const tooLong = waitBeyondBudget(err, policy);
  if (tooLong) return { giveUp: tooLong };
  if (attempt > policy.maxRetries || !shouldRetry(err)) return { giveUp: err };
  return { delayMs: retryDelayMs(attempt, err, policy) };
}

/** A wait as people say it: "45 s", "20 min", "3 h". */
export function formatWait(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  if (seconds < 120) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 120) return `${minutes} min`;
  return `${+(minutes / 60).toFixed(1)} h`;
}

/** Waits `ms`, or rejects with an aborted LlmError as soon as the signal fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortedError());
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError());
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export const abortedError = () => new LlmError("aborted", "Request aborted");

/** Runs `attempt` under the policy; `onRetry` hears of each retry before its delay. */
export async function withRetry<T>(
  run: () => Promise<T>,
  classify: (err: unknown) => LlmError,
  policy: RetryPolicy,
  options: { signal?: AbortSignal; onRetry?: (attempt: number, delayMs: number, err: LlmError) => void } = {},
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (thrown) {
      const err = options.signal?.aborted ? abortedError() : classify(thrown);
      const step = retryStep(err, attempt, policy);
      if ("giveUp" in step) throw step.giveUp;
      options.onRetry?.(attempt, step.delayMs, err);
      await sleep(step.delayMs, options.signal);
    }
  }
}
