/**
 * Issue 24, bad input: streams made by hand from real recordings — cut short, interleaved with
 * event types no adapter knows, repeating an id, or a 200 whose body is an error — give one
 * sentence naming the provider and what was wrong (never an exception, never a silent success),
 * and a session that meets one keeps a valid session file.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createSession } from "../../lib/agent/index.ts";
import { createClient } from "../../lib/llm/client.ts";
import type { Request, Response, StreamEvent } from "../../lib/llm/types.ts";
import { recordedBody, startReplayServer, type Recording, type ReplayServer } from "../../lib/testing/replay.ts";
import { tempDir } from "../helpers/temp.ts";

const DIR = join(import.meta.dir, "..", "fixtures", "streams");
const recordings: Recording[] = JSON.parse(readFileSync(join(DIR, "sources.json"), "utf8"));
const recording = (file: string) => recordings.find((r) => r.file === file)!;
const bodyOf = (r: Recording) => recordedBody(r, readFileSync(join(DIR, r.file), "utf8"));

/** One real recording per wire API, with the model that reads it. */
const PER_API = [
  { file: "anthropic/anthropic-text.chunks.txt", model: "anthropic/claude-sonnet-4-5", provider: "anthropic" },
  { file: "openai-responses/azure-text.chunks.txt", model: "openai/gpt-5-mini", provider: "openai" },
  { file: "openai-chat/mistral-text.chunks.txt", model: "mistral/mistral-small-latest", provider: "mistral" },
  { file: "gemini/google-text.chunks.txt", model: "gemini/gemini-2.5-flash", provider: "gemini" },
];

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(async () => {
  await server?.close();
});

function client() {
  return createClient({
    env: {},
    apiKeys: { anthropic: "k", openai: "k", gemini: "k", mistral: "k", openrouter: "k" },
    baseUrls: {
      anthropic: server.url,
      openai: `${server.url}/v1`,
      gemini: server.url,
      mistral: `${server.url}/v1`,
      openrouter: `${server.url}/v1`,
    },
    retry: { maxRetries: 0 },
  });
}

function serve(body: string, status = 200, contentType = "text/event-stream") {
  server.serve({ status, contentType, body: new TextEncoder().encode(body), pieces: true });
}

async function run(
  model: string,
): Promise<{ finish?: Response; error?: Extract<StreamEvent, { type: "error" }>["error"] }> {
  const request: Request = { model, messages: [{ role: "user", content: "hi" }] };
  let finish: Response | undefined;
  let error: Extract<StreamEvent, { type: "error" }>["error"] | undefined;
  for await (const event of client().stream(request)) {
    if (event.type === "finish") finish = event.response;
    if (event.type === "error") error = event.error;
  }
  return { finish, error };
}

/** SSE events of a body, split where a blank line ends one. */
const events = (body: string) => body.split(/(?<=\n\n|\r\n\r\n)/).filter((e) => e.trim() !== "");

describe("a truncated stream", () => {
  for (const { file, model, provider } of PER_API) {
    test(`cut in the middle: one sentence naming ${provider}, no answer (${file})`, async () => {
      const whole = events(bodyOf(recording(file)));
      serve(whole.slice(0, Math.ceil(whole.length / 2)).join(""));
      const { finish, error } = await run(model);
      expect(finish).toBeUndefined();
      expect(error!.message.startsWith(`${provider}`)).toBe(true);
      expect(error!.message).toMatch(/stream ended|terminated/);
      expect(error!.message.split(/[.;] /).length).toBeLessThanOrEqual(2);
    });
  }
});

describe("event types no adapter knows, interleaved", () => {
  const UNKNOWN: Record<string, string> = {
    "anthropic/anthropic-text.chunks.txt": 'event: future_event\ndata: {"type":"future_event","detail":{"a":1}}\n\n',
    "openai-responses/azure-text.chunks.txt":
      'event: response.future_thing\ndata: {"type":"response.future_thing","sequence_number":0}\n\n',
    "openai-chat/mistral-text.chunks.txt":
      'data: {"id":"x","object":"chat.completion.future","choices":[]}\n\n: keep-alive comment\n\n',
    "gemini/google-text.chunks.txt": 'data: {"futureField":{"a":1}}\r\n\r\n',
  };
  for (const { file, model } of PER_API) {
    test(`the answer is what the recording says (${file})`, async () => {
      const r = recording(file);
      serve(events(bodyOf(r)).join(UNKNOWN[file]));
      const { finish, error } = await run(model);
      expect(error).toBeUndefined();
      expect(finish!.text).toBe(r.expect.text!);
      expect(finish!.finishReason).toBe(r.expect.stop as Response["finishReason"]);
    });
  }
});

