import Anthropic from "@anthropic-ai/sdk";
import { ApiError as GeminiApiError } from "@google/genai";
import { describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { getModel } from "../../lib/llm/catalog.ts";
import { classifyError, silentOverflow } from "../../lib/llm/classify.ts";
import { LlmError } from "../../lib/llm/errors.ts";
import { shouldRetry } from "../../lib/llm/retry.ts";

const anthropicError = (
  status: number | undefined,
  type: string,
  message: string,
  headers: Record<string, string> = {},
) => Anthropic.APIError.generate(status, { type: "error", error: { type, message } }, undefined, new Headers(headers));
const openaiError = (
  status: number | undefined,
  message: string,
  code: string | null = null,
  headers: Record<string, string> = {},
) =>
  OpenAI.APIError.generate(
    status,
    { error: { message, type: "invalid_request_error", param: null, code } },
    undefined,
    new Headers(headers),
  );
const geminiError = (status: number, message: string, statusText = "INVALID_ARGUMENT") =>
  new GeminiApiError({ status, message: JSON.stringify({ error: { code: status, message, status: statusText } }) });

describe("error classification", () => {
  test("every provider's overflow wording is context_overflow", () => {
    const cases: [unknown, string][] = [
      [anthropicError(400, "invalid_request_error", "prompt is too long: 213462 tokens > 200000 maximum"), "anthropic"],
      [
        openaiError(
          400,
          "Your input exceeds the context window of this model. Please adjust your input and try again.",
          "context_length_exceeded",
        ),
        "openai",
      ],
      [
        geminiError(400, "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)."),
        "gemini",
      ],
      [openaiError(400, "This model's maximum prompt length is 131072 but the request contains 537812 tokens."), "xai"],
      [openaiError(400, "Please reduce the length of the messages or completion.", "context_length_exceeded"), "groq"],
      [
        openaiError(400, "This model's maximum context length is 131072 tokens. However, you requested 140000 tokens."),
        "deepseek",
      ],
      [
        openaiError(
          400,
          "Prompt contains 140000 tokens and 0 draft tokens, too large for model with 131072 maximum context length",
        ),
        "mistral",
      ],
      [
        openaiError(
          400,
          "This endpoint's maximum context length is 200000 tokens. However, you requested about 250000 tokens.",
        ),
        "openrouter",
      ],
      [
        openaiError(400, "The number of tokens to keep from the initial prompt is greater than the context length"),
        "lmstudio",
      ],
      [openaiError(400, "Too many tokens in the request"), "together"],
    ];
    for (const [err, provider] of cases) {
      const classified = classifyError(err, provider);
      expect({ provider, kind: classified.kind }).toEqual({ provider, kind: "context_overflow" });
      expect(shouldRetry(classified)).toBe(false);
    }
  });

  test("J.9 4.3 a 429 is a rate limit, never an overflow, and is retried", () => {
    const openai = classifyError(
      openaiError(
        429,
        "Request too large for gpt-4o: Limit 30000, Requested 50000 tokens. Please reduce the length of the messages.",
        "rate_limit_exceeded",
      ),
      "openai",
    );
    const anthropic = classifyError(
      anthropicError(
        429,
        "rate_limit_error",
        "This request would exceed the rate limit of 30,000 input tokens per minute: prompt is too long for the limit",
      ),
      "anthropic",
    );
    for (const err of [openai, anthropic]) {
      expect(err.kind).toBe("rate_limit");
      expect(shouldRetry(err)).toBe(true);
    }
  });

  test("J.9 5.3 a thinking-block ordering error is invalid_request, not overflow", () => {
    const err = classifyError(
      anthropicError(
        400,
        "invalid_request_error",
        "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`. When `thinking` is enabled, a final `assistant` message must start with a thinking block. The prompt is too long to replay otherwise.",
      ),
      "anthropic",
    );
    expect(err.kind).toBe("invalid_request");
    expect(shouldRetry(err)).toBe(false);
  });

  test("400 and 413 with no body are overflow (Cerebras, Mistral)", () => {
    for (const status of [400, 413]) {
      const err = classifyError(OpenAI.APIError.generate(status, undefined, undefined, new Headers()), "cerebras");
      expect(err.kind).toBe("context_overflow");
      expect(err.status).toBe(status);
    }
  });

  test("auth, overload, server and invalid requests by status", () => {
    expect(classifyError(anthropicError(401, "authentication_error", "invalid x-api-key"), "anthropic").kind).toBe(
      "auth",
    );
    expect(classifyError(openaiError(403, "Country not supported"), "openai").kind).toBe("auth");
    expect(classifyError(anthropicError(529, "overloaded_error", "Overloaded"), "anthropic").kind).toBe("overloaded");
    expect(classifyError(geminiError(503, "The model is overloaded.", "UNAVAILABLE"), "gemini").kind).toBe(
      "overloaded",
    );
    expect(classifyError(openaiError(500, "The server had an error"), "openai").kind).toBe("server");
    expect(classifyError(openaiError(404, "The model does not exist"), "openai").kind).toBe("invalid_request");
    const conflict = classifyError(openaiError(409, "Conflict"), "openai");
    const timeout = classifyError(openaiError(408, "Request timeout"), "openai");
    expect([shouldRetry(conflict), shouldRetry(timeout)]).toEqual([true, true]);
    expect(shouldRetry(classifyError(anthropicError(401, "authentication_error", "bad key"), "anthropic"))).toBe(false);
  });

  test("retry-after, retry-after-ms and Gemini RetryInfo give the delay", () => {
    expect(classifyError(openaiError(429, "slow down", null, { "retry-after": "7" }), "openai").retryAfterMs).toBe(
      7000,
    );
    expect(
      classifyError(openaiError(429, "slow down", null, { "retry-after-ms": "250", "retry-after": "7" }), "openai")
        .retryAfterMs,
    ).toBe(250);
    const gemini = new GeminiApiError({
      status: 429,
      message: JSON.stringify({
        error: {
          code: 429,
          message: "Quota exceeded",
          status: "RESOURCE_EXHAUSTED",
          details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "12s" }],
        },
      }),
    });
    expect(classifyError(gemini, "gemini")).toMatchObject({ kind: "rate_limit", retryAfterMs: 12_000 });
  });

  test("network failures in their usual spellings", () => {
    const econnreset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    for (const err of [
      econnreset,
      new TypeError("fetch failed"),
      new Error("socket hang up"),
      new Error("terminated"),
      new Anthropic.APIConnectionError({ cause: econnreset }),
    ]) {
      expect(classifyError(err, "anthropic").kind).toBe("network");
    }
  });

  test("aborts, timeouts, in-stream errors and broken JSON", () => {
    expect(classifyError(new Anthropic.APIUserAbortError(), "anthropic").kind).toBe("aborted");
    expect(classifyError(new DOMException("The operation was aborted.", "AbortError"), "openai").kind).toBe("aborted");
    expect(classifyError(new OpenAI.APIConnectionTimeoutError(), "openai").kind).toBe("timeout");
    // An error event after a 200 carries no status, only its body.
    expect(
      classifyError(
        new Anthropic.APIError(
          undefined,
          { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
          undefined,
          new Headers(),
        ),
        "anthropic",
      ).kind,
    ).toBe("overloaded");
    expect(classifyError(new SyntaxError("Unexpected end of JSON input"), "openai")).toMatchObject({
      kind: "server",
      message: expect.stringContaining("Malformed response"),
    });
  });

  test("an LlmError passes through unchanged", () => {
    const err = new LlmError("auth", "No API key");
    expect(classifyError(err, "anthropic")).toBe(err);
  });

  test("silent overflow: usage above the window is context_overflow", () => {
    const model = getModel("ollama/small");
    const usage = { input: 120_000, output: 10, cacheRead: 9_000, cacheWrite: 0, reasoning: 0, cost: 0 };
    expect(silentOverflow(usage, model)?.kind).toBe("context_overflow");
    expect(silentOverflow({ ...usage, cacheRead: 0 }, model)).toBeUndefined();
  });
});

