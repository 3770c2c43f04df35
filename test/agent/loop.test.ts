import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { createDefaultProfile } from "../../lib/profiles/index.ts";
import type { Tool } from "../../tools/types.ts";
import { harness, httpHarness, requestMessages, toolResultIds, toolResultTexts } from "./harness.ts";

/** A custom tool that waits `ms` then echoes its id: calls finish in a different order than they started. */
const slowEcho: Tool<{ id: string; ms: number }> = {
  name: "slow_echo",
  description: "Echo an id after a delay.",
  schema: v.object({ id: v.string(), ms: v.number() }),
  truncation: "head",
  async run(args, ctx) {
    await new Promise((r) => setTimeout(r, args.ms));
    return ctx.reply.success({ id: args.id }, `echo ${args.id}`);
  },
};

describe("J.9 1. agent pipeline", () => {
  test("J.9 1.1 smoke: a text prompt gets a text answer", async () => {
    await using h = await harness([{ text: "Hello from the model." }]);
    const result = await h.session.submit("Say hello");
    expect(result.text).toBe("Hello from the model.");
    expect(result.stopReason).toBe("completed");
    expect(result.turns).toBe(1);
    expect(h.session.state).toBe("IDLE");
    expect(h.kinds()).not.toContain("error");
  });

  test("J.9 1.2 single tool call: read result reaches the model and the answer", async () => {
    await using h = await harness([
      { toolCalls: [{ name: "read", arguments: { path: "test.txt" } }] },
      { text: "It says: secret-content-42" },
    ]);
    writeFileSync(join(h.dir, "test.txt"), "secret-content-42\n");
    const result = await h.session.submit("Read test.txt");
    expect(result.text).toContain("secret-content-42");
    expect(toolResultTexts(h.fake, 1).join("\n")).toContain("secret-content-42");
    const end = h.events.find((e) => e.kind === "tool_call_end")!;
    expect(end.data.tool_name).toBe("read");
    expect(end.data.is_error).toBe(false);
  });

  test("J.9 1.3 several tools in a row: read then edit then bash", async () => {
    await using h = await harness([
      { toolCalls: [{ name: "read", arguments: { path: "app.txt" } }] },
      { toolCalls: [{ name: "edit", arguments: { path: "app.txt", old_text: "version 1", new_text: "version 2" } }] },
      { toolCalls: [{ name: "bash", arguments: { command: "cat app.txt" } }] },
      { text: "Bumped to version 2." },
    ]);
    writeFileSync(join(h.dir, "app.txt"), "app version 1\n");
    const result = await h.session.submit("Bump the version");
    expect(result.turns).toBe(4);
    expect(readFileSync(join(h.dir, "app.txt"), "utf8")).toBe("app version 2\n");
    const ends = h.events.filter((e) => e.kind === "tool_call_end");
    expect(ends.map((e) => e.data.tool_name)).toEqual(["read", "edit", "bash"]);
    expect(ends.every((e) => e.data.is_error === false)).toBe(true);
    expect(toolResultTexts(h.fake, 3).at(-1)).toContain("app version 2");
  });

  test("J.9 1.7 a second submit while one runs is rejected as busy", async () => {
    await using h = await harness([
      { text: "slow answer that streams in many pieces", chunkSize: 2, chunkDelayMs: 10 },
      { text: "second" },
    ]);
    const first = h.session.submit("first");
    await expect(h.session.submit("second")).rejects.toThrow(/busy/);
    expect((await first).text).toBe("slow answer that streams in many pieces");
    expect(h.fake.requests.length).toBe(1);
    expect((await h.session.submit("now")).text).toBe("second");
    // The refused input left no trace in the conversation.
    expect(JSON.stringify(h.fake.requests[1].body.messages)).not.toContain('"second"');
    expect(h.session.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["first", "now"]);
  });

  test("J.9 1.8 context kept across inputs: the second request carries the first read's result", async () => {
    await using h = await harness([
      { toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] },
      { text: "Read it." },
      { text: "The notes said remember-me-7." },
    ]);
    writeFileSync(join(h.dir, "notes.txt"), "remember-me-7\n");
    await h.session.submit("Read notes.txt");
    const second = await h.session.submit("What did the notes say?");
    expect(second.text).toContain("remember-me-7");
    expect(toolResultTexts(h.fake, 2).join("\n")).toContain("remember-me-7");
    const roles = requestMessages(h.fake, 2).map((m) => m.role);
    expect(roles).toEqual(["user", "assistant", "tool", "assistant", "user"]);
  });
});

