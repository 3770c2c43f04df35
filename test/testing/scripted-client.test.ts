/**
 * Issue 34: the scripted in-process model client (gong/testing). It plays the fake server's script
 * format — text, thinking, tool calls, usage, stop reasons, faults — through the real client (its
 * message transforms, retry policy and idle watchdog) with no HTTP, and records what it was sent
 * in gong's own request shape.
 */
import { describe, expect, test } from "bun:test";
import type { ClientStreamEvent, Request } from "../../lib/llm/types.ts";
import { routeByPrompt, scriptedClient } from "../../lib/testing/index.ts";

const MODEL = "anthropic/claude-sonnet-4-5";
const ask = (text: string, extra: Partial<Request> = {}): Request => ({
  model: MODEL,
  messages: [{ role: "user", content: text }],
  ...extra,
});

async function collect(events: AsyncIterable<ClientStreamEvent>): Promise<ClientStreamEvent[]> {
  const out: ClientStreamEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

const finished = (events: ClientStreamEvent[]) => {
  const last = events.at(-1)!;
  if (last.type !== "finish") throw new Error(`ended with ${last.type}: ${JSON.stringify(last)}`);
  return last.response;
};

describe("issue 34 scripted client: a turn as a provider's stream gives it", () => {
  test("text in pieces, then a finish carrying the answer, its usage priced as the model is, and end_turn", async () => {
    const client = scriptedClient([
      { text: "Hello from the script.", chunkSize: 5, usage: { input: 1000, output: 10 } },
    ]);
    const events = await collect(client.stream(ask("hi")));
    expect(events[0].type).toBe("start");
    const deltas = events.flatMap((e) => (e.type === "text_delta" ? [e.delta] : []));
    expect(deltas).toEqual(["Hello", " from", " the ", "scrip", "t."]);
    const response = finished(events);
    expect(response.text).toBe("Hello from the script.");
    expect(response.finishReason).toBe("end_turn");
    expect(response.usage).toMatchObject({ input: 1000, output: 10 });
    // claude-sonnet-4-5: $3 / $15 per million tokens.
    expect(response.usage.cost).toBeCloseTo((1000 * 3 + 10 * 15) / 1_000_000, 9);
    // Every event carries the one accumulation of the answer so far.
    const last = events.at(-2)!;
    expect(last.type === "text_delta" && last.partial.content).toEqual([
      { type: "text", text: "Hello from the script." },
    ]);
  });

  test("tool calls stream their arguments in pieces and end parsed, with the script's id or a generated one", async () => {
    const client = scriptedClient([
      {
        toolCalls: [
          { name: "read", arguments: { path: "a.txt" }, id: "call_given" },
          { name: "bash", arguments: { command: "echo hi" } },
        ],
        chunkSize: 4,
      },
    ]);
    const events = await collect(client.stream(ask("go")));
    const starts = events.flatMap((e) => (e.type === "tool_call_start" ? [[e.id, e.name]] : []));
    expect(starts).toEqual([
      ["call_given", "read"],
      [expect.stringMatching(/^call_\d+$/), "bash"],
    ]);
    const pieces = events.flatMap((e) => (e.type === "tool_call_delta" && e.id === "call_given" ? [e.delta] : []));
    expect(pieces.join("")).toBe('{"path":"a.txt"}');
    expect(pieces.length).toBeGreaterThan(1);
    const response = finished(events);
    expect(response.finishReason).toBe("tool_use");
    expect(response.toolCalls.map((c) => [c.name, c.arguments])).toEqual([
      ["read", { path: "a.txt" }],
      ["bash", { command: "echo hi" }],
    ]);
  });

  test("argument text that is not complete JSON ends as a call marked invalid, never run on a guess", async () => {
    const client = scriptedClient([
      {
        toolCalls: [{ name: "write", arguments: {}, argumentText: '{"path":"a.txt","content":"cut' }],
        finishReason: "max_tokens",
      },
    ]);
    const response = finished(await collect(client.stream(ask("write"))));
    expect(response.finishReason).toBe("max_tokens");
    expect(response.toolCalls[0].invalidArguments).toMatch(/not complete JSON/);
  });

  test("thinking streams first and keeps its signature; the script's endings arrive as gong's stop reasons", async () => {
    const client = scriptedClient([
      { thinking: "Let me think.", thinkingSignature: "sig-1", text: "Done." },
      { text: "No.", finishReason: "refusal" },
      { text: "cut", finishReason: "length" },
    ]);
    const first = await collect(client.stream(ask("one")));
    expect(first.findIndex((e) => e.type === "thinking_delta")).toBeLessThan(
      first.findIndex((e) => e.type === "text_delta"),
    );
    expect(finished(first).message.content[0]).toEqual({ type: "thinking", text: "Let me think.", signature: "sig-1" });
    expect(finished(await collect(client.stream(ask("two")))).finishReason).toBe("refusal");
    expect(finished(await collect(client.stream(ask("three")))).finishReason).toBe("max_tokens");
  });

  test("complete() answers with the same turn, and records the call as not streamed", async () => {
    const client = scriptedClient([{ text: "a summary" }]);
    const response = await client.complete(ask("summarize", { system: "Be short." }));
    expect(response.text).toBe("a summary");
    expect(client.requests[0]).toMatchObject({ index: 0, streaming: false, api: "anthropic-messages" });
    expect(client.requests[0].body.system).toBe("Be short.");
  });
});

describe("issue 34 scripted client: faults through the real retry policy", () => {
  test("a 429 with retry-after is retried (a retry event), and the next turn answers", async () => {
    const client = scriptedClient([
      { fault: { type: "http", status: 429, retryAfterMs: 5 } },
      { text: "after the wait" },
    ]);
    const events = await collect(client.stream(ask("hi")));
    const retry = events.find((e) => e.type === "retry");
    expect(retry).toMatchObject({ type: "retry", attempt: 1, delayMs: 5, error: { kind: "rate_limit", status: 429 } });
    expect(finished(events).text).toBe("after the wait");
    expect(client.requests).toHaveLength(2);
  });

  test("an invalid key is an auth error, never retried; an overflow and a thinking-order complaint are told apart", async () => {
    const client = scriptedClient([
      { fault: { type: "http", status: 401 } },
      { fault: { type: "overflow" } },
      { fault: { type: "invalid_request" } },
    ]);
    const kinds: string[] = [];
    for (const q of ["a", "b", "c"]) {
      const last = (await collect(client.stream(ask(q)))).at(-1)!;
      kinds.push(last.type === "error" ? last.error.kind : last.type);
    }
    expect(kinds).toEqual(["auth", "context_overflow", "invalid_request"]);
    expect(client.requests).toHaveLength(3);
  });

  test("an error in the stream after content, a dropped connection and malformed JSON end the call with the part that came", async () => {
    const client = scriptedClient([
      { text: "partial answer here", chunkSize: 4, fault: { type: "error_event", afterChunks: 3 } },
      { text: "cut off mid-way", chunkSize: 4, fault: { type: "drop", afterChunks: 2 } },
      { text: "x", fault: { type: "malformed" } },
    ]);
    const outcomes = [];
    for (const q of ["a", "b", "c"]) {
      const last = (await collect(client.stream(ask(q)))).at(-1)!;
      if (last.type !== "error") throw new Error("expected an error");
      outcomes.push([last.error.kind, last.partial.content]);
    }
    expect(outcomes).toEqual([
      ["overloaded", [{ type: "text", text: "partial " }]],
      ["network", [{ type: "text", text: "cut " }]],
      ["server", []],
    ]);
    expect((await collect(client.stream(ask("d")))).at(-1)).toMatchObject({ type: "error", error: { kind: "server" } });
  });

  test("a stalled stream is abandoned by the client's idle watchdog", async () => {
    const client = scriptedClient([{ text: "stuck", fault: { type: "stall", afterChunks: 1 } }], {
      streamIdleTimeoutMs: 50,
      retry: { maxRetries: 0 },
    });
    const last = (await collect(client.stream(ask("hi")))).at(-1)!;
    expect(last).toMatchObject({ type: "error", error: { kind: "timeout" } });
  });

  test("a used-up script says which request had no turn", async () => {
    const client = scriptedClient([], { retry: { maxRetries: 0 } });
    const last = (await collect(client.stream(ask("hi")))).at(-1)!;
    expect(last.type === "error" && last.error.message).toMatch(/script is exhausted; request #0 has no turn/);
  });
});

describe("issue 34 scripted client: scripts as functions of what was sent", () => {
  test("the request is gong's own, after the client's transforms: orphan calls are answered before it is recorded", async () => {
    const client = scriptedClient((request) => ({ text: `${request.body.messages.length} messages` }));
    const response = finished(
      await collect(
        client.stream({
          model: MODEL,
          messages: [
            { role: "user", content: "run it" },
            { role: "assistant", content: [{ type: "tool_call", id: "call_1", name: "bash", arguments: {} }] },
            { role: "user", content: "never mind" },
          ],
        }),
      ),
    );
    const sent = client.requests[0].body.messages;
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(response.text).toBe("4 messages");
  });

  test("routeByPrompt serves each conversation its own turns, and setScript starts over", async () => {
    const client = scriptedClient(
      routeByPrompt({ PARENT: [{ text: "parent one" }, { text: "parent two" }], CHILD: [{ text: "child one" }] }),
    );
    const text = async (messages: Request["messages"]) =>
      finished(await collect(client.stream({ model: MODEL, messages }))).text;
    expect(await text([{ role: "user", content: "CHILD: do a thing" }])).toBe("child one");
    expect(await text([{ role: "user", content: "PARENT: go" }])).toBe("parent one");
    expect(
      await text([
        { role: "user", content: "PARENT: go" },
        { role: "assistant", content: [{ type: "text", text: "parent one" }] },
        { role: "user", content: "and?" },
      ]),
    ).toBe("parent two");
    client.setScript([{ text: "fresh" }]);
    expect(await text([{ role: "user", content: "again" }])).toBe("fresh");
  });
});
