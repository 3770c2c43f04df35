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

/**
 * `fetch` for the openai SDK. It splits a stream into events by copying what follows each event
 * (`data.slice`), so a network chunk of n bytes costs n²/event-size: when chunks grow — gong busy
 * for a moment, a proxy that buffers — 20,000 small argument pieces arriving in 500 KB chunks took
 * seconds, most of it copying. Event-stream bodies reach the SDK in pieces of at most
 * STREAM_PIECE_BYTES, which keeps that linear.
 */
export async function smallPiecesFetch(input: string | URL | Request, init?: RequestInit): Promise<globalThis.Response> {
  const response = await fetch(input, init);
  if (!response.body || !response.headers.get("content-type")?.includes("text/event-stream")) return response;
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) return controller.close();
      for (let i = 0; i < value.length; i += STREAM_PIECE_BYTES) controller.enqueue(value.subarray(i, i + STREAM_PIECE_BYTES));
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new globalThis.Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