describe("004 §9 core loop", () => {
  test("004-9.1 natural completion: a text-only answer ends the loop", async () => {
    await using h = await harness([
      { toolCalls: [{ name: "ls", arguments: {} }] },
      { text: "Done." },
      { text: "never requested" },
    ]);
    const result = await h.session.submit("List files");
    expect(result.stopReason).toBe("completed");
    expect(h.fake.requests.length).toBe(2);
  });

  test("004-9.1 max_tool_rounds_per_input stops the loop with turn_limit", async () => {
    await using h = await harness(() => ({ toolCalls: [{ name: "ls", arguments: {} }] }), {
      config: { max_tool_rounds_per_input: 2 },
    });
    const result = await h.session.submit("Loop forever");
    expect(result.stopReason).toBe("tool_round_limit");
    expect(h.fake.requests.length).toBe(2);
    const limit = h.events.find((e) => e.kind === "turn_limit")!;
    expect(limit.data).toMatchObject({ kind: "tool_rounds", count: 2 });
    expect(h.events.filter((e) => e.kind === "tool_call_end")).toHaveLength(2);
    expect(h.session.state).toBe("IDLE");
    // The limit is per input: the next input gets its own two rounds.
    expect((await h.session.submit("again")).stopReason).toBe("tool_round_limit");
    expect(h.fake.requests.length).toBe(4);
  });

  test("004-9.1 max_turns stops the loop across inputs", async () => {
    await using h = await harness(() => ({ text: "ok" }), { config: { maxTurns: 2 } });
    await h.session.submit("one");
    await h.session.submit("two");
    const third = await h.session.submit("three");
    expect(third.stopReason).toBe("turn_limit");
    expect(h.fake.requests.length).toBe(2);
    expect(h.of("turn_limit")[0].data.count).toBe(2);
  });

  test("004-9.1 max_turns also stops a tool loop in the middle of an input", async () => {
    await using h = await harness(() => ({ toolCalls: [{ name: "ls", arguments: {} }] }), { config: { max_turns: 3 } });
    const result = await h.session.submit("loop");
    expect(result.stopReason).toBe("turn_limit");
    expect(result.turns).toBe(3);
    expect(h.fake.requests.length).toBe(3);
    expect(h.events.filter((e) => e.kind === "tool_call_end")).toHaveLength(3);
    expect(h.events.find((e) => e.kind === "turn_limit")!.data).toMatchObject({ count: 3, kind: "turns" });
    expect(h.session.state).toBe("IDLE");
  });

  test("004-9.1 several sequential inputs work", async () => {
    await using h = await harness([{ text: "a" }, { text: "b" }, { text: "c" }]);
    expect((await h.session.submit("1")).text).toBe("a");
    expect((await h.session.submit("2")).text).toBe("b");
    expect((await h.session.submit("3")).text).toBe("c");
    expect(h.session.messages.length).toBe(6);
  });

  test("004-9.3 unknown tool gives the model an error result, not an exception", async () => {
    await using h = await harness([
      { toolCalls: [{ name: "teleport", arguments: { to: "mars" } }] },
      { text: "Sorry." },
    ]);
    const result = await h.session.submit("go");
    expect(result.stopReason).toBe("completed");
    const text = toolResultTexts(h.fake, 1)[0];
    expect(text).toContain("Unknown tool 'teleport'");
    expect(text).toContain("read");
    expect(requestMessages(h.fake, 1).at(-1).isError).toBe(true);
  });

  test("004-9.3 J.9 5.5 a tool that throws becomes an error result and the loop goes on", async () => {
    const flaky: Tool<{ path: string }> = {
      name: "flaky_read",
      description: "Reads a file that vanishes.",
      schema: v.object({ path: v.string() }),
      truncation: "head",
      async run() {
        throw new Error("ENOENT: file disappeared between stat and read");
      },
    };
    await using h = await harness(
      [
        { toolCalls: [{ name: "flaky_read", arguments: { path: "x" } }] },
        { toolCalls: [{ name: "ls", arguments: {} }] },
        { text: "Recovered." },
      ],
      { customTools: [flaky] },
    );
    const result = await h.session.submit("read x");
    expect(result.text).toBe("Recovered.");
    expect(toolResultTexts(h.fake, 1)[0]).toContain("file disappeared");
    expect(h.events.find((e) => e.kind === "tool_call_end")!.data.is_error).toBe(true);
  });

  test("004-9.3 invalid arguments give a validation error the model can act on", async () => {
    await using h = await harness([{ toolCalls: [{ name: "read", arguments: { path: 42 } }] }, { text: "ok" }]);
    await h.session.submit("read");
    expect(toolResultTexts(h.fake, 1)[0]).toMatch(/path/);
    expect(requestMessages(h.fake, 1).at(-1).isError).toBe(true);
  });

  test("004-9.3 J.9 4.6 parallel calls keep their order and ids", async () => {
    const parallel = (o: Parameters<typeof createDefaultProfile>[0]) => ({
      ...createDefaultProfile(o),
      supportsParallelToolCalls: true,
    });
    await using h = await harness(
      [
        {
          toolCalls: [
            { name: "slow_echo", arguments: { id: "A", ms: 120 }, id: "toolu_A" },
            { name: "slow_echo", arguments: { id: "B", ms: 10 }, id: "toolu_B" },
            { name: "slow_echo", arguments: { id: "C", ms: 60 }, id: "toolu_C" },
          ],
        },
        { text: "done" },
      ],
      { profile: parallel, customTools: [slowEcho] },
    );
    await h.session.submit("echo three");
    const finished = h.events.filter((e) => e.kind === "tool_call_end").map((e) => e.data.call_id);
    expect(finished).toEqual(["toolu_B", "toolu_C", "toolu_A"]);
    expect(toolResultIds(h.fake, 1)).toEqual(["toolu_A", "toolu_B", "toolu_C"]);
    expect(toolResultTexts(h.fake, 1)).toEqual(["echo A", "echo B", "echo C"]);
    // The history itself (not just the wire adapter) holds the results in call order.
    const tools = h.session.messages.filter((m) => m.role === "tool") as any[];
    expect(tools.map((m) => [m.toolCallId, m.content])).toEqual([
      ["toolu_A", "echo A"],
      ["toolu_B", "echo B"],
      ["toolu_C", "echo C"],
    ]);
    const turnEnd = h.events.find((e) => e.kind === "turn_end")!;
    expect((turnEnd.data.tool_results as any[]).map((r) => r.call_id)).toEqual(["toolu_A", "toolu_B", "toolu_C"]);
  });

  test("004-9.3 sequential by default: the default profile runs calls one after another", async () => {
    await using h = await harness(
      [
        {
          toolCalls: [
            { name: "slow_echo", arguments: { id: "A", ms: 60 } },
            { name: "slow_echo", arguments: { id: "B", ms: 1 } },
          ],
        },
        { text: "done" },
      ],
      { customTools: [slowEcho] },
    );
    await h.session.submit("echo two");
    const ends = h.events.filter((e) => e.kind === "tool_call_end").map((e) => (e.data.output as any).data.id);
    expect(ends).toEqual(["A", "B"]);
  });

  /** Where each wire API carries the reasoning effort in the request body (the fake server sees the wire). */
  const effortFields: [string, string, (body: any) => unknown][] = [
    ["anthropic thinking budget", "anthropic/claude-sonnet-4-5", (b) => b.thinking?.budget_tokens],
    ["openai reasoning.effort", "openai/gpt-5.2", (b) => b.reasoning?.effort],
    [
      "gemini thinkingConfig.thinkingBudget",
      "gemini/gemini-2.5-flash",
      (b) => b.generationConfig?.thinkingConfig?.thinkingBudget,
    ],
  ];

  test.each(effortFields)(
    "004-9.7 reasoning effort change reaches the next request body (%s)",
    async (_field, model, effortOf) => {
      await using h = await httpHarness([{ text: "one" }, { text: "two" }, { text: "three" }, { text: "four" }], {
        model,
      });
      await h.session.submit("first");
      h.session.setReasoningEffort("high");
      await h.session.submit("second");
      h.session.setReasoningEffort("low");
      await h.session.submit("third");
      h.session.setReasoningEffort(null);
      await h.session.submit("fourth");
      const [none, high, low, reset] = h.fake.requests.map((r) => effortOf(r.body));
      expect(none).toBeUndefined();
      expect(high).toBeDefined();
      expect(low).toBeDefined();
      expect(high).not.toEqual(low);
      expect(reset).toBeUndefined();
      if (typeof high === "number") expect(high).toBeGreaterThan(low as number);
      else expect([high, low]).toEqual(["high", "low"]);
      expect(() => h.session.setReasoningEffort("extreme" as any)).toThrow(/low/);
    },
  );

  test("004-9.7 an effort change during a tool round applies to the very next call of the same input", async () => {
    await using h = await harness([{ toolCalls: [{ name: "ls", arguments: {} }] }, { text: "done" }]);
    const off = h.session.subscribe((e) => {
      if (e.kind === "tool_call_end") h.session.setReasoningEffort("medium");
    });
    await h.session.submit("look");
    off();
    expect(h.fake.requests[0].body.reasoningEffort).toBeUndefined();
    expect(h.fake.requests[1].body.reasoningEffort).toBe("medium");
  });

  test("004-9.10 tool_call_end carries the full output while the model gets the truncated text", async () => {
    await using h = await harness(
      [{ toolCalls: [{ name: "bash", arguments: { command: "seq 1 300" } }] }, { text: "counted" }],
      {
        config: { toolLineLimits: { bash: 20 } },
      },
    );
    const numbered = (text: string) => text.split("\n").filter((l) => /^\d+$/.test(l));
    const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));
    await h.session.submit("count");
    const end = h.events.find((e) => e.kind === "tool_call_end")!;
    const full = end.data.output as any;
    expect(end.data.truncated).toBe(true);
    expect(full.status).toBe("success");
    expect(numbered(full.text)).toEqual(range(1, 300));
    // What the model got, read from the recorded request body: the last 20 lines and the notice.
    const seen = toolResultTexts(h.fake, 1)[0];
    expect(numbered(seen)).toEqual(range(281, 300));
    expect(seen).toContain(
      "[WARNING: Tool output was truncated: 1012 of 1092 characters were removed from the start. Lines 1-280 of 300 are not shown.",
    );
    expect(seen.length).toBeLessThan(full.text.length / 2);
    const spill = /The full output is in (tool-output\/\S+?\.txt)/.exec(seen)?.[1];
    expect(spill).toBeDefined();
    expect(end.data.full_output_path).toBe(spill!);
    expect(numbered(readFileSync(join(h.dir, spill!), "utf8"))).toEqual(range(1, 300));
    // The history (and so every later request) keeps the truncated text, not the full one.
    expect(h.session.messages.find((m) => m.role === "tool")!.content).toBe(seen);
  });

  test("004-9.10 event order of one tool round", async () => {
    await using h = await harness([
      { text: "Let me look.", toolCalls: [{ name: "ls", arguments: {} }] },
      { text: "Empty." },
    ]);
    await h.session.submit("what is here?");
    const order = h.kinds().filter((k) => !["message_update", "assistant_text_delta", "tool_call_update"].includes(k));
    expect(order).toEqual([
      "session_start",
      "agent_start",
      "message_start",
      "message_end",
      "user_input",
      "turn_start",
      "message_start",
      "assistant_text_start",
      "assistant_text_end",
      "message_end",
      "tool_call_start",
      "tool_call_end",
      "message_start",
      "message_end",
      "turn_end",
      "turn_start",
      "message_start",
      "assistant_text_start",
      "assistant_text_end",
      "message_end",
      "turn_end",
      "agent_end",
    ]);
    // Streamed pieces sit inside their bracket: text deltas between text start and end, call
    // updates (the arguments being written) after the text and before the tool runs.
    const kinds = h.kinds();
    const firstTurn = kinds.slice(0, kinds.indexOf("tool_call_start"));
    const textStart = firstTurn.indexOf("assistant_text_start");
    const textEnd = firstTurn.indexOf("assistant_text_end");
    const deltas = firstTurn.flatMap((k, i) => (k === "assistant_text_delta" ? [i] : []));
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.every((i) => i > textStart && i < textEnd)).toBe(true);
    const updates = firstTurn.flatMap((k, i) => (k === "tool_call_update" ? [i] : []));
    expect(updates.length).toBeGreaterThan(0);
    expect(updates.every((i) => i > textStart && i < firstTurn.lastIndexOf("message_end"))).toBe(true);
    const firstDeltas = h
      .of("assistant_text_delta")
      .filter((e) => h.events.indexOf(e) < kinds.indexOf("tool_call_start"));
    expect(firstDeltas.map((e) => e.data.delta).join("")).toBe("Let me look.");
    // The events name the same call and carry the turn's content.
    expect(h.events.find((e) => e.kind === "user_input")!.data.content).toBe("what is here?");
    const start = h.events.find((e) => e.kind === "tool_call_start")!;
    const end = h.events.find((e) => e.kind === "tool_call_end")!;
    const turnEnd = h.events.find((e) => e.kind === "turn_end")!;
    expect(start.data.tool_name).toBe("ls");
    expect(end.data.call_id).toBe(start.data.call_id);
    expect(turnEnd.data.tool_calls).toEqual([{ call_id: start.data.call_id, tool_name: "ls", arguments: {} }]);
    const afterTool = h.events.slice(kinds.indexOf("tool_call_end")).find((e) => e.kind === "message_end")!;
    expect((afterTool.data.message as any).role).toBe("tool");
    expect(h.events.filter((e) => e.kind === "assistant_text_end").map((e) => e.data.text)).toEqual([
      "Let me look.",
      "Empty.",
    ]);
  });
});