describe("unfinished endings, made by hand from real recordings", () => {
  test("Gemini MALFORMED_FUNCTION_CALL is malformed_call, its reason code the detail", async () => {
    // @google/genai keeps no finishMessage from the Gemini API's answer (its converter drops the field): the code is what reaches gong.
    const message = "Malformed function call: print(default_api.read(path=";
    serve(
      bodyOf(recording("gemini/google-text.chunks.txt")).replace(
        '"finishReason":"STOP"',
        `"finishReason":"MALFORMED_FUNCTION_CALL","finishMessage":${JSON.stringify(message)}`,
      ),
    );
    const { finish } = await run("gemini/gemini-2.5-flash");
    expect(finish).toMatchObject({ finishReason: "malformed_call", finishDetail: "MALFORMED_FUNCTION_CALL" });
  });

  test("a Responses response.incomplete for max_output_tokens is max_tokens, with its reason", async () => {
    const body = bodyOf(recording("openai-responses/azure-text.chunks.txt"));
    const lines = events(body);
    const last = lines
      .at(-1)!
      .replace("event: response.completed", "event: response.incomplete")
      .replace('"type":"response.completed"', '"type":"response.incomplete"')
      .replace('"status":"completed"', '"status":"incomplete"')
      .replace('"incomplete_details":null', '"incomplete_details":{"reason":"max_output_tokens"}');
    serve([...lines.slice(0, -1), last].join(""));
    const { finish } = await run("openai/gpt-5-mini");
    expect(finish).toMatchObject({ finishReason: "max_tokens", finishDetail: "max_output_tokens", text: "Hello" });
  });

  test("an Anthropic refusal keeps the explanation Anthropic gives", async () => {
    const why = "This request triggered restrictions on violative content.";
    serve(
      bodyOf(recording("anthropic/anthropic-text.chunks.txt")).replace(
        '"stop_reason":"end_turn","stop_sequence":null',
        `"stop_reason":"refusal","stop_sequence":null,"stop_details":{"type":"refusal","explanation":${JSON.stringify(why)}}`,
      ),
    );
    const { finish } = await run("anthropic/claude-sonnet-4-5");
    expect(finish).toMatchObject({ finishReason: "refusal", finishDetail: why });
  });

  test("a Chat answer given as delta.refusal is a refusal, its words the answer", async () => {
    serve(
      bodyOf(recording("openai-chat/mistral-text.chunks.txt")).replace(
        /"delta":\{"content":"([^"]*)"\}/g,
        '"delta":{"refusal":"$1"}',
      ),
    );
    const { finish } = await run("mistral/mistral-small-latest");
    expect(finish!.finishReason).toBe("refusal");
    expect(finish!.text.startsWith("Hello, world!")).toBe(true);
  });
});

describe("a Chat stream without finish_reason", () => {
  /** A real tool-call recording with its finish_reason taken out, as OpenRouter sends some streams. */
  const withoutFinish = () =>
    bodyOf(recording("openai-chat/mistral-tool-call.chunks.txt")).replace(
      /"finish_reason":"[a-z_]+"/g,
      '"finish_reason":null',
    );

  test("that ends with [DONE] finished: its complete tool call is taken and the turn is tool_use", async () => {
    serve(withoutFinish());
    const { finish, error } = await run("mistral/mistral-small-latest");
    expect(error).toBeUndefined();
    expect(finish!.finishReason).toBe("tool_use");
    expect(finish!.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments }))).toEqual([
      { name: "weather", arguments: { location: "San Francisco" } },
    ]);
  });

  test("that just stops was cut: one sentence naming the provider", async () => {
    serve(withoutFinish().replace("data: [DONE]\n\n", ""));
    const { finish, error } = await run("mistral/mistral-small-latest");
    expect(finish).toBeUndefined();
    expect(error!.message).toBe(
      "mistral: the stream ended before the response was complete (no finish_reason and no [DONE])",
    );
  });
});

