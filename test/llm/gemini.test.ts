/** The Gemini adapter through the official `@google/genai` SDK against the fake LLM server. */
import { afterAll, describe, expect, test } from "bun:test";
import { createServer } from "node:http";
import { geminiAdapter as adapter } from "../../lib/llm/adapters/gemini.ts";
import { getModel } from "../../lib/llm/catalog.ts";
import type { AssistantMessage, Message, Request, ToolResultMessage } from "../../lib/llm/types.ts";
import { costOf } from "../../lib/llm/usage.ts";
import { geminiFormat } from "../../lib/testing/fake-llm/formats/gemini.ts";
import { startFakeLlm } from "../../lib/testing/fake-llm/server.ts";
import type { Fault, ScriptTurn } from "../../lib/testing/fake-llm/types.ts";
import { contextFor, finished, llmError, ofType } from "./adapter-harness.ts";
import { collect } from "./fake-support.ts";

const MODEL = "gemini/gemini-2.5-pro";
const fake = await startFakeLlm({ script: [] });
afterAll(() => fake.close());

const ctx = (signal?: AbortSignal, ref = MODEL) => contextFor(ref, fake.baseUrls.gemini, signal);
const ask = (text: string, extra: Partial<Request> = {}): Request => ({
  model: MODEL,
  messages: [{ role: "user", content: text }],
  ...extra,
});
const last = () => fake.requests.at(-1)!;

async function streamTurn(turn: ScriptTurn, request: Request = ask("hi"), ref = request.model) {
  fake.setScript([turn]);
  const events = await collect(adapter.stream(request, ctx(undefined, ref)));
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
            content: `contents of ${p.arguments.path}`,
            isError: false,
          },
        ]
      : [],
  );

