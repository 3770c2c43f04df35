/**
 * Freeform (custom) tools on the OpenAI Responses API: a tool with a grammar is sent as a custom
 * tool, the model's custom_tool_call (raw text, streamed as input deltas) becomes a call with
 * `{ input }`, and it goes back as custom_tool_call / custom_tool_call_output. On Chat Completions
 * the same tool is an ordinary function tool `{ input }`.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { openaiChatAdapter } from "../../lib/llm/adapters/openai-chat.ts";
import { openaiResponsesAdapter as adapter } from "../../lib/llm/adapters/openai-responses.ts";
import type { Message, Request, ToolSpec } from "../../lib/llm/types.ts";
import { startFakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { contextFor, finished, ofType } from "./adapter-harness.ts";
import { collect } from "./fake-support.ts";

const MODEL = "openai/gpt-5";
const fake = await startFakeLlm({ script: [] });
afterAll(() => fake.close());

const GRAMMAR = 'start: "go " WORD\n%import common.WORD\n';
const freeformTool: ToolSpec = {
  name: "shout",
  description: "Shouts a word.",
  parameters: { type: "object", properties: { input: { type: "string" } }, required: ["input"] },
  format: { type: "grammar", syntax: "lark", definition: GRAMMAR },
};
const functionTool: ToolSpec = {
  name: "ls",
  description: "Lists.",
  parameters: { type: "object", properties: { path: { type: "string" } } },
};
const request = (messages: Message[] = [{ role: "user", content: "go" }]): Request => ({
  model: MODEL,
  messages,
  tools: [freeformTool, functionTool],
});
const lastBody = () => fake.requests.at(-1)?.body;

describe("freeform tools on the Responses API", () => {
  test("a tool with a format is sent as a custom tool with its grammar; others stay function tools", async () => {
    fake.setScript([{ text: "ok" }]);
    await collect(adapter.stream(request(), contextFor(MODEL, fake.baseUrls.openai)));
    expect(lastBody().tools).toEqual([
      {
        type: "custom",
        name: "shout",
        description: "Shouts a word.",
        format: { type: "grammar", syntax: "lark", definition: GRAMMAR },
      },
      { type: "function", name: "ls", description: "Lists.", parameters: functionTool.parameters, strict: false },
    ]);
  });

  test("forcing a freeform tool names it as a custom tool choice", async () => {
    fake.setScript([{ text: "ok" }]);
    await collect(
      adapter.stream({ ...request(), toolChoice: { name: "shout" } }, contextFor(MODEL, fake.baseUrls.openai)),
    );
    expect(lastBody().tool_choice).toEqual({ type: "custom", name: "shout" });
    fake.setScript([{ text: "ok" }]);
    await collect(
      adapter.stream({ ...request(), toolChoice: { name: "ls" } }, contextFor(MODEL, fake.baseUrls.openai)),
    );
    expect(lastBody().tool_choice).toEqual({ type: "function", name: "ls" });
  });

  test("a streamed custom_tool_call becomes a tool call with { input }, its deltas growing the input", async () => {
    fake.setScript([{ toolCalls: [{ name: "shout", arguments: { input: "go loudly-and-clearly" } }], chunkSize: 5 }]);
    const events = await collect(adapter.stream(request(), contextFor(MODEL, fake.baseUrls.openai)));
    const deltas = ofType(events, "tool_call_delta");
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.map((d) => d.delta).join("")).toBe("go loudly-and-clearly");
    // Snapshots come with the first piece and then a few times a second (not with every piece).
    expect(deltas[0].partialArguments).toEqual({ input: deltas[0].delta });
    const [end] = ofType(events, "tool_call_end");
    expect(end.call).toMatchObject({
      name: "shout",
      arguments: { input: "go loudly-and-clearly" },
      providerData: { freeform: true },
    });
    const response = finished(events);
    expect(response.finishReason).toBe("tool_use");
  });

  test("complete() maps a custom_tool_call the same way", async () => {
    fake.setScript([{ toolCalls: [{ name: "shout", arguments: { input: "go now" } }] }]);
    const response = await adapter.complete(request(), contextFor(MODEL, fake.baseUrls.openai));
    expect(response.toolCalls).toEqual([expect.objectContaining({ name: "shout", arguments: { input: "go now" } })]);
  });

  test("the call and its result go back as custom_tool_call and custom_tool_call_output", async () => {
    fake.setScript([
      {
        toolCalls: [
          { name: "shout", arguments: { input: "go far" } },
          { name: "ls", arguments: { path: "." } },
        ],
      },
      { text: "done" },
    ]);
    const first = finished(await collect(adapter.stream(request(), contextFor(MODEL, fake.baseUrls.openai))));
    const results: Message[] = first.toolCalls.map((c) => ({
      role: "tool",
      toolCallId: c.id,
      toolName: c.name,
      content: `ran ${c.name}`,
      isError: false,
    }));
    await collect(
      adapter.stream(
        request([{ role: "user", content: "go" }, first.message, ...results]),
        contextFor(MODEL, fake.baseUrls.openai),
      ),
    );
    const input = lastBody().input;
    const [shoutCall, lsCall] = first.toolCalls.map((c) => c.id.split("|")[0]);
    expect(input).toContainEqual({
      type: "custom_tool_call",
      call_id: shoutCall,
      name: "shout",
      input: "go far",
      id: expect.stringMatching(/^ctc_/),
    });
    expect(input).toContainEqual({ type: "custom_tool_call_output", call_id: shoutCall, output: "ran shout" });
    expect(input).toContainEqual(expect.objectContaining({ type: "function_call", call_id: lsCall, name: "ls" }));
    expect(input).toContainEqual({ type: "function_call_output", call_id: lsCall, output: "ran ls" });
  });
});

describe("freeform tools on Chat Completions", () => {
  test("the same tool is a function tool taking { input }", async () => {
    fake.setScript([{ toolCalls: [{ name: "shout", arguments: { input: "go there" } }] }]);
    const ref = "openai/gpt-4.1";
    const events = await collect(
      openaiChatAdapter.stream({ ...request(), model: ref }, contextFor(ref, fake.baseUrls.openai)),
    );
    const tools = lastBody().tools;
    expect(tools[0]).toEqual({
      type: "function",
      function: expect.objectContaining({ name: "shout", parameters: freeformTool.parameters }),
    });
    expect(finished(events).toolCalls[0]).toMatchObject({ name: "shout", arguments: { input: "go there" } });
  });
});