describe('a Chat stream ending with finish_reason "error"', () => {
  test("is a failure naming the provider, never a finished answer", async () => {
    serve(
      bodyOf(recording("openai-chat/mistral-text.chunks.txt")).replace(
        '"finish_reason":"stop"',
        '"finish_reason":"error"',
      ),
    );
    const { finish, error } = await run("openrouter/some-model");
    expect(finish).toBeUndefined();
    expect(error).toMatchObject({
      kind: "server",
      message: 'openrouter: the upstream provider failed mid-answer (finish_reason "error")',
    });
  });
});

describe("a repeated id", () => {
  test("two Chat tool calls sharing one id become two calls with ids of their own", async () => {
    const chunk = (delta: unknown, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const call = (index: number, path: string) => ({
      tool_calls: [
        { index, id: "call_same", type: "function", function: { name: "read", arguments: JSON.stringify({ path }) } },
      ],
    });
    serve(`${chunk(call(0, "a.txt")) + chunk(call(1, "b.txt")) + chunk({}, "tool_calls")}data: [DONE]\n\n`);
    const { finish } = await run("mistral/mistral-small-latest");
    expect(finish!.toolCalls.map((c) => c.arguments)).toEqual([{ path: "a.txt" }, { path: "b.txt" }]);
    expect(new Set(finish!.toolCalls.map((c) => c.id)).size).toBe(2);
    expect(finish!.toolCalls[0].id).toBe("call_same");
  });
});

describe("an error event inside a 200 stream", () => {
  test("Anthropic overloaded mid-answer: the partial answer is kept and the sentence names the provider", async () => {
    const whole = events(bodyOf(recording("anthropic/anthropic-text.chunks.txt")));
    const error = 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
    server.serve({
      status: 200,
      contentType: "text/event-stream",
      body: new TextEncoder().encode(whole.slice(0, 4).join("") + error),
      pieces: true,
    });
    const request: Request = { model: "anthropic/claude-sonnet-4-5", messages: [{ role: "user", content: "hi" }] };
    const got: StreamEvent[] = [];
    for await (const event of client().stream(request)) got.push(event);
    const end = got.at(-1)!;
    expect(end.type).toBe("error");
    if (end.type !== "error") return;
    expect(end.error.kind).toBe("overloaded");
    expect(end.error.message).toBe("anthropic: Overloaded");
    expect(end.partial.content.length).toBeGreaterThan(0);
  });
});

describe("a 200 whose body is an error", () => {
  test("Chat Completions: the error's own words and status, naming the provider", async () => {
    serve(
      JSON.stringify({ error: { message: "Upstream provider returned no capacity", code: 503 } }),
      200,
      "application/json",
    );
    const { finish, error } = await run("openrouter/some-model");
    expect(finish).toBeUndefined();
    expect(error).toMatchObject({ kind: "overloaded", status: 503 });
    expect(error!.message).toBe("openrouter 503: Upstream provider returned no capacity");
  });

  test("Anthropic: the error body's message, naming the provider", async () => {
    serve(
      JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }),
      200,
      "application/json",
    );
    const { finish, error } = await run("anthropic/claude-sonnet-4-5");
    expect(finish).toBeUndefined();
    expect(error!.message).toBe("anthropic 502: Overloaded");
  });
});

test("a session meeting a truncated stream ends with the sentence and keeps a valid session file", async () => {
  const home = tempDir("gong-bad-stream-");
  try {
    const whole = events(bodyOf(recording("anthropic/anthropic-text.chunks.txt")));
    serve(whole.slice(0, Math.ceil(whole.length / 2)).join(""));
    const session = await createSession({
      model: "anthropic/claude-sonnet-4-5",
      profile: "default",
      cwd: home.dir,
      client: client(),
      store: { dir: join(home.dir, "sessions") },
    });
    const result = await session.submit("hi");
    const file = session.sessionFile!;
    await session.close();
    expect(result.stopReason).toBe("error");
    expect(result.error!.message.startsWith("anthropic")).toBe(true);
    const lines = readFileSync(file, "utf8").trim().split("\n");
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(lines.length).toBeGreaterThan(1);
  } finally {
    home.cleanup();
  }
});