describe("gemini adapter", () => {
  test("J.11 text prompt streams start, text deltas and one finish over SSE", async () => {
    const text = "Hello from Gemini, streamed in pieces.";
    const { events, response } = await streamTurn(
      { text, chunkSize: 5 },
      ask("hi", { system: "Be brief.", maxTokens: 300, temperature: 0.3 }),
    );
    expect(events[0]).toEqual({ type: "start", model: MODEL });
    const deltas = ofType(events, "text_delta");
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.map((d) => d.delta).join("")).toBe(text);
    expect(response).toMatchObject({
      text,
      finishReason: "end_turn",
      model: MODEL,
      message: { role: "assistant", content: [{ type: "text", text }] },
    });

    const request = last();
    expect(request.path).toBe("/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse");
    expect(request.headers["x-goog-api-key"]).toBe("test-key");
    expect(request.body).toMatchObject({
      contents: [{ role: "user", parts: [{ text: "hi" }] }],
      systemInstruction: { parts: [{ text: "Be brief." }] },
      generationConfig: { maxOutputTokens: 300, temperature: 0.3, thinkingConfig: { includeThoughts: true } },
    });
  });

  test("2.7 reasoning effort becomes a thinking budget (2.5) or a thinking level (3)", async () => {
    const thinkingFor = async (ref: string, reasoningEffort: Request["reasoningEffort"]) => {
      fake.setScript([{ text: "ok" }]);
      await adapter.complete(ask("hi", { model: ref, reasoningEffort }), ctx(undefined, ref));
      return last().body.generationConfig?.thinkingConfig;
    };
    expect(await thinkingFor(MODEL, "low")).toEqual({ includeThoughts: true, thinkingBudget: 2048 });
    expect(await thinkingFor("gemini/gemini-2.5-flash", "high")).toEqual({
      includeThoughts: true,
      thinkingBudget: 24576,
    });
    expect(await thinkingFor(MODEL, null)).toEqual({ includeThoughts: true });
    expect(await thinkingFor("gemini/gemini-3-pro-preview", "medium")).toEqual({
      includeThoughts: true,
      thinkingLevel: "HIGH",
    });
    expect(await thinkingFor("gemini/gemini-3-flash-preview", "medium")).toEqual({
      includeThoughts: true,
      thinkingLevel: "MEDIUM",
    });
    expect(await thinkingFor("gemini/gemini-3-flash-preview", "low")).toEqual({
      includeThoughts: true,
      thinkingLevel: "LOW",
    });
  });

  test("tools go as JSON Schema declarations; tool choice becomes a function-calling mode", async () => {
    const parameters = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { path: { type: "string" } },
      required: ["path"],
      additionalProperties: false,
    };
    await streamTurn(
      { text: "ok" },
      ask("hi", { tools: [{ name: "read", description: "Read a file", parameters }], toolChoice: { name: "read" } }),
    );
    const { $schema: _dropped, ...accepted } = parameters;
    expect(last().body.tools).toEqual([
      { functionDeclarations: [{ name: "read", description: "Read a file", parametersJsonSchema: accepted }] },
    ]);
    expect(last().body.toolConfig).toEqual({ functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["read"] } });
  });

  test("usage: cached tokens leave input, thoughts count as output and reasoning, cost from the catalog", async () => {
    const { response } = await streamTurn({
      text: "ok",
      usage: { input: 900, cacheRead: 100, output: 120, reasoning: 40 },
    });
    expect(response.usage).toMatchObject({ input: 900, cacheRead: 100, output: 120, reasoning: 40, cacheWrite: 0 });
    const expected = costOf(response.usage, getModel(MODEL));
    expect(expected).toBeGreaterThan(0);
    expect(response.usage.cost).toBeCloseTo(expected, 12);
  });

  test("a function call streams as start, one whole delta and end, with a generated id", async () => {
    const args = { path: "src/app.ts", limit: 20 };
    const { events, response } = await streamTurn({ toolCalls: [{ name: "read", arguments: args }] });
    const [start] = ofType(events, "tool_call_start");
    const deltas = ofType(events, "tool_call_delta");
    const [end] = ofType(events, "tool_call_end");
    expect(start).toMatchObject({ index: 0, name: "read" });
    expect(start.id).toMatch(/^call_\w+$/);
    expect(deltas).toEqual([
      { type: "tool_call_delta", index: 0, id: start.id, delta: JSON.stringify(args), partialArguments: args },
    ]);
    expect(end.call).toEqual({ type: "tool_call", id: start.id, name: "read", arguments: args });
    expect(response.finishReason).toBe("tool_use");
    expect(response.toolCalls).toEqual([end.call]);
  });

  test("thought parts stream as thinking; thought and its signature go back to the same model", async () => {
    const first = await streamTurn({
      thinking: "The user says hi.",
      thinkingSignature: "c2lnLXRob3VnaHQ=",
      text: "Hi!",
    });
    expect(
      ofType(first.events, "thinking_delta")
        .map((d) => d.delta)
        .join(""),
    ).toBe("The user says hi.");
    expect(first.response.message.content).toEqual([
      { type: "thinking", text: "The user says hi.", signature: "c2lnLXRob3VnaHQ=" },
      { type: "text", text: "Hi!" },
    ]);
    await streamTurn(
      { text: "again" },
      {
        model: MODEL,
        messages: [{ role: "user", content: "hi" }, first.response.message, { role: "user", content: "hi again" }],
      },
    );
    expect(last().body.contents[1]).toEqual({
      role: "model",
      parts: [{ text: "The user says hi.", thought: true, thoughtSignature: "c2lnLXRob3VnaHQ=" }, { text: "Hi!" }],
    });
  });

  test("a signature on a text part goes back on that text part", async () => {
    const first = await streamTurn({ text: "Plain answer.", thinkingSignature: "c2lnLXRleHQ=" });
    expect(first.response.text).toBe("Plain answer.");
    await streamTurn(
      { text: "ok" },
      {
        model: MODEL,
        messages: [{ role: "user", content: "q" }, first.response.message, { role: "user", content: "more" }],
      },
    );
    expect(last().body.contents[1]).toEqual({
      role: "model",
      parts: [{ text: "Plain answer.", thoughtSignature: "c2lnLXRleHQ=" }],
    });
  });

  test("a function call's thoughtSignature goes back on the function call part, only to the same model", async () => {
    const first = await streamTurn({
      thinking: "I need the file.",
      thinkingSignature: "c2lnLWNhbGw=",
      toolCalls: [{ name: "read", arguments: { path: "a.ts" } }],
    });
    expect(first.response.toolCalls[0].providerData).toEqual({ thoughtSignature: "c2lnLWNhbGw=" });
    const history: Message[] = [
      { role: "user", content: "read a.ts" },
      first.response.message,
      ...toolResults(first.response.message),
    ];

    await streamTurn({ text: "done" }, { model: MODEL, messages: history });
    expect(last().body.contents[1].parts).toEqual([
      { text: "I need the file.", thought: true },
      { functionCall: { name: "read", args: { path: "a.ts" } }, thoughtSignature: "c2lnLWNhbGw=" },
    ]);

    // Another Gemini 3 model cannot check this signature: Google's documented stand-in goes instead.
    const other = "gemini/gemini-3-flash-preview";
    await streamTurn({ text: "done" }, { model: other, messages: history }, other);
    expect(last().body.contents[1].parts).toEqual([
      { functionCall: { name: "read", args: { path: "a.ts" } }, thoughtSignature: "skip_thought_signature_validator" },
    ]);
  });

  test("J.9 4.6 three function calls keep ids and order; results go back together, by name, in call order", async () => {
    const calls = ["a.ts", "b.ts", "c.ts"].map((path) => ({ name: "read", arguments: { path } }));
    const first = await streamTurn({ toolCalls: calls, thinkingSignature: "c2lnLTM=" });
    const starts = ofType(first.events, "tool_call_start");
    expect(starts.map((s) => s.index)).toEqual([0, 1, 2]);
    expect(new Set(starts.map((s) => s.id)).size).toBe(3);
    expect(ofType(first.events, "tool_call_end").map((e) => e.call.id)).toEqual(starts.map((s) => s.id));
    expect(first.response.toolCalls.map((c) => c.arguments.path)).toEqual(["a.ts", "b.ts", "c.ts"]);

    await streamTurn(
      { text: "read all" },
      {
        model: MODEL,
        messages: [{ role: "user", content: "read" }, first.response.message, ...toolResults(first.response.message)],
      },
    );
    const contents = last().body.contents;
    expect(contents).toHaveLength(3);
    expect(contents[1].parts.map((p: any) => p.functionCall.args.path)).toEqual(["a.ts", "b.ts", "c.ts"]);
    expect(contents[2]).toEqual({
      role: "user",
      parts: ["a.ts", "b.ts", "c.ts"].map((path) => ({
        functionResponse: { name: "read", response: { output: `contents of ${path}` } },
      })),
    });
  });

  test("ids Gemini gives its calls are kept and echoed on the results", async () => {
    const first = await streamTurn({ toolCalls: [{ id: "gem-call-1", name: "ls", arguments: { path: "." } }] });
    expect(first.response.toolCalls[0].id).toBe("gem-call-1");
    const error: ToolResultMessage = {
      role: "tool",
      toolCallId: "gem-call-1",
      toolName: "ls",
      content: "ACCESS_DENIED",
      isError: true,
    };
    await streamTurn(
      { text: "ok" },
      { model: MODEL, messages: [{ role: "user", content: "ls" }, first.response.message, error] },
    );
    expect(last().body.contents[1].parts[0].functionCall.id).toBe("gem-call-1");
    expect(last().body.contents[2].parts).toEqual([
      { functionResponse: { id: "gem-call-1", name: "ls", response: { error: "ACCESS_DENIED" } } },
    ]);
  });

  test("J.9 4.5 string or null content is sent, not crashed on; images go as inline data", async () => {
    const image = { type: "image" as const, mimeType: "image/png", data: "iVBORw0KGgo=" };
    const messages = [
      { role: "user", content: [{ type: "text", text: "look" }, image] },
      { role: "assistant", content: "plain string" },
      { role: "assistant", content: null },
      { role: "user", content: null },
      { role: "user", content: "b" },
    ] as unknown as Message[];
    await streamTurn({ text: "ok" }, { model: MODEL, messages });
    expect(last().body.contents).toEqual([
      { role: "user", parts: [{ text: "look" }, { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } }] },
      { role: "model", parts: [{ text: "plain string" }] },
      { role: "user", parts: [{ text: "b" }] },
    ]);
  });

  test("complete() reads the JSON answer; MAX_TOKENS finishes with length", async () => {
    fake.setScript([{ thinking: "hm", text: "Cut", finishReason: "max_tokens", usage: { input: 10, output: 3 } }]);
    const response = await adapter.complete(ask("hi"), ctx());
    expect(last().path).toBe("/v1beta/models/gemini-2.5-pro:generateContent");
    expect(response.message.content).toEqual([
      { type: "thinking", text: "hm" },
      { type: "text", text: "Cut" },
    ]);
    expect(response).toMatchObject({
      text: "Cut",
      reasoning: "hm",
      finishReason: "max_tokens",
      usage: { input: 10, output: 3 },
    });
  });
});

