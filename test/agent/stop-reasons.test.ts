/**
 * Issue 24, "every way a model turn can end, named": what the loop does with each stop reason,
 * through the real client and SDKs against the fake server.
 */
import { describe, expect, test } from "bun:test";
import { CONTINUE_PROMPT } from "../../lib/agent/stop-reasons.ts";
import { harness, requestMessages } from "./harness.ts";

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
      { toolCalls: [{ name: "write", arguments: {}, argumentText: '{"path":"a.txt","content":"unfin' }], finishReason: "max_tokens" as const },
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
    await using h = await harness([{ text: "I can't help with that.", finishReason: "refusal" }, { text: "never sent" }]);
    const result = await h.session.submit("something");
    expect(result).toMatchObject({ stopReason: "refusal", text: "I can't help with that.", turns: 1 });
    expect(result.stopMessage).toBe("The model refused to answer.");
    expect(h.fake.requests.length).toBe(1);
  });

  test("Gemini SAFETY ends the run as content_filter", async () => {
    await using h = await harness([{ text: "Partial", finishReason: "content_filter" }, { text: "never" }], { model: GEMINI });
    const result = await h.session.submit("something");
    expect(result.stopReason).toBe("content_filter");
    expect(result.stopMessage).toContain("gemini's content filter");
    expect(h.fake.requests.length).toBe(1);
  });

  test("Gemini OTHER ends the run as incomplete, naming the reason", async () => {
    await using h = await harness([{ text: "Half", finishReason: "incomplete" }], { model: GEMINI });
    const result = await h.session.submit("something");
    expect(result.stopReason).toBe("incomplete");
    expect(result.stopMessage).toContain("(gemini: OTHER)");
  });
});

describe("malformed_call is reported to the model once", () => {
  test("after a MALFORMED_FUNCTION_CALL the model is told and its retry completes the run", async () => {
    await using h = await harness([{ finishReason: "malformed_call" }, { text: "Done properly." }], { model: GEMINI });
    const result = await h.session.submit("do it");
    expect(result).toMatchObject({ stopReason: "completed", text: "Done properly.", turns: 2 });
    const turns = geminiTurns(h.fake.requests[1].body);
    expect(turns.at(-1)!.text).toContain("could not be parsed by the provider (MALFORMED_FUNCTION_CALL)");
  });

  test("a second malformed call ends the run as malformed_call", async () => {
    await using h = await harness([{ finishReason: "malformed_call" }, { finishReason: "malformed_call" }, { text: "never" }], { model: GEMINI });
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
