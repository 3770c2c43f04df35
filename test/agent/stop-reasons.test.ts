/**
 * Issue 24, "every way a model turn can end, named": what the loop does with each stop reason —
 * with the scripted model, and through the official SDKs against the fake server where a
 * provider's own word for the ending (Gemini's SAFETY, OTHER, MALFORMED_FUNCTION_CALL) is the point.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createSession, type SessionEvent } from "../../lib/agent/index.ts";
import { CONTINUE_PROMPT, isUnfinished } from "../../lib/agent/vocabulary.ts";
import { FINISH_REASONS, type FinishReason } from "../../lib/llm/types.ts";
import { createClient } from "../../lib/llm/client.ts";
import { replyFor, startReplayServer, type Recording } from "../../lib/testing/replay.ts";
import { tempDir } from "../helpers/temp.ts";
import { harness, httpHarness, requestMessages } from "./harness.ts";

const GEMINI = "gemini/gemini-2.5-flash";

/** Text of a recorded Gemini request's contents, role by role. */
const geminiTurns = (body: any): { role: string; text: string }[] =>
  body.contents.map((c: any) => ({ role: c.role, text: (c.parts ?? []).map((p: any) => p.text ?? "").join("") }));

describe("output limit (max_tokens)", () => {
  test("a text answer cut at the output limit is continued and the parts are joined", async () => {
    await using h = await harness([{ text: "Part one, ", finishReason: "max_tokens" }, { text: "part two." }]);
    const result = await h.session.submit("write it");
    expect(result).toMatchObject({ stopReason: "completed", text: "Part one, part two.", turns: 2 });
    expect(result.stopMessage).toBeUndefined();
    const second = requestMessages(h.fake, 1);
    expect(second.at(-2).role).toBe("assistant");
    expect(JSON.stringify(second.at(-1))).toContain(CONTINUE_PROMPT);
  });

  test("continuations stop at maxOutputContinuations: the run ends max_tokens with one sentence", async () => {
    const cut = { text: "more ", finishReason: "max_tokens" as const };
    await using h = await harness([cut, cut, cut], { config: { maxOutputContinuations: 1 } });
    const result = await h.session.submit("write it");
    expect(result.stopReason).toBe("max_tokens");
    expect(result.text).toBe("more more ");
    expect(result.turns).toBe(2);
    expect(result.stopMessage).toMatch(/output limit/);
    expect(h.of("agent_end")[0].data).toMatchObject({ stop_reason: "max_tokens", stop_message: result.stopMessage });
    expect((h.of("message_end").at(-1)!.data.message as { finishReason?: string }).finishReason).toBe("max_tokens");
  });

  test("a tool call cut off by the output limit is never run and the model is told", async () => {
    const script = [
      {
        toolCalls: [{ name: "write", arguments: {}, argumentText: '{"path":"a.txt","content":"unfin' }],
        finishReason: "max_tokens" as const,
      },
      { text: "I will write it in smaller pieces." },
    ];
    await using h = await harness(script);
    const result = await h.session.submit("write a.txt");
    expect(result.stopReason).toBe("completed");
    const told = JSON.stringify(requestMessages(h.fake, 1).at(-1));
    expect(told).toContain("was not run because it was cut off");
  });
});

describe("refusal and content filter end the run", () => {
  test("an Anthropic refusal ends the run as refusal, with no further request", async () => {
    await using h = await harness([
      { text: "I can't help with that.", finishReason: "refusal" },
      { text: "never sent" },
    ]);
    const result = await h.session.submit("something");
    expect(result).toMatchObject({ stopReason: "refusal", text: "I can't help with that.", turns: 1 });
    expect(result.stopMessage).toBe("The model refused to answer.");
    expect(h.fake.requests.length).toBe(1);
  });

  test("Gemini SAFETY ends the run as content_filter", async () => {
    await using h = await httpHarness([{ text: "Partial", finishReason: "content_filter" }, { text: "never" }], {
      model: GEMINI,
    });
    const result = await h.session.submit("something");
    expect(result.stopReason).toBe("content_filter");
    expect(result.stopMessage).toContain("gemini's content filter");
    expect(h.fake.requests.length).toBe(1);
  });

  test("Gemini OTHER ends the run as incomplete, naming the reason", async () => {
    await using h = await httpHarness([{ text: "Half", finishReason: "incomplete" }], { model: GEMINI });
    const result = await h.session.submit("something");
    expect(result.stopReason).toBe("incomplete");
    expect(result.stopMessage).toContain("(gemini: OTHER)");
  });
});

