/** The OpenAI Responses adapter through the official `openai` SDK against the fake LLM server. */
import { afterAll, describe, expect, test } from "bun:test";
import { openaiResponsesAdapter as adapter } from "../../lib/llm/adapters/openai-responses.ts";
import { getModel } from "../../lib/llm/catalog.ts";
import type { AssistantMessage, Message, Request, ToolResultMessage } from "../../lib/llm/types.ts";
import { costOf } from "../../lib/llm/usage.ts";
import { startFakeLlm } from "../../lib/testing/fake-llm/server.ts";
import type { Fault, ScriptTurn } from "../../lib/testing/fake-llm/types.ts";
import { contextFor, finished, llmError, ofType } from "./adapter-harness.ts";
import { collect } from "./fake-support.ts";

const MODEL = "openai/gpt-5";
const fake = await startFakeLlm({ script: [] });
afterAll(() => fake.close());

const ctx = (signal?: AbortSignal, ref = MODEL) => contextFor(ref, fake.baseUrls.openai, signal);
const ask = (text: string, extra: Partial<Request> = {}): Request => ({
  model: MODEL,
  messages: [{ role: "user", content: text }],
  ...extra,
});
const lastBody = () => fake.requests.at(-1)?.body;

async function streamTurn(turn: ScriptTurn, request: Request = ask("hi"), ref = MODEL) {
  fake.setScript([turn]);
  const events = await collect(adapter.stream({ ...request, model: ref }, ctx(undefined, ref)));
  return { events, response: finished(events) };
}

const toolResults = (message: AssistantMessage): ToolResultMessage[] =>
  message.content.flatMap((p) =>
    p.type === "tool_call"
      ? [
          {
            role: "tool" as const,
            toolCallId: p.id,
            toolName: p.name,
            content: `result of ${p.name} ${JSON.stringify(p.arguments)}`,
            isError: false,
          },
        ]
      : [],
  );

