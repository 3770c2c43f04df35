import { describe, expect, test } from "bun:test";
import { startFakeLlm } from "../../lib/testing/fake-llm/server.ts";

const post = (url: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("fake LLM server", () => {
  test("a request after the script is exhausted gets a 500 that says so", async () => {
    await using fake = await startFakeLlm({ script: [{ text: "only one" }] });
    expect((await post(`${fake.url}/v1/messages`, { model: "m", messages: [] })).status).toBe(200);
    const res = await post(`${fake.url}/v1/messages`, { model: "m", messages: [] });
    expect(res.status).toBe(500);
    expect(await res.text()).toContain("script exhausted: request #1");
  });

  test("a function script sees the recorded request; requests are recorded with their format", async () => {
    await using fake = await startFakeLlm({
      script: (req) => ({ text: `you said ${req.body.messages.at(-1).content}` }),
    });
    const res = await post(`${fake.baseUrls.openai}/chat/completions`, {
      model: "m",
      messages: [{ role: "user", content: "ping" }],
    });
    expect((await res.json()).choices[0].message.content).toBe("you said ping");
    expect(fake.requests[0]).toMatchObject({
      method: "POST",
      path: "/v1/chat/completions",
      format: "openai-chat",
      index: 0,
      body: { model: "m" },
    });
    expect(fake.requests[0].headers["content-type"]).toBe("application/json");
  });

  test("http faults carry retry-after and retry-after-ms headers and the API's error body", async () => {
    await using fake = await startFakeLlm({
      script: [{ fault: { type: "http", status: 429, retryAfterSeconds: 3, retryAfterMs: 2500 } }],
    });
    const res = await post(`${fake.url}/v1/messages`, { model: "m", messages: [] });
    expect(res.status).toBe(429);
    expect([res.headers.get("retry-after"), res.headers.get("retry-after-ms")]).toEqual(["3", "2500"]);
    expect(await res.json()).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
  });

  test("Anthropic SSE has event lines and the exact event order", async () => {
    await using fake = await startFakeLlm({
      script: [
        { thinking: "t", text: "hi", toolCalls: [{ name: "read", arguments: { path: "a-long-path" } }], chunkSize: 4 },
      ],
    });
    const text = await (await post(`${fake.url}/v1/messages`, { model: "m", stream: true, messages: [] })).text();
    const events = [...text.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
    expect(events[0]).toBe("message_start");
    expect(events.slice(-2)).toEqual(["message_delta", "message_stop"]);
    expect(events.filter((e) => e === "content_block_start")).toHaveLength(3);
    expect(text.match(/input_json_delta/g)!.length).toBeGreaterThan(2);
    expect(text).toContain('"signature_delta"');
  });

  test("Chat Completions SSE ends with a usage chunk and [DONE]", async () => {
    await using fake = await startFakeLlm({ script: [{ text: "hello", toolCalls: [{ name: "x", arguments: {} }] }] });
    const text = await (
      await post(`${fake.baseUrls.openai}/chat/completions`, {
        model: "m",
        stream: true,
        stream_options: { include_usage: true },
        messages: [],
      })
    ).text();
    const frames = text.trim().split("\n\n");
    expect(frames.at(-1)).toBe("data: [DONE]");
    expect(JSON.parse(frames.at(-2)!.slice(6))).toMatchObject({ choices: [], usage: { prompt_tokens: 10 } });
    expect(text).toContain('"tool_calls":[{"index":0');
  });

  test("close() ends a stalled stream", async () => {
    const fake = await startFakeLlm({
      script: [{ text: "abcdefgh", chunkSize: 2, fault: { type: "stall", afterChunks: 2 } }],
    });
    const res = await post(`${fake.url}/v1/messages`, { model: "m", stream: true, messages: [] });
    const reader = res.body!.getReader();
    await reader.read();
    const rest = (async () => {
      for (;;) if ((await reader.read()).done) return "ended";
    })().catch(() => "ended");
    await fake.close();
    expect(await rest).toBe("ended");
  });

  test("an unknown path is a 404 naming it", async () => {
    await using fake = await startFakeLlm({ script: [] });
    const res = await post(`${fake.url}/v2/nothing`, {});
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("/v2/nothing");
  });
});
