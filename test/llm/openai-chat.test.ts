import { afterAll, describe, expect, test } from "bun:test";
import type { Message, ToolSpec } from "../../lib/llm/types.ts";
import { startFakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { ofType } from "./adapter-harness.ts";
import { collect, fakeClient, finishOf, scriptRunner } from "./fake-support.ts";

const fake = await startFakeLlm({ script: [] });
afterAll(() => fake.close());

const MODEL = "deepseek/deepseek-chat";
const readTool: ToolSpec = {
  name: "read",
  description: "Read a file",
  parameters: { type: "object", properties: { path: { type: "string" } } },
};

const run = scriptRunner(fake, MODEL);

describe("openai-chat adapter through the openai SDK", () => {
  test("text streams; the system prompt is a system message; usage is asked for", async () => {
    const { events, response, requests } = await run([{ text: "Four, of course.", chunkSize: 4 }], {
      system: "Be brief.",
      messages: [{ role: "user", content: "2+2?" }],
    });
    expect(events[0]).toMatchObject({ type: "start", model: MODEL });
    expect(ofType(events, "text_delta").length).toBeGreaterThan(2);
    expect(response).toMatchObject({ text: "Four, of course.", finishReason: "end_turn" });
    expect(requests[0].body).toMatchObject({
      model: "deepseek-chat",
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "2+2?" },
      ],
    });
  });

  test("tool-call deltas are accumulated by index; the first carries a display snapshot", async () => {
    const args = { path: "/home/user/project/src/index.ts" };
    const { events, response } = await run(
      [{ toolCalls: [{ id: "call_abc", name: "read", arguments: args }], chunkSize: 5 }],
      { tools: [readTool], messages: [{ role: "user", content: "read" }] },
    );
    const deltas = ofType(events, "tool_call_delta");
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.map((e) => e.delta).join("")).toBe(JSON.stringify(args));
    expect(deltas[0].partialArguments).toBeDefined();
    expect(response).toMatchObject({
      finishReason: "tool_use",
      toolCalls: [{ id: "call_abc", name: "read", arguments: args }],
    });
  });

  test("J.9 4.6 three tool calls keep ids and order; results go back as tool messages", async () => {
    const calls = ["A", "B", "C"].map((p, i) => ({ id: `call_${i}`, name: "read", arguments: { path: p } }));
    const first = await run([{ toolCalls: calls }], {
      tools: [readTool],
      messages: [{ role: "user", content: "read all" }],
    });
    expect(first.response.toolCalls.map((c) => [c.id, c.arguments.path])).toEqual([
      ["call_0", "A"],
      ["call_1", "B"],
      ["call_2", "C"],
    ]);
    const results: Message[] = calls.map((c) => ({
      role: "tool",
      toolCallId: c.id,
      toolName: "read",
      content: `got ${c.arguments.path}`,
      isError: false,
    }));
    const second = await run([{ text: "ok" }], {
      tools: [readTool],
      messages: [{ role: "user", content: "read all" }, first.response.message, ...results],
    });
    const sent = second.requests[0].body.messages;
    expect(sent[1].tool_calls.map((c: any) => [c.id, c.function.arguments])).toEqual(
      calls.map((c) => [c.id, JSON.stringify(c.arguments)]),
    );
    expect(sent.slice(2)).toEqual(
      calls.map((c) => ({ role: "tool", tool_call_id: c.id, content: `got ${c.arguments.path}` })),
    );
  });

  test("reasoning_content becomes thinking; usage subtracts cached tokens; cost from the catalog", async () => {
    const { events, response } = await run(
      [{ thinking: "Let me add.", text: "4", usage: { input: 300, cacheRead: 700, output: 50, reasoning: 20 } }],
      { messages: [{ role: "user", content: "2+2?" }] },
    );
    expect(
      ofType(events, "thinking_delta")
        .map((e) => e.delta)
        .join(""),
    ).toBe("Let me add.");
    expect(response.usage).toMatchObject({ input: 300, cacheRead: 700, output: 50, reasoning: 20 });
    expect(response.usage.cost).toBeCloseTo((300 * 0.28 + 700 * 0.028 + 50 * 0.42) / 1e6, 12);
  });

  test("reasoning_effort is sent only to servers and models that take it", async () => {
    fake.setScript([{ text: "a" }, { text: "b" }]);
    const before = fake.requests.length;
    await collect(
      fakeClient(fake).stream({
        model: "xai/grok-4",
        reasoningEffort: "high",
        messages: [{ role: "user", content: "x" }],
      }),
    );
    await collect(
      fakeClient(fake).stream({ model: MODEL, reasoningEffort: "high", messages: [{ role: "user", content: "x" }] }),
    );
    expect(fake.requests[before].body.reasoning_effort).toBe("high");
    expect(fake.requests[before + 1].body).not.toHaveProperty("reasoning_effort");
  });

  test("Mistral gets 9-character alphanumeric tool-call ids, the same in call and result", async () => {
    const history: Message[] = [
      { role: "user", content: "go" },
      {
        role: "assistant",
        model: "anthropic/claude-haiku-4-5",
        content: [{ type: "tool_call", id: "toolu_01XyZ-long_id", name: "read", arguments: { path: "a" } }],
      },
      { role: "tool", toolCallId: "toolu_01XyZ-long_id", toolName: "read", content: "A", isError: false },
    ];
    fake.setScript([{ text: "ok" }]);
    const before = fake.requests.length;
    finishOf(
      await collect(
        fakeClient(fake).stream({ model: "mistral/mistral-large-latest", tools: [readTool], messages: history }),
      ),
    );
    const sent = fake.requests[before].body.messages;
    const id = sent[1].tool_calls[0].id;
    expect(id).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(sent[2].tool_call_id).toBe(id);
  });

  test("images go as data URLs for image models", async () => {
    const data = Buffer.from("png").toString("base64");
    fake.setScript([{ text: "a cat" }]);
    const before = fake.requests.length;
    finishOf(
      await collect(
        fakeClient(fake).stream({
          model: "xai/grok-4",
          messages: [
            {
              role: "user",
              content: [
                { type: "text", text: "?" },
                { type: "image", mimeType: "image/png", data },
              ],
            },
          ],
        }),
      ),
    );
    expect(fake.requests[before].body.messages[0].content[1]).toEqual({
      type: "image_url",
      image_url: { url: `data:image/png;base64,${data}` },
    });
  });

  test("complete() reads the JSON form with tool calls and reasoning", async () => {
    fake.setScript([
      {
        thinking: "hm",
        text: "calling",
        toolCalls: [{ id: "call_9", name: "read", arguments: { path: "z" } }],
        usage: { input: 10, output: 5 },
      },
    ]);
    const response = await fakeClient(fake).complete({
      model: MODEL,
      tools: [readTool],
      messages: [{ role: "user", content: "go" }],
    });
    expect(response.message.content).toEqual([
      { type: "thinking", text: "hm" },
      { type: "text", text: "calling" },
      { type: "tool_call", id: "call_9", name: "read", arguments: { path: "z" } },
    ]);
    expect(response).toMatchObject({ finishReason: "tool_use", usage: { input: 10, output: 5 } });
  });
});
