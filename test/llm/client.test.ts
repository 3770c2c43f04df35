import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "../../lib/llm/client.ts";
import { LlmError } from "../../lib/llm/errors.ts";
import type { AssistantMessage, Request, StreamEvent } from "../../lib/llm/types.ts";
import { startFakeLlm, type FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { collect, errorOf, fakeClient, finishOf } from "./fake-support.ts";

let fake: FakeLlm;
beforeAll(async () => {
  fake = await startFakeLlm({ script: [] });
});
afterAll(() => fake.close());

const ask = (model = "anthropic/claude-haiku-4-5"): Request => ({
  model,
  messages: [{ role: "user", content: "hello" }],
});

/** Plays `script` from a fresh start and returns the stream's events and the requests it caused. */
async function play(
  script: Parameters<FakeLlm["setScript"]>[0],
  options: Parameters<typeof fakeClient>[1] = {},
  request = ask(),
) {
  fake.setScript(script);
  const before = fake.requests.length;
  const events = await collect(fakeClient(fake, options).stream(request));
  return { events, requests: fake.requests.slice(before) };
}

const retries = (events: StreamEvent[]) => events.filter((e) => e.type === "retry");

describe("client: keys and base URLs", () => {
  test("the key comes from the environment: ANTHROPIC_API_KEY, else ANTHROPIC_AUTH_TOKEN", async () => {
    fake.setScript([{ text: "a" }, { text: "b" }]);
    const before = fake.requests.length;
    await collect(createClient({ env: { ANTHROPIC_API_KEY: "sk-env", ANTHROPIC_BASE_URL: fake.url } }).stream(ask()));
    await collect(
      createClient({ env: { ANTHROPIC_AUTH_TOKEN: "tok-env", ANTHROPIC_BASE_URL: fake.url } }).stream(ask()),
    );
    const [withKey, withToken] = fake.requests.slice(before);
    // This SDK generation sends either credential as a bearer token.
    expect(withKey.headers.authorization).toBe("Bearer sk-env");
    expect(withToken.headers.authorization).toBe("Bearer tok-env");
  });

  test("options win over the environment for keys and base URLs", async () => {
    fake.setScript([{ text: "a" }]);
    const before = fake.requests.length;
    const client = createClient({
      env: { ANTHROPIC_API_KEY: "sk-env", ANTHROPIC_BASE_URL: "http://127.0.0.1:1" },
      apiKeys: { anthropic: "sk-opt" },
      baseUrls: { anthropic: fake.url },
    });
    expect(finishOf(await collect(client.stream(ask()))).text).toBe("a");
    expect(fake.requests[before].headers.authorization).toBe("Bearer sk-opt");
  });

  test("a missing key is an auth error before any request, naming the variable", async () => {
    const before = fake.requests.length;
    const client = createClient({ env: {}, baseUrls: { anthropic: fake.url, deepseek: fake.baseUrls.openai } });
    const end = errorOf(await collect(client.stream(ask())));
    expect(end.error.kind).toBe("auth");
    expect(end.error.message).toMatch(/No API key for anthropic: set ANTHROPIC_API_KEY/);
    const thrown = await client.complete(ask("deepseek/deepseek-chat")).catch((e) => e);
    expect(thrown).toBeInstanceOf(LlmError);
    expect(thrown.message).toMatch(/DEEPSEEK_API_KEY/);
    expect(fake.requests.length).toBe(before);
  });

  test("local servers need no key; custom providers read their own variable", async () => {
    fake.setScript([{ text: "local" }, { text: "corp" }]);
    const before = fake.requests.length;
    const local = createClient({ env: {}, baseUrls: { ollama: fake.baseUrls.openai } });
    expect(finishOf(await collect(local.stream(ask("ollama/qwen3:8b")))).text).toBe("local");
    const corp = createClient({
      env: { CORP_KEY: "corp-secret" },
      providers: [{ id: "corp", baseUrl: fake.baseUrls.openai, apiKeyEnv: "CORP_KEY" }],
    });
    expect(finishOf(await collect(corp.stream(ask("corp/big-model")))).text).toBe("corp");
    expect(fake.requests[before + 1].headers.authorization).toBe("Bearer corp-secret");
    expect(fake.requests[before + 1].body.model).toBe("big-model");
  });

  test("an unknown model id works with defaults; an unknown provider is a clear error", async () => {
    const { events, requests } = await play([{ text: "fine" }], {}, ask("anthropic/claude-next-experimental"));
    expect(finishOf(events).text).toBe("fine");
    expect(requests[0].body.model).toBe("claude-next-experimental");
    expect(requests[0].body.max_tokens).toBe(8192);
    const bad = await play([], {}, ask("nowhere/model"));
    expect(errorOf(bad.events).error).toMatchObject({
      kind: "invalid_request",
      message: expect.stringContaining("known providers"),
    });
    expect(bad.requests).toHaveLength(0);
  });
});

describe("client: retry policy", () => {
  test("J.9 4.3 429 with retry-after is retried once the delay passed: two requests and a retry event", async () => {
    const { events, requests } = await play([
      { fault: { type: "http", status: 429, retryAfterMs: 20 } },
      { text: "after the wait" },
    ]);
    expect(requests).toHaveLength(2);
    expect(retries(events)).toEqual([
      { type: "retry", attempt: 1, delayMs: 20, error: expect.objectContaining({ kind: "rate_limit", status: 429 }) },
    ]);
    expect(finishOf(events).text).toBe("after the wait");
  });

  test('issue 24: a 429 whose body says "try again in 1.2s" (no header) waits 1.2 s, not three quick retries', async () => {
    const said = "Rate limit reached for gpt-5-mini on requests per min (RPM): Limit 3. Please try again in 1.2s.";
    const { events, requests } = await play(
      [{ fault: { type: "http", status: 429, message: said } }, { text: "after the wait" }],
      { retry: { maxDelayMs: 5000 } },
      ask("openai/gpt-5-mini"),
    );
    expect(requests).toHaveLength(2);
    expect(retries(events)).toEqual([
      {
        type: "retry",
        attempt: 1,
        delayMs: 1200,
        error: expect.objectContaining({ kind: "rate_limit", retryAfterMs: 1200 }),
      },
    ]);
    expect(finishOf(events).text).toBe("after the wait");
  });

  test('issue 24: "try again in 20s" beyond retry.maxDelayMs fails at once, saying when to come back', async () => {
    const said = "Rate limit reached for gpt-5 on tokens per min (TPM). Please try again in 20s.";
    const { events, requests } = await play(
      [{ fault: { type: "http", status: 429, message: said } }, { text: "never" }],
      { retry: { maxDelayMs: 5000 } },
      ask("ollama/qwen3-coder"),
    );
    expect(requests).toHaveLength(1);
    expect(retries(events)).toHaveLength(0);
    expect(errorOf(events).error.message).toBe("rate-limited by ollama; retry after 20 s");
  });

  test('issue 37 defect 12: "Please try again in 20 seconds." is a 20 s wait, not three quick retries', async () => {
    const { events, requests } = await play(
      [{ fault: { type: "http", status: 429, message: "Please try again in 20 seconds." } }, { text: "never" }],
      { retry: { maxDelayMs: 5000 } },
      ask("ollama/qwen3-coder"),
    );
    expect(requests).toHaveLength(1);
    expect(retries(events)).toHaveLength(0);
    expect(errorOf(events).error.message).toBe("rate-limited by ollama; retry after 20 s");
  });

  test("500, 529 and 503 are retried", async () => {
    const { events, requests } = await play([
      { fault: { type: "http", status: 500 } },
      { fault: { type: "http", status: 529 } },
      { fault: { type: "http", status: 503 } },
      { text: "third time lucky" },
    ]);
    expect(requests).toHaveLength(4);
    expect(retries(events).map((e) => e.type === "retry" && e.error.kind)).toEqual([
      "server",
      "overloaded",
      "overloaded",
    ]);
    expect(finishOf(events).text).toBe("third time lucky");
  });

  test("retries stop at maxRetries", async () => {
    const { events, requests } = await play(Array(5).fill({ fault: { type: "http", status: 500 } }), {
      retry: { maxRetries: 2, baseDelayMs: 1 },
    });
    expect(requests).toHaveLength(3);
    expect(retries(events)).toHaveLength(2);
    expect(errorOf(events).error).toMatchObject({ kind: "server", status: 500 });
  });

  test("J.9 5.6 a 401 is an auth error and is never retried", async () => {
    const { events, requests } = await play([{ fault: { type: "http", status: 401 } }, { text: "unreachable" }]);
    expect(requests).toHaveLength(1);
    expect(retries(events)).toHaveLength(0);
    expect(errorOf(events).error).toMatchObject({ kind: "auth", status: 401 });
  });

  test("overflow is classified and not retried, in each provider's wording", async () => {
    for (const model of ["anthropic/claude-haiku-4-5", "deepseek/deepseek-chat"]) {
      const { events, requests } = await play(
        [{ fault: { type: "overflow" } }, { text: "unreachable" }],
        {},
        ask(model),
      );
      expect(requests).toHaveLength(1);
      expect(errorOf(events).error.kind).toBe("context_overflow");
    }
    const empty = await play([{ fault: { type: "overflow", emptyBody: true } }], {}, ask("cerebras/gpt-oss-120b"));
    expect(errorOf(empty.events).error.kind).toBe("context_overflow");
  });

  test("J.9 5.3 a thinking-order error is invalid_request and not retried", async () => {
    const { events, requests } = await play([{ fault: { type: "invalid_request" } }, { text: "unreachable" }]);
    expect(requests).toHaveLength(1);
    expect(errorOf(events).error.kind).toBe("invalid_request");
  });

  test("complete() applies the same policy and throws LlmError", async () => {
    fake.setScript([
      { fault: { type: "http", status: 503 } },
      { text: "done" },
      { fault: { type: "http", status: 401 } },
    ]);
    const client = fakeClient(fake);
    expect((await client.complete(ask())).text).toBe("done");
    const err = await client.complete(ask()).catch((e) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect(err.kind).toBe("auth");
  });
});

describe("client: one accumulation of the answer (issue 23)", () => {
  test("every event of a call carries the same live message, holding exactly what arrived so far", async () => {
    fake.setScript([{ text: "Two plus two is four.", chunkSize: 5 }]);
    let partial: AssistantMessage | undefined;
    let sent = "";
    let deltas = 0;
    for await (const event of fakeClient(fake).stream(ask())) {
      if (event.type === "retry" || event.type === "error") throw new Error(`unexpected ${event.type}`);
      partial ??= event.partial;
      expect(event.partial).toBe(partial);
      if (event.type !== "text_delta") continue;
      deltas++;
      sent += event.delta;
      expect(event.partial.content).toEqual([{ type: "text", text: sent }]);
    }
    expect(deltas).toBeGreaterThan(2);
    expect(sent).toBe("Two plus two is four.");
  });
});

describe("client: broken streams", () => {
  test("J.9 5.1 a connection dropped after content ends with an error event and the partial message", async () => {
    const { events, requests } = await play([
      {
        text: "the beginning of a long answer",
        chunkSize: 4,
        chunkDelayMs: 10,
        fault: { type: "drop", afterChunks: 4 },
      },
      { text: "unused" },
    ]);
    expect(requests).toHaveLength(1); // content was shown: no retry
    const end = errorOf(events);
    expect(end.error.kind).toBe("network");
    expect(end.partial.content[0]).toMatchObject({ type: "text", text: expect.stringMatching(/^the beg/) });
    expect(end.partial.finishReason).toBe("error");
  });

  test("a connection dropped before any content is retried", async () => {
    const { events, requests } = await play([
      { text: "x", fault: { type: "drop", afterChunks: 1 } },
      { text: "second try" },
    ]);
    expect(requests).toHaveLength(2);
    expect(finishOf(events).text).toBe("second try");
  });

  test("J.9 5.2 malformed JSON ends with an error event, not a crash", async () => {
    for (const model of ["anthropic/claude-haiku-4-5", "deepseek/deepseek-chat"]) {
      const { events } = await play(
        [{ text: "hello world", fault: { type: "malformed" } }],
        { retry: { maxRetries: 0 } },
        ask(model),
      );
      expect(errorOf(events).error.message).toMatch(/Malformed|JSON/i);
    }
  });

  test("an error event after a 200 ends the stream with that error", async () => {
    const { events } = await play([
      {
        text: "partial answer here",
        chunkSize: 4,
        fault: { type: "error_event", afterChunks: 4, message: "Overloaded" },
      },
    ]);
    const end = errorOf(events);
    expect(end.error.kind).toBe("overloaded");
    // Four frames: message_start, content_block_start and two 4-character text deltas.
    expect(end.partial.content).toEqual([{ type: "text", text: "partial " }]);
  });

  test("J.9 5.4 a stalled stream ends with a timeout error", async () => {
    const { events, requests } = await play(
      [{ text: "stalls midway", chunkSize: 3, fault: { type: "stall", afterChunks: 3 } }],
      { streamIdleTimeoutMs: 150 },
    );
    expect(requests).toHaveLength(1);
    expect(errorOf(events).error.kind).toBe("timeout");
  });

  test("abort ends a stalled request at once with an aborted error", async () => {
    fake.setScript([{ text: "never finishes", chunkSize: 3, fault: { type: "stall", afterChunks: 3 } }]);
    const controller = new AbortController();
    const events: StreamEvent[] = [];
    for await (const e of fakeClient(fake).stream(ask(), { signal: controller.signal })) {
      events.push(e);
      if (e.type === "text_delta") controller.abort();
    }
    const end = errorOf(events);
    expect(end.error.kind).toBe("aborted");
    expect(end.partial.finishReason).toBe("aborted");
    expect(end.partial.content).toEqual([{ type: "text", text: "nev" }]);
  });

  test("abort during a retry wait ends the stream", async () => {
    fake.setScript([{ fault: { type: "http", status: 429, retryAfterMs: 5000 } }]);
    const controller = new AbortController();
    const events: StreamEvent[] = [];
    for await (const e of fakeClient(fake, { retry: { maxDelayMs: 10_000 } }).stream(ask(), {
      signal: controller.signal,
    })) {
      events.push(e);
      if (e.type === "retry") controller.abort();
    }
    expect(errorOf(events).error.kind).toBe("aborted");
  });
});