describe("openai-responses adapter", () => {
  test("J.11 text prompt streams start, text deltas and one finish; the request is stateless", async () => {
    const text = "Hello from the Responses API, in several pieces.";
    const { events, response } = await streamTurn(
      { text, chunkSize: 6 },
      ask("hi", { system: "Be brief.", reasoningEffort: "high", maxTokens: 500 }),
    );
    expect(events[0]).toEqual({ type: "start", model: MODEL });
    const deltas = ofType(events, "text_delta");
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.map((d) => d.delta).join("")).toBe(text);
    expect(response.text).toBe(text);
    expect(response.finishReason).toBe("end_turn");
    expect(response.message).toMatchObject({ role: "assistant", model: MODEL, content: [{ type: "text", text }] });
    expect(response.id).toStartWith("resp_");

    const request = fake.requests.at(-1)!;
    expect(request.path).toBe("/v1/responses");
    expect(request.headers.authorization).toBe("Bearer test-key");
    expect(request.body).toMatchObject({
      model: "gpt-5",
      instructions: "Be brief.",
      store: false,
      stream: true,
      include: ["reasoning.encrypted_content"],
      reasoning: { effort: "high", summary: "auto" },
      max_output_tokens: 500,
      input: [{ role: "user", content: "hi" }],
    });
  });

  test("a model without reasoning gets a temperature and no reasoning options", async () => {
    await streamTurn({ text: "ok" }, ask("hi", { temperature: 0.2 }), "openai/gpt-4.1");
    expect(lastBody()).toMatchObject({ model: "gpt-4.1", temperature: 0.2 });
    expect(lastBody().reasoning).toBeUndefined();
    expect(lastBody().include).toBeUndefined();
  });

  test("usage: input excludes cached tokens, reasoning is counted, cost comes from the catalog", async () => {
    const { response } = await streamTurn({
      text: "ok",
      usage: { input: 1000, cacheRead: 400, output: 200, reasoning: 50 },
    });
    expect(response.usage).toMatchObject({ input: 1000, cacheRead: 400, output: 200, reasoning: 50, cacheWrite: 0 });
    const expected = costOf(response.usage, getModel(MODEL));
    expect(expected).toBeGreaterThan(0);
    expect(response.usage.cost).toBeCloseTo(expected, 12);
    expect(response.message.usage).toEqual(response.usage);
  });

  test("003 §12 tool-call arguments arrive in pieces; display snapshots are lenient parses", async () => {
    const args = { path: "src/main.ts", content: "export const answer = 42;\n" };
    const { events, response } = await streamTurn({ toolCalls: [{ name: "write", arguments: args }], chunkSize: 7 });
    const [start] = ofType(events, "tool_call_start");
    expect(start).toMatchObject({ index: 0, name: "write" });
    expect(start.id).toMatch(/^call_[^|]+\|fc_/);
    const deltas = ofType(events, "tool_call_delta");
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.map((d) => d.delta).join("")).toBe(JSON.stringify(args));
    expect(deltas.every((d) => d.id === start.id && d.index === 0)).toBe(true);
    // Snapshots come with the first piece and then at most a few times a second (parsing is for display).
    expect(deltas[0].partialArguments).toBeDefined();
    expect(deltas.filter((d) => d.partialArguments).length).toBeLessThan(deltas.length);
    const [end] = ofType(events, "tool_call_end");
    expect(end.call).toEqual({ type: "tool_call", id: start.id, name: "write", arguments: args });
    expect(response.finishReason).toBe("tool_use");
    expect(response.toolCalls).toEqual([end.call]);
  });

  test("reasoning summary streams as thinking; encrypted content goes back to the same model", async () => {
    const first = await streamTurn({
      thinking: "The user greets me. I should greet back.",
      thinkingSignature: "gAAAA-encrypted-1",
      text: "Hello!",
    });
    expect(
      ofType(first.events, "thinking_delta")
        .map((d) => d.delta)
        .join(""),
    ).toBe("The user greets me. I should greet back.");
    const [thinking] = first.response.message.content;
    expect(thinking).toMatchObject({ type: "thinking", text: "The user greets me. I should greet back." });
    expect(first.response.reasoning).toBe("The user greets me. I should greet back.");

    const history: Message[] = [
      { role: "user", content: "hi" },
      first.response.message,
      { role: "user", content: "again" },
    ];
    await streamTurn({ text: "Hello again!" }, { model: MODEL, messages: history });
    const input = lastBody().input;
    expect(input[1]).toEqual({
      type: "reasoning",
      id: expect.stringMatching(/^rs_/),
      encrypted_content: "gAAAA-encrypted-1",
      summary: [{ type: "summary_text", text: "The user greets me. I should greet back." }],
    });
    expect(input[2]).toMatchObject({
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: "Hello!" }],
    });
    expect(input[3]).toEqual({ role: "user", content: "again" });
  });

  test("another model gets neither the encrypted reasoning nor the item ids", async () => {
    const first = await streamTurn({
      thinking: "plan",
      thinkingSignature: "gAAAA-encrypted-2",
      toolCalls: [{ name: "ls", arguments: { path: "." } }],
    });
    const history: Message[] = [
      { role: "user", content: "list" },
      first.response.message,
      ...toolResults(first.response.message),
    ];
    await streamTurn({ text: "done" }, { model: "openai/gpt-5.2", messages: history }, "openai/gpt-5.2");
    const input = lastBody().input;
    expect(input.some((item: any) => item.type === "reasoning")).toBe(false);
    const call = input.find((item: any) => item.type === "function_call");
    expect(call.id).toBeUndefined();
    expect(call.call_id).toBe(first.response.toolCalls[0].id.split("|")[0]);
  });

  test("J.9 4.6 three tool calls keep their ids and order, and each result maps back to its call", async () => {
    const calls = ["a.txt", "b.txt", "c.txt"].map((path) => ({ name: "read", arguments: { path } }));
    const first = await streamTurn({
      thinking: "read all three",
      thinkingSignature: "gAAAA-encrypted-3",
      toolCalls: calls,
      chunkSize: 4,
    });
    const starts = ofType(first.events, "tool_call_start");
    const ends = ofType(first.events, "tool_call_end");
    expect(starts.map((s) => s.index)).toEqual([0, 1, 2]);
    expect(ends.map((e) => e.call.id)).toEqual(starts.map((s) => s.id));
    expect(new Set(starts.map((s) => s.id)).size).toBe(3);
    expect(first.response.toolCalls.map((c) => c.arguments.path)).toEqual(["a.txt", "b.txt", "c.txt"]);

    // Results in a different order than the calls still pair by id.
    const results = toolResults(first.response.message).reverse();
    await streamTurn(
      { text: "all read" },
      { model: MODEL, messages: [{ role: "user", content: "read" }, first.response.message, ...results] },
    );
    const input = lastBody().input;
    expect(input.map((item: any) => item.type ?? item.role)).toEqual([
      "user",
      "reasoning",
      "function_call",
      "function_call",
      "function_call",
      "function_call_output",
      "function_call_output",
      "function_call_output",
    ]);
    const sent = input.filter((item: any) => item.type === "function_call");
    expect(sent.map((c: any) => `${c.call_id}|${c.id}`)).toEqual(starts.map((s) => s.id));
    for (const output of input.filter((item: any) => item.type === "function_call_output")) {
      const call = sent.find((c: any) => c.call_id === output.call_id);
      expect(output.output).toBe(`result of read ${call.arguments}`);
    }
  });

  test("003 §4.3 a call id longer than the API allows is shortened alike in the call and its result", async () => {
    const longId = `call_${"x".repeat(300)}`;
    const first = await streamTurn({ toolCalls: [{ id: longId, name: "ls", arguments: {} }] });
    const call = first.response.toolCalls[0];
    expect(call.id.startsWith(`${longId}|fc_`)).toBe(true);
    await streamTurn(
      { text: "ok" },
      {
        model: MODEL,
        messages: [{ role: "user", content: "ls" }, first.response.message, ...toolResults(first.response.message)],
      },
    );
    const input = lastBody().input;
    const sent = input.find((item: any) => item.type === "function_call");
    const output = input.find((item: any) => item.type === "function_call_output");
    expect(sent.call_id.length).toBeLessThanOrEqual(64);
    expect(sent.call_id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(output.call_id).toBe(sent.call_id);
    expect(sent.id).toMatch(/^fc_/);
  });

  test("an incomplete response (max_output_tokens) finishes with length", async () => {
    const { response } = await streamTurn({ text: "cut sho", finishReason: "length" });
    expect(response.finishReason).toBe("max_tokens");
    expect(response.text).toBe("cut sho");
  });

  test("complete() reads the JSON response: reasoning, text, tool calls and usage", async () => {
    fake.setScript([
      {
        thinking: "think",
        thinkingSignature: "gAAAA-encrypted-4",
        text: "Reading.",
        toolCalls: [{ name: "read", arguments: { path: "x" } }],
        usage: { input: 50, cacheRead: 10, output: 5 },
      },
    ]);
    const response = await adapter.complete(ask("read x"), ctx());
    expect(lastBody().stream).toBe(false);
    expect(response.message.content.map((p) => p.type)).toEqual(["thinking", "text", "tool_call"]);
    expect(JSON.parse((response.message.content[0] as { signature: string }).signature)).toMatchObject({
      encrypted_content: "gAAAA-encrypted-4",
    });
    expect(response.text).toBe("Reading.");
    expect(response.toolCalls[0]).toMatchObject({ name: "read", arguments: { path: "x" } });
    expect(response.toolCalls[0].id).toMatch(/^call_.+\|fc_/);
    expect(response.finishReason).toBe("tool_use");
    expect(response.usage).toMatchObject({ input: 50, cacheRead: 10, output: 5 });
  });

  test("J.9 4.5 string or null content is sent, not crashed on; images go as input_image", async () => {
    const image = { type: "image" as const, mimeType: "image/png", data: "iVBORw0KGgo=" };
    const messages = [
      { role: "user", content: [{ type: "text", text: "look" }, image] },
      { role: "assistant", content: "plain string" },
      { role: "assistant", content: null },
      { role: "user", content: "b" },
    ] as unknown as Message[];
    await streamTurn({ text: "ok" }, { model: MODEL, messages });
    const input = lastBody().input;
    expect(input.map((i: any) => i.role)).toEqual(["user", "assistant", "user"]);
    expect(input[0].content).toEqual([
      { type: "input_text", text: "look" },
      { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=", detail: "auto" },
    ]);
    expect(input[1].content).toEqual([{ type: "output_text", text: "plain string", annotations: [] }]);
  });
});