describe("malformed_call is reported to the model once", () => {
  test("after a MALFORMED_FUNCTION_CALL the model is told and its retry completes the run", async () => {
    await using h = await httpHarness([{ finishReason: "malformed_call" }, { text: "Done properly." }], {
      model: GEMINI,
    });
    const result = await h.session.submit("do it");
    expect(result).toMatchObject({ stopReason: "completed", text: "Done properly.", turns: 2 });
    const turns = geminiTurns(h.fake.requests[1].body);
    expect(turns.at(-1)!.text).toContain("could not be parsed by the provider (MALFORMED_FUNCTION_CALL)");
  });

  test("a second malformed call ends the run as malformed_call", async () => {
    await using h = await httpHarness(
      [{ finishReason: "malformed_call" }, { finishReason: "malformed_call" }, { text: "never" }],
      { model: GEMINI },
    );
    const result = await h.session.submit("do it");
    expect(result.stopReason).toBe("malformed_call");
    expect(result.stopMessage).toMatch(/could not parse, again after being told/);
    expect(h.fake.requests.length).toBe(2);
  });
});

describe("pause_turn is resumed", () => {
  test("a paused Anthropic turn is sent back as it is and the answer goes on", async () => {
    await using h = await harness([{ text: "Searching… ", finishReason: "pause_turn" }, { text: "found it." }]);
    const result = await h.session.submit("look it up");
    expect(result).toMatchObject({ stopReason: "completed", text: "Searching… found it.", turns: 2 });
    const second = requestMessages(h.fake, 1);
    expect(second.at(-1).role).toBe("assistant");
    expect(JSON.stringify(second.at(-1))).toContain("Searching");
  });
});

describe("pause_turn on a recorded real stream", () => {
  test("Anthropic's paused web-search turn is resumed with its server tool blocks sent back, never run", async () => {
    const dir = join(import.meta.dir, "..", "fixtures", "streams");
    const recordings: Recording[] = JSON.parse(readFileSync(join(dir, "sources.json"), "utf8"));
    const reply = (file: string) =>
      replyFor(recordings.find((r) => r.file === file)!, readFileSync(join(dir, file), "utf8"));
    const server = await startReplayServer();
    const home = tempDir("gong-pause-");
    try {
      server.serve([
        reply("anthropic/anthropic-pause-turn-web-search.sse"),
        reply("anthropic/anthropic-text.chunks.txt"),
      ]);
      const client = createClient({
        env: {},
        apiKeys: { anthropic: "k" },
        baseUrls: { anthropic: server.url },
        retry: { maxRetries: 0 },
      });
      const session = await createSession({
        model: "anthropic/claude-sonnet-4-5",
        profile: "default",
        cwd: home.dir,
        client,
        store: { dir: join(home.dir, "sessions") },
      });
      const events: SessionEvent[] = [];
      session.subscribe((e) => events.push(e));
      const result = await session.submit("search the web");
      await session.close();
      expect(result.stopReason).toBe("completed");
      expect(result.turns).toBe(2);
      expect(server.requests).toHaveLength(2);
      // The second request ends with the paused answer as it came: its server tool blocks included.
      const resumed = (server.requests[1] as { messages: { role: string; content: { type: string }[] }[] }).messages.at(
        -1,
      )!;
      expect(resumed.role).toBe("assistant");
      const types = new Set(resumed.content.map((b) => b.type));
      expect(types.has("server_tool_use")).toBe(true);
      expect(types.has("web_search_tool_result")).toBe(true);
      expect(events.some((e) => e.kind === "tool_call_start")).toBe(false);
    } finally {
      await server.close();
      home.cleanup();
    }
  });
});

test("issue 34: the unfinished endings are the model's six; no run-level reason (max_cost, turn_limit…) counts as one", () => {
  const unfinished = FINISH_REASONS.filter((r) => isUnfinished(r));
  expect(unfinished).toEqual(["max_tokens", "refusal", "content_filter", "malformed_call", "incomplete", "pause_turn"]);
  for (const reason of ["completed", "handled", "tool_round_limit", "turn_limit", "max_cost", "aborted", "error"])
    expect(isUnfinished(reason as FinishReason)).toBe(false);
});