describe("gemini faults", () => {
  const cases: { name: string; fault: Fault; kind: string; status?: number }[] = [
    {
      name: "J.9 4.3 429 RESOURCE_EXHAUSTED is a rate limit",
      fault: { type: "http", status: 429 },
      kind: "rate_limit",
      status: 429,
    },
    { name: "500 INTERNAL is a server error", fault: { type: "http", status: 500 }, kind: "server", status: 500 },
    { name: "503 UNAVAILABLE is overloaded", fault: { type: "http", status: 503 }, kind: "overloaded", status: 503 },
    {
      name: "J.9 5.6 401 is an auth error",
      fault: { type: "http", status: 401, message: "API key not valid. Please pass a valid API key." },
      kind: "auth",
      status: 401,
    },
    {
      name: "003 §4.4 input token count wording is a context overflow",
      fault: { type: "overflow" },
      kind: "context_overflow",
      status: 400,
    },
    {
      name: "J.9 5.3 an invalid argument is not taken for an overflow",
      fault: { type: "invalid_request", message: "Request contains an invalid argument." },
      kind: "invalid_request",
      status: 400,
    },
    {
      name: "an error chunk after 200 is classified by its code",
      fault: { type: "error_event", afterChunks: 2, message: "The model is overloaded. Please try again later." },
      kind: "overloaded",
      status: 503,
    },
    {
      name: "J.9 5.1 a dropped connection is a network error",
      fault: { type: "drop", afterChunks: 2 },
      kind: "network",
    },
    { name: "J.9 5.2 a malformed chunk is a server error, not a crash", fault: { type: "malformed" }, kind: "server" },
  ];

  for (const c of cases) {
    test(`stream: ${c.name}`, async () => {
      fake.setScript([{ text: "partial answer that will not finish", fault: c.fault }]);
      const err = await llmError(() => collect(adapter.stream(ask("hi"), ctx())), c.kind as never);
      expect(err.status).toBe(c.status);
      if (c.fault.type === "overflow")
        expect(err.message).toContain(
          "The input token count (1196266) exceeds the maximum number of tokens allowed (1048576).",
        );
    });
  }

  test("complete: RetryInfo in Google's error details becomes retryAfterMs", async () => {
    // Google sends the delay only in the body, so this server answers with the format's own 429 body.
    const { status, body } = geminiFormat.httpError(
      "http",
      429,
      "Resource has been exhausted (e.g. check quota).",
      2500,
    );
    const server = createServer((_req, res) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body)),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const err = await llmError(
        () => adapter.complete(ask("hi"), contextFor(MODEL, `http://127.0.0.1:${port}`)),
        "rate_limit",
      );
      expect(err.retryAfterMs).toBe(2500);
      expect(err.message).toContain("Resource has been exhausted");
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test("abort ends the stream with an aborted error", async () => {
    fake.setScript([{ text: "a long answer ".repeat(40), chunkSize: 4, chunkDelayMs: 20 }]);
    const controller = new AbortController();
    const seen: string[] = [];
    await llmError(async () => {
      for await (const batch of adapter.stream(ask("hi"), ctx(controller.signal)))
        for (const event of batch) {
          if (event.type === "text_delta") {
            seen.push(event.delta);
            if (seen.length === 2) controller.abort();
          }
        }
    }, "aborted");
    expect(seen.length).toBeLessThan(20);
  });
});
