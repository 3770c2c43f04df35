/** SDK clients are reused per (base URL, credentials, headers): building one per request is wasteful. */
export function sdkCache<T>(create: (key: { baseUrl?: string; apiKey?: string; headers?: Record<string, string> }) => T) {
  const clients = new Map<string, T>();
  return (key: { baseUrl?: string; apiKey?: string; headers?: Record<string, string> }): T => {
    const id = JSON.stringify([key.baseUrl, key.apiKey, key.headers]);
    let client = clients.get(id);
    if (!client) {
      if (clients.size > 32) clients.clear();
      client = create(key);
      clients.set(id, client);
    }
    return client;
  };
}

/** SDK request timeout: generous, since the client's idle watchdog catches stalled streams. */
export const SDK_TIMEOUT_MS = 10 * 60_000;

/**
 * The SDKs' own loggers print to the console (a malformed SSE line costs nine lines of it) before
 * the error reaches us; gong reports every failure itself, in one sentence, so they stay silent —
 * whatever ANTHROPIC_LOG / OPENAI_LOG say.
 */
export const SDK_LOG_LEVEL = "off" as const;

/** The largest piece of an event stream handed to an SDK at once. */
export const STREAM_PIECE_BYTES = 1024;

/** What the body of an event stream showed by its end: whether the server said `[DONE]`. */
export interface StreamEnd {
  done: boolean;
}

/** The end of each event-stream response the openai SDK read through `smallPiecesFetch`. */
export const streamEnds = new WeakMap<globalThis.Response, StreamEnd>();

const DONE_MARK = "[DONE]";

/**
 * `fetch` for the openai and Anthropic SDKs. The openai SDK splits a stream into events by copying what follows each event
 * (`data.slice`), so a network chunk of n bytes costs n²/event-size: when chunks grow — gong busy
 * for a moment, a proxy that buffers — 20,000 small argument pieces arriving in 500 KB chunks took
 * seconds, most of it copying. Event-stream bodies reach the SDK in pieces of at most
 * STREAM_PIECE_BYTES, which keeps that linear. Two more things are noted on the way: whether the
 * stream said `[DONE]` (a Chat stream with no finish_reason finished only if it did), and a 200
 * whose JSON body is an error (some proxies answer a stream request so) becomes the error status
 * it names, so the SDK reports it as the error it is.
 */
export async function smallPiecesFetch(input: string | URL | Request, init?: RequestInit): Promise<globalThis.Response> {
  const response = await fetch(input, init);
  const type = response.headers.get("content-type") ?? "";
  if (response.ok && response.body && type.includes("application/json") && typeof init?.body === "string" && /"stream"\s*:\s*true/.test(init.body)) {
    return errorBodyAsStatus(response);
  }
  if (!response.body || !type.includes("text/event-stream")) return response;
  const reader = response.body.getReader();
  const end: StreamEnd = { done: false };
  let tail = "";
  const decoder = new TextDecoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) return controller.close();
      tail = (tail + decoder.decode(value.subarray(Math.max(0, value.length - 64)), { stream: true })).slice(-64);
      if (tail.includes(DONE_MARK)) end.done = true;
      for (let i = 0; i < value.length; i += STREAM_PIECE_BYTES) controller.enqueue(value.subarray(i, i + STREAM_PIECE_BYTES));
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const wrapped = new globalThis.Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  streamEnds.set(wrapped, end);
  return wrapped;
}

/** A 200 JSON answer to a stream request: an `{ error }` body becomes a response with the error's status (502 when it names none). */
async function errorBodyAsStatus(response: globalThis.Response): Promise<globalThis.Response> {
  const text = await response.text();
  let status = response.status;
  try {
    const error = (JSON.parse(text) as { error?: { code?: unknown; status?: unknown } }).error;
    if (error && typeof error === "object") {
      const code = Number(error.code ?? error.status);
      status = Number.isInteger(code) && code >= 400 && code <= 599 ? code : 502;
    }
  } catch {
    // Not JSON after all: the SDK reports the body as it is.
  }
  return new globalThis.Response(text, { status, statusText: response.statusText, headers: response.headers });
}