describe("openai-responses faults", () => {
  const cases: { name: string; fault: Fault; kind: string; status?: number; check?: (message: string) => void }[] = [
    {
      name: "J.9 4.3 429 is a rate limit carrying retry-after",
      fault: { type: "http", status: 429, retryAfterSeconds: 3 },
      kind: "rate_limit",
      status: 429,
    },
    { name: "500 is a server error", fault: { type: "http", status: 500 }, kind: "server", status: 500 },
    { name: "503 is overloaded", fault: { type: "http", status: 503 }, kind: "overloaded", status: 503 },
    {
      name: "J.9 5.6 401 is an auth error",
      fault: { type: "http", status: 401, message: "Incorrect API key provided: test-key." },
      kind: "auth",
      status: 401,
    },
    {
      name: "003 §4.4 overflow wording is a context overflow",
      fault: { type: "overflow" },
      kind: "context_overflow",
      status: 400,
    },
    {
      name: "J.9 5.3 an invalid request is not taken for an overflow",
      fault: { type: "invalid_request", message: "Invalid value for 'tool_choice'." },
      kind: "invalid_request",
      status: 400,
    },
    {
      name: "an error event after 200 is a server error",
      fault: { type: "error_event", afterChunks: 4, message: "The server had an error processing your request." },
      kind: "server",
    },
    {
      name: "J.9 5.1 a dropped connection is a network error",
      fault: { type: "drop", afterChunks: 4 },
      kind: "network",
    },
    { name: "J.9 5.2 a malformed event is a server error, not a crash", fault: { type: "malformed" }, kind: "server" },
  ];

  for (const c of cases) {
    test(`stream: ${c.name}`, async () => {
      fake.setScript([{ text: "partial answer that will not finish", fault: c.fault }]);
      const err = await llmError(() => collect(adapter.stream(ask("hi"), ctx())), c.kind as never);
      expect(err.status).toBe(c.status);
      if (c.fault.type === "http" && c.fault.retryAfterSeconds)
        expect(err.retryAfterMs).toBe(c.fault.retryAfterSeconds * 1000);
    });
  }

  test("complete: 429 and a truncated JSON body are classified too", async () => {
    fake.setScript([
      { text: "x", fault: { type: "http", status: 429, retryAfterMs: 1500 } },
      { text: "x", fault: { type: "malformed" } },
    ]);
    const limited = await llmError(() => adapter.complete(ask("hi"), ctx()), "rate_limit");
    expect(limited.retryAfterMs).toBe(1500);
    await llmError(() => adapter.complete(ask("hi"), ctx()), "server");
  });

  test("abort ends the stream with an aborted error", async () => {
    fake.setScript([{ text: "a long answer ".repeat(40), chunkSize: 4, chunkDelayMs: 20 }]);
    const controller = new AbortController();
    const seen: string[] = [];
    const err = await llmError(async () => {
      for await (const batch of adapter.stream(ask("hi"), ctx(controller.signal)))
        for (const event of batch) {
          if (event.type === "text_delta") {
            seen.push(event.delta);
            if (seen.length === 2) controller.abort();
          }
        }
    }, "aborted");
    expect(err.kind).toBe("aborted");
    expect(seen.length).toBeLessThan(20);
  });
});
