/**
 * The one OpenAI SDK client of both OpenAI wire APIs (Chat Completions and Responses), per base URL,
 * key and headers. The client owns the one retry policy: the SDK's own retries stay off, and so
 * does its console logging (a broken event is thrown as an error, not printed).
 */
import OpenAI from "openai";
import { eventStreamFetch } from "./event-stream-fetch.ts";
import { SDK_LOG_LEVEL, SDK_TIMEOUT_MS, sdkCache } from "./sdk-cache.ts";
import type { AdapterContext } from "./types.ts";

const sdk = sdkCache(
  ({ baseUrl, apiKey, headers }) =>
    // Local servers take no key, but the SDK insists on one.
    new OpenAI({
      apiKey: apiKey ?? "no-key",
      baseURL: baseUrl,
      maxRetries: 0,
      timeout: SDK_TIMEOUT_MS,
      defaultHeaders: headers,
      logLevel: SDK_LOG_LEVEL,
      fetch: eventStreamFetch,
    }),
);

export const openaiClient = (ctx: AdapterContext): OpenAI =>
  sdk({ baseUrl: ctx.baseUrl, apiKey: ctx.apiKey, headers: ctx.headers });
