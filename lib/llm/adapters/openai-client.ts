/**
 * The one OpenAI SDK client of both OpenAI wire APIs (Chat Completions and Responses), per base URL,
 * key and headers. The client owns the one retry policy: the SDK's own retries stay off, and so
 * does its console logging (a broken event is thrown as an error, not printed). A stream's body is
 * read here (server-sent-events.ts) with the rules of the SDK's own reader.
 */
import OpenAI from "openai";
import { eventStreamFetch } from "./event-stream-fetch.ts";
import { SDK_LOG_LEVEL, SDK_TIMEOUT_MS, sdkCache } from "./sdk-cache.ts";
import { readEvents } from "./server-sent-events.ts";
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

/** What the end of an OpenAI event stream showed: whether the server said `[DONE]`. */
export interface StreamEnd {
  done: boolean;
}

/**
 * The JSON events of an OpenAI stream response, a network chunk's worth at a time, as the SDK's
 * reader gives them: `[DONE]` ends the stream (nothing after it counts), and an event carrying an
 * `error` is thrown as the SDK's APIError. Events named (`event:`) in `skipped` are not even parsed:
 * the Responses API repeats a call's whole arguments, and a whole text, in events that say only that
 * what the deltas delivered is done.
 */
export function openaiEvents<T>(
  response: Response,
  end: StreamEnd = { done: false },
  skipped?: ReadonlySet<string>,
): AsyncGenerator<T[]> {
  if (!response.body) throw new OpenAI.OpenAIError("The stream response has no body");
  return readEvents(response.body, ({ event, data }) => {
    if (end.done || (event !== null && skipped?.has(event))) return undefined;
    if (data.startsWith("[DONE]")) {
      end.done = true;
      return undefined;
    }
    const value = JSON.parse(data);
    if (value?.error) throw new OpenAI.APIError(undefined, value.error, undefined, response.headers);
    return value as T;
  });
}
