/** SDK clients are reused per (base URL, credentials, headers): building one per request is wasteful. */
export function sdkCache<T>(
  create: (key: { baseUrl?: string; apiKey?: string; headers?: Record<string, string> }) => T,
) {
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
