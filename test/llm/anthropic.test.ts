import { afterAll, describe, expect, test } from "bun:test";
import type { AssistantMessage, Message, ToolSpec } from "../../lib/llm/types.ts";
import { startFakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { ofType } from "./adapter-harness.ts";
import { collect, fakeClient, finishOf, scriptRunner } from "./fake-support.ts";

const fake = await startFakeLlm({ script: [] });
afterAll(() => fake.close());

const MODEL = "anthropic/claude-haiku-4-5";
const readTool: ToolSpec = {
  name: "read",
  description: "Read a file",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};

const run = scriptRunner(fake, MODEL);

describe("anthropic adapter through @anthropic-ai/sdk", () => {
  test("text streams as start, deltas, finish", async () => {
    const { events, response, requests } = await run([{ text: "Two plus two is four.", chunkSize: 5 }], {
      system: "Be brief.",
      messages: [{ role: "user", content: "What is 2+2?" }],
    });
    expect(events[0]).toMatchObject({ type: "start", model: MODEL });
    expect(
      ofType(events, "text_delta")
        .map((e) => e.delta)
        .join(""),
    ).toBe("Two plus two is four.");
    expect(ofType(events, "text_delta").length).toBeGreaterThan(3);
    expect(response).toMatchObject({ text: "Two plus two is four.", finishReason: "end_turn", model: MODEL });
    expect(requests[0].body).toMatchObject({
      model: "claude-haiku-4-5",
      stream: true,
      system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
    });
  });

  test("a tool call streams its arguments in pieces; the first carries a display snapshot", async () => {
    const args = { path: "/src/deeply/nested/module/file.ts" };
    const { events, response, requests } = await run(
      [{ toolCalls: [{ id: "toolu_01", name: "read", arguments: args }], chunkSize: 6 }],
      {
        tools: [readTool],
        messages: [{ role: "user", content: "read it" }],
      },
    );
    expect(ofType(events, "tool_call_start")).toMatchObject([
      { type: "tool_call_start", index: 0, id: "toolu_01", name: "read" },
    ]);
    const deltas = ofType(events, "tool_call_delta");
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.map((e) => e.delta).join("")).toBe(JSON.stringify(args));
    expect(deltas[0].partialArguments).toBeDefined();
    expect(ofType(events, "tool_call_end")[0].call).toEqual({
      type: "tool_call",
      id: "toolu_01",
      name: "read",
      arguments: args,
    });
    expect(response).toMatchObject({ finishReason: "tool_use", toolCalls: [{ id: "toolu_01", arguments: args }] });
    expect(requests[0].body.tools).toEqual([
      {
        name: "read",
        description: "Read a file",
        input_schema: readTool.parameters,
        cache_control: { type: "ephemeral" },
      },
    ]);
  });

  test("thinking round trip: the signature goes back on the next request", async () => {
    const first = await run(
      [{ thinking: "The user greets me.", thinkingSignature: "EqQBCkgIARABGAIiQL", text: "Hello!" }],
      {
        reasoningEffort: "medium",
        messages: [{ role: "user", content: "hi" }],
      },
    );
    expect(first.requests[0].body.thinking).toEqual({ type: "enabled", budget_tokens: 8192 });
    expect(
      ofType(first.events, "thinking_delta")
        .map((e) => e.delta)
        .join(""),
    ).toBe("The user greets me.");
    expect(first.response.message.content[0]).toEqual({
      type: "thinking",
      text: "The user greets me.",
      signature: "EqQBCkgIARABGAIiQL",
    });
    expect(first.response.reasoning).toBe("The user greets me.");

    const second = await run([{ text: "Again!" }], {
      reasoningEffort: "medium",
      messages: [{ role: "user", content: "hi" }, first.response.message, { role: "user", content: "again" }],
    });
    expect(second.requests[0].body.messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "The user greets me.", signature: "EqQBCkgIARABGAIiQL" },
        { type: "text", text: "Hello!" },
      ],
    });
  });

  test("adaptive thinking for models that support it; redacted thinking is sent back as redacted_thinking", async () => {
    const history: AssistantMessage = {
      role: "assistant",
      model: "anthropic/claude-opus-4-6",
      content: [
        { type: "thinking", text: "", signature: "opaque-data", redacted: true },
        { type: "text", text: "ok" },
      ],
    };
    fake.setScript([{ text: "fine" }]);
    const before = fake.requests.length;
    finishOf(
      await collect(
        fakeClient(fake).stream({
          model: "anthropic/claude-opus-4-6",
          reasoningEffort: "high",
          messages: [{ role: "user", content: "a" }, history, { role: "user", content: "b" }],
        }),
      ),
    );
    const body = fake.requests[before].body;
    expect(body.thinking).toEqual({ type: "adaptive" });
    expect(body.messages[1].content[0]).toEqual({ type: "redacted_thinking", data: "opaque-data" });
  });

  test("J.9 4.6 three tool calls keep ids and order; their results go back in one user message", async () => {
    const calls = ["A", "B", "C"].map((p, i) => ({ id: `toolu_0${i}`, name: "read", arguments: { path: p } }));
    const first = await run([{ toolCalls: calls }], {
      tools: [readTool],
      messages: [{ role: "user", content: "read A, B, C" }],
    });
    expect(first.response.toolCalls.map((c) => [c.id, c.arguments.path])).toEqual([
      ["toolu_00", "A"],
      ["toolu_01", "B"],
      ["toolu_02", "C"],
    ]);
    expect(ofType(first.events, "tool_call_end").map((e) => e.index)).toEqual([0, 1, 2]);

    const results: Message[] = first.response.toolCalls.map((c) => ({
      role: "tool",
      toolCallId: c.id,
      toolName: "read",
      content: `content of ${c.arguments.path}`,
      isError: c.id === "toolu_01",
    }));
    const second = await run([{ text: "done" }], {
      tools: [readTool],
      messages: [{ role: "user", content: "read A, B, C" }, first.response.message, ...results],
    });
    const sent = second.requests[0].body.messages;
    expect(sent).toHaveLength(3);
    expect(sent[2].role).toBe("user");
    expect(sent[2].content.map((b: any) => [b.type, b.tool_use_id, b.content, b.is_error])).toEqual([
      ["tool_result", "toolu_00", "content of A", false],
      ["tool_result", "toolu_01", "content of B", true],
      ["tool_result", "toolu_02", "content of C", false],
    ]);
    expect(sent[2].content[2].cache_control).toEqual({ type: "ephemeral" });
  });

  test("usage with cache read and write, and its cost", async () => {
    const { response } = await run(
      [{ text: "ok", usage: { input: 1000, output: 500, cacheRead: 2000, cacheWrite: 400 } }],
      { messages: [{ role: "user", content: "x" }] },
    );
    expect(response.usage).toMatchObject({ input: 1000, output: 500, cacheRead: 2000, cacheWrite: 400 });
    // haiku 4.5: $1 in, $5 out, $0.1 cache read, $1.25 cache write per million
    expect(response.usage.cost).toBeCloseTo((1000 * 1 + 500 * 5 + 2000 * 0.1 + 400 * 1.25) / 1e6, 10);
  });

  test("images are sent as base64 image blocks", async () => {
    const data = Buffer.from("fake png bytes").toString("base64");
    const { requests } = await run([{ text: "a picture" }], {
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "what is this?" },
            { type: "image", mimeType: "image/png", data },
          ],
        },
      ],
    });
    expect(requests[0].body.messages[0].content[1]).toMatchObject({
      type: "image",
      source: { type: "base64", media_type: "image/png", data },
    });
  });

  test("complete() returns text, thinking and tool calls from the JSON form", async () => {
    fake.setScript([
      {
        thinking: "hm",
        thinkingSignature: "s1",
        text: "calling",
        toolCalls: [{ id: "toolu_x", name: "read", arguments: { path: "a" } }],
      },
    ]);
    const response = await fakeClient(fake).complete({
      model: MODEL,
      tools: [readTool],
      messages: [{ role: "user", content: "go" }],
    });
    expect(response.message.content).toEqual([
      { type: "thinking", text: "hm", signature: "s1" },
      { type: "text", text: "calling" },
      { type: "tool_call", id: "toolu_x", name: "read", arguments: { path: "a" } },
    ]);
    expect(response.finishReason).toBe("tool_use");
  });
});
