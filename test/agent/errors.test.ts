import { describe, expect, test } from "bun:test";
import { SessionStore } from "../../lib/store/session-store.ts";
import { tempDir } from "../helpers/temp.ts";
import { harness, requestMessages } from "./harness.ts";

const compactionKinds = (kinds: string[]) => kinds.filter((k) => k.startsWith("compaction"));

/** Every tool_use id in a request has a tool_result and vice versa. */
function pairedToolIds(messages: any[]): { uses: string[]; results: string[] } {
  const uses: string[] = [];
  const results: string[] = [];
  for (const m of messages) {
    if (m.role === "tool") results.push(m.toolCallId);
    if (m.role !== "assistant" || !Array.isArray(m.content)) continue;
    for (const c of m.content) if (c.type === "tool_call") uses.push(c.id);
  }
  return { uses, results };
}

describe("J.9 4. regressions", () => {
  test("J.9 4.1 concurrent prompts: the second is refused with a busy error, nothing runs twice", async () => {
    await using h = await harness([{ text: "streaming slowly", chunkSize: 1, chunkDelayMs: 5 }, { text: "unused" }]);
    const first = h.session.submit("one");
    const second = h.session.submit("two").then(
      () => "accepted",
      (e: Error) => e.message,
    );
    expect(await second).toMatch(/busy/);
    await first;
    expect(h.fake.requests.length).toBe(1);
    expect(h.session.messages.filter((m) => m.role === "user").length).toBe(1);
  });

  test("J.9 4.2 orphan tool calls in a resumed history are answered before the request goes out", async () => {
    using temp = tempDir("gong-store-");
    const home = temp.dir;
    const store = SessionStore.create({ cwd: home, dir: home });
    store.appendMessage({ role: "user", content: "read two files" });
    store.appendMessage({
      role: "assistant",
      content: [
        { type: "tool_call", id: "toolu_first", name: "read", arguments: { path: "a" } },
        { type: "tool_call", id: "toolu_second", name: "read", arguments: { path: "b" } },
      ],
    });
    store.appendMessage({
      role: "tool",
      toolCallId: "toolu_first",
      toolName: "read",
      content: "a's content",
      isError: false,
    });
    const path = store.path!;
    store.close();
    await using h = await harness([{ text: "continuing" }], { store: { resume: path, dir: home } });
    const result = await h.session.submit("go on");
    expect(result.stopReason).toBe("completed");
    const { uses, results } = pairedToolIds(requestMessages(h.fake, 0));
    expect(uses).toEqual(["toolu_first", "toolu_second"]);
    expect(results.sort()).toEqual(["toolu_first", "toolu_second"]);
  });

  test("J.9 4.3 a 429 is retried and never triggers compaction", async () => {
    await using h = await harness([
      { fault: { type: "http", status: 429, retryAfterMs: 5 } },
      { text: "after the wait" },
    ]);
    const result = await h.session.submit("hi");
    expect(result.text).toBe("after the wait");
    const retry = h.events.find((e) => e.kind === "retry")!;
    expect((retry.data.error as any).kind).toBe("rate_limit");
    expect(compactionKinds(h.kinds())).toEqual([]);
  });

  test("J.9 4.5 assistant content as a string or null does not crash the loop", async () => {
    using temp = tempDir("gong-store-");
    const home = temp.dir;
    const store = SessionStore.create({ cwd: home, dir: home });
    store.appendMessage({ role: "user", content: "hi" });
    store.appendMessage({ role: "assistant", content: "plain string content" as any });
    store.appendMessage({ role: "user", content: "again" });
    store.appendMessage({ role: "assistant", content: null as any });
    const path = store.path!;
    store.close();
    await using h = await harness([{ text: "fine" }], { store: { resume: path, dir: home } });
    const result = await h.session.submit("still there?");
    expect(result.text).toBe("fine");
    const assistant = requestMessages(h.fake, 0).find((m) => m.role === "assistant");
    expect(JSON.stringify(assistant.content)).toContain("plain string content");
  });

  test("J.9 4.7 after a retry, submit resolves only once the tool call has run", async () => {
    await using h = await harness([
      { fault: { type: "http", status: 500 } },
      { toolCalls: [{ name: "bash", arguments: { command: "sleep 0.2; echo finished" } }] },
      { text: "all done" },
    ]);
    const result = await h.session.submit("run it");
    const atResolve = h.kinds();
    expect(atResolve).toContain("retry");
    expect(atResolve.indexOf("tool_call_end")).toBeGreaterThan(atResolve.indexOf("retry"));
    expect(atResolve.at(-1)).toBe("agent_end");
    expect(result.text).toBe("all done");
    expect((h.events.find((e) => e.kind === "tool_call_end")!.data.output as any).text).toContain("finished");
  });
});

describe("J.9 5. error recovery", () => {
  test("J.9 5.1 a connection dropped mid-stream ends the input with an error; the session stays usable", async () => {
    await using h = await harness(() => ({
      text: "this answer is cut after a few chunks",
      chunkSize: 4,
      fault: { type: "drop", afterChunks: 3 },
    }));
    const result = await h.session.submit("hi");
    expect(result.stopReason).toBe("error");
    expect(h.kinds()).toContain("error");
    expect(h.session.state).toBe("IDLE");
    h.fake.setScript([{ text: "back again" }]);
    expect((await h.session.submit("retry")).text).toBe("back again");
  });

  test("J.9 5.2 a malformed response gives a clear error and the next input works", async () => {
    await using h = await harness(() => ({ text: "x", fault: { type: "malformed" } }));
    const result = await h.session.submit("hi");
    expect(result.stopReason).toBe("error");
    expect(result.error?.message).toMatch(/Malformed response from anthropic/);
    expect(h.events.find((e) => e.kind === "error")!.data.message).toBe(result.error!.message);
    expect(h.session.state).toBe("IDLE");
    h.fake.setScript([{ text: "fine now" }]);
    expect((await h.session.submit("again")).text).toBe("fine now");
  });

  test("J.9 5.3 an invalid request (thinking order) is not taken for an overflow: no compaction", async () => {
    await using h = await harness([{ fault: { type: "invalid_request" } }, { text: "next" }]);
    const result = await h.session.submit("hi");
    expect(result.error?.kind).toBe("invalid_request");
    expect(compactionKinds(h.kinds())).toEqual([]);
    expect(h.fake.requests.length).toBe(1);
    expect(h.session.state).toBe("IDLE");
  });

  test("J.9 5.4 a stalled stream times out instead of hanging", async () => {
    await using h = await harness(() => ({ text: "stuck", fault: { type: "stall", afterChunks: 2 } }), {
      idleTimeoutMs: 150,
    });
    const result = await h.session.submit("hi");
    expect(result.stopReason).toBe("error");
    expect(result.error?.kind).toBe("timeout");
    expect(h.session.state).toBe("IDLE");
  });

  test("J.9 5.6 an invalid API key: auth error, no retry, no compaction, session closed", async () => {
    await using h = await harness([{ fault: { type: "http", status: 401 } }, { text: "unused" }]);
    const result = await h.session.submit("hi");
    expect(result.error?.kind).toBe("auth");
    expect(h.fake.requests.length).toBe(1);
    expect(h.kinds()).not.toContain("retry");
    expect(compactionKinds(h.kinds())).toEqual([]);
    expect(h.session.state).toBe("CLOSED");
    expect(h.kinds().at(-1)).toBe("session_end");
  });
});