describe("issue 24: waits stated in the error body", () => {
  test('OpenAI\'s "try again in 20s" / "in 1.2s" and Groq\'s "7m12.864s" become the retry delay', () => {
    const said = (message: string) =>
      classifyError(openaiError(429, message, "rate_limit_exceeded"), "openai").retryAfterMs;
    expect(
      said(
        "Rate limit reached for gpt-5 in organization org-x on tokens per min (TPM): Limit 30000, Used 30000, Requested 512. Please try again in 20s.",
      ),
    ).toBe(20_000);
    expect(
      said(
        "Rate limit reached for gpt-5-mini on requests per min (RPM). Please try again in 1.2s. Visit https://platform.openai.com/account/rate-limits",
      ),
    ).toBe(1200);
    expect(
      said("Rate limit reached for model `llama-3.3-70b` on tokens per day (TPD): Please try again in 7m12.864s."),
    ).toBe(432_864);
    expect(said("Please try again in 250ms.")).toBe(250);
    expect(said("slow down")).toBeUndefined();
  });

  test("issue 37 defect 12: every way a provider writes a wait is read", () => {
    const said = (message: string) =>
      classifyError(openaiError(429, message, "rate_limit_exceeded"), "openai").retryAfterMs;
    expect(said("Please try again in 20 seconds.")).toBe(20_000);
    expect(said("Please retry after 20 seconds.")).toBe(20_000);
    expect(said("Please try again in 1m30s.")).toBe(90_000);
    expect(said("Rate limited: try again in 2 minutes.")).toBe(120_000);
    expect(said("Please try again in 1 minute and 30 seconds.")).toBe(90_000);
    expect(said("Please retry in 17.5s.")).toBe(17_500);
    expect(said("Please wait 3 secs before retrying.")).toBe(3000);
    expect(said("try again in 1 hour")).toBe(3_600_000);
    expect(said("retry 3 times")).toBeUndefined();
    // The reset of the limit that ran out, as OpenAI and Groq send it.
    const headers = (h: Record<string, string>) =>
      classifyError(openaiError(429, "Rate limit reached.", "rate_limit_exceeded", h), "openai").retryAfterMs;
    expect(
      headers({
        "x-ratelimit-remaining-requests": "12",
        "x-ratelimit-reset-requests": "1s",
        "x-ratelimit-remaining-tokens": "0",
        "x-ratelimit-reset-tokens": "6m0s",
      }),
    ).toBe(360_000);
    expect(headers({ "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "250ms" })).toBe(250);
    expect(headers({ "x-ratelimit-remaining-tokens": "5", "x-ratelimit-reset-tokens": "6m0s" })).toBeUndefined();
  });

  test("a header still wins over the words", () => {
    expect(
      classifyError(openaiError(429, "Please try again in 20s.", null, { "retry-after": "3" }), "openai").retryAfterMs,
    ).toBe(3000);
  });
});
