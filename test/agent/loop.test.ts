import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { createDefaultProfile } from "../../lib/profiles/index.ts";
import type { Tool } from "../../tools/types.ts";
import { harness, requestMessages, toolResultTexts } from "./harness.ts";

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
    const h = await harness([{ text: "Hello from the model." }]);
    try {
      const result = await h.session.submit("Say hello");
      expect(result.text).toBe("Hello from the model.");
      expect(result.stopReason).toBe("completed");
      expect(result.turns).toBe(1);
      expect(h.session.state).toBe("IDLE");
      expect(h.kinds()).not.toContain("error");
    } finally {
      await h.cleanup();
    }
  });

  test("J.9 1.2 single tool call: read result reaches the model and the answer", async () => {
    const h = await harness([{ toolCalls: [{ name: "read", arguments: { path: "test.txt" } }] }, { text: "It says: secret-content-42" }]);
    writeFileSync(join(h.dir, "test.txt"), "secret-content-42\n");
    try {
      const result = await h.session.submit("Read test.txt");
      expect(result.text).toContain("secret-content-42");
      expect(toolResultTexts(h.fake, 1).join("\n")).toContain("secret-content-42");
      const end = h.events.find((e) => e.kind === "tool_call_end")!;
      expect(end.data.tool_name).toBe("read");
      expect(end.data.is_error).toBe(false);
    } finally {
      await h.cleanup();
    }
  });

  test("J.9 1.3 several tools in a row: read then edit then bash", async () => {
    const h = await harness([
      { toolCalls: [{ name: "read", arguments: { path: "app.txt" } }] },
      { toolCalls: [{ name: "edit", arguments: { path: "app.txt", old_text: "version 1", new_text: "version 2" } }] },
      { toolCalls: [{ name: "bash", arguments: { command: "cat app.txt" } }] },
      { text: "Bumped to version 2." },
    ]);
    writeFileSync(join(h.dir, "app.txt"), "app version 1\n");
    try {
      const result = await h.session.submit("Bump the version");
      expect(result.turns).toBe(4);
      expect(readFileSync(join(h.dir, "app.txt"), "utf8")).toBe("app version 2\n");
      const ends = h.events.filter((e) => e.kind === "tool_call_end");
      expect(ends.map((e) => e.data.tool_name)).toEqual(["read", "edit", "bash"]);
      expect(ends.every((e) => e.data.is_error === false)).toBe(true);
      expect(toolResultTexts(h.fake, 3).at(-1)).toContain("app version 2");
    } finally {
      await h.cleanup();
    }
  });

  test("J.9 1.7 a second submit while one runs is rejected as busy", async () => {
    const h = await harness([{ text: "slow answer that streams in many pieces", chunkSize: 2, chunkDelayMs: 10 }, { text: "second" }]);
    try {
      const first = h.session.submit("first");
      await expect(h.session.submit("second")).rejects.toThrow(/busy/);
      expect((await first).text).toBe("slow answer that streams in many pieces");
      expect(h.fake.requests.length).toBe(1);
      expect((await h.session.submit("now")).text).toBe("second");
    } finally {
      await h.cleanup();
    }
  });

  test("J.9 1.8 context kept across inputs: the second request carries the first read's result", async () => {
    const h = await harness([
      { toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] },
      { text: "Read it." },
      { text: "The notes said remember-me-7." },
    ]);
    writeFileSync(join(h.dir, "notes.txt"), "remember-me-7\n");
    try {
      await h.session.submit("Read notes.txt");
      const second = await h.session.submit("What did the notes say?");
      expect(second.text).toContain("remember-me-7");
      expect(toolResultTexts(h.fake, 2).join("\n")).toContain("remember-me-7");
      const roles = requestMessages(h.fake, 2).map((m) => m.role);
      expect(roles).toEqual(["user", "assistant", "user", "assistant", "user"]);
    } finally {
      await h.cleanup();
    }
  });
});

describe("004 §9 core loop", () => {
  test("004-9.1 natural completion: a text-only answer ends the loop", async () => {
    const h = await harness([{ toolCalls: [{ name: "ls", arguments: {} }] }, { text: "Done." }, { text: "never requested" }]);
    try {
      const result = await h.session.submit("List files");
      expect(result.stopReason).toBe("completed");
      expect(h.fake.requests.length).toBe(2);
    } finally {
      await h.cleanup();
    }
  });

  test("004-9.1 max_tool_rounds_per_input stops the loop with turn_limit", async () => {
    const h = await harness(() => ({ toolCalls: [{ name: "ls", arguments: {} }] }), { config: { max_tool_rounds_per_input: 2 } });
    try {
      const result = await h.session.submit("Loop forever");
      expect(result.stopReason).toBe("tool_round_limit");
      expect(h.fake.requests.length).toBe(2);
      const limit = h.events.find((e) => e.kind === "turn_limit")!;
      expect(limit.data.round).toBe(2);
      expect(h.session.state).toBe("IDLE");
    } finally {
      await h.cleanup();
    }
  });

  test("004-9.1 max_turns stops the loop across inputs", async () => {
    const h = await harness(() => ({ text: "ok" }), { config: { maxTurns: 2 } });
    try {
      await h.session.submit("one");
      await h.session.submit("two");
      const third = await h.session.submit("three");
      expect(third.stopReason).toBe("turn_limit");
      expect(h.fake.requests.length).toBe(2);
      expect(h.events.filter((e) => e.kind === "turn_limit")[0].data.total_turns).toBe(2);
    } finally {
      await h.cleanup();
    }
  });

  test("004-9.1 several sequential inputs work", async () => {
    const h = await harness([{ text: "a" }, { text: "b" }, { text: "c" }]);
    try {
      expect((await h.session.submit("1")).text).toBe("a");
      expect((await h.session.submit("2")).text).toBe("b");
      expect((await h.session.submit("3")).text).toBe("c");
      expect(h.session.history.length).toBe(6);
    } finally {
      await h.cleanup();
    }
  });

  test("004-9.3 unknown tool gives the model an error result, not an exception", async () => {
    const h = await harness([{ toolCalls: [{ name: "teleport", arguments: { to: "mars" } }] }, { text: "Sorry." }]);
    try {
      const result = await h.session.submit("go");
      expect(result.stopReason).toBe("completed");
      const text = toolResultTexts(h.fake, 1)[0];
      expect(text).toContain("Unknown tool 'teleport'");
      expect(text).toContain("read");
      const toolResult = requestMessages(h.fake, 1).at(-1).content[0];
      expect(toolResult.is_error).toBe(true);
    } finally {
      await h.cleanup();
    }
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
    const h = await harness(
      [{ toolCalls: [{ name: "flaky_read", arguments: { path: "x" } }] }, { toolCalls: [{ name: "ls", arguments: {} }] }, { text: "Recovered." }],
      { customTools: [flaky] },
    );
    try {
      const result = await h.session.submit("read x");
      expect(result.text).toBe("Recovered.");
      expect(toolResultTexts(h.fake, 1)[0]).toContain("file disappeared");
      expect(h.events.find((e) => e.kind === "tool_call_end")!.data.is_error).toBe(true);
    } finally {
      await h.cleanup();
    }
  });

  test("004-9.3 invalid arguments give a validation error the model can act on", async () => {
    const h = await harness([{ toolCalls: [{ name: "read", arguments: { path: 42 } }] }, { text: "ok" }]);
    try {
      await h.session.submit("read");
      expect(toolResultTexts(h.fake, 1)[0]).toMatch(/path/);
      expect(requestMessages(h.fake, 1).at(-1).content[0].is_error).toBe(true);
    } finally {
      await h.cleanup();
    }
  });

  test("004-9.3 J.9 4.6 parallel calls keep their order and ids", async () => {
    const parallel = (o: Parameters<typeof createDefaultProfile>[0]) => ({ ...createDefaultProfile(o), supportsParallelToolCalls: true });
    const h = await harness(
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
    try {
      await h.session.submit("echo three");
      const finished = h.events.filter((e) => e.kind === "tool_call_end").map((e) => e.data.call_id);
      expect(finished).toEqual(["toolu_B", "toolu_C", "toolu_A"]);
      const results = requestMessages(h.fake, 1).at(-1).content;
      expect(results.map((r: any) => r.tool_use_id)).toEqual(["toolu_A", "toolu_B", "toolu_C"]);
      expect(toolResultTexts(h.fake, 1)).toEqual(["echo A", "echo B", "echo C"]);
    } finally {
      await h.cleanup();
    }
  });

  test("004-9.3 sequential by default: the default profile runs calls one after another", async () => {
    const h = await harness(
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
    try {
      await h.session.submit("echo two");
      const ends = h.events.filter((e) => e.kind === "tool_call_end").map((e) => (e.data.output as any).data.id);
      expect(ends).toEqual(["A", "B"]);
    } finally {
      await h.cleanup();
    }
  });

  test("004-9.7 reasoning effort change reaches the next request body", async () => {
    const h = await harness([{ text: "one" }, { text: "two" }, { text: "three" }]);
    try {
      await h.session.submit("first");
      h.session.setReasoningEffort("high");
      await h.session.submit("second");
      h.session.setReasoningEffort(null);
      await h.session.submit("third");
      const [a, b, c] = h.fake.requests.map((r) => r.body);
      expect(a.thinking).toBeUndefined();
      expect(b.thinking?.type).toMatch(/enabled|adaptive/);
      expect(c.thinking).toBeUndefined();
      expect(() => h.session.setReasoningEffort("extreme" as any)).toThrow(/low/);
    } finally {
      await h.cleanup();
    }
  });

  test("004-9.10 tool_call_end carries the full output while the model gets the truncated text", async () => {
    const h = await harness([{ toolCalls: [{ name: "bash", arguments: { command: "seq 1 300" } }] }, { text: "counted" }], {
      config: { toolLineLimits: { bash: 20 } },
    });
    try {
      await h.session.submit("count");
      const end = h.events.find((e) => e.kind === "tool_call_end")!;
      const full = end.data.output as any;
      expect(full.text.split("\n").filter((l: string) => /^\d+$/.test(l)).length).toBe(300);
      expect(end.data.truncated).toBe(true);
      const seen = toolResultTexts(h.fake, 1)[0];
      expect(seen).toContain("\n300");
      expect(seen.split("\n").filter((l) => /^\d+$/.test(l)).length).toBeLessThanOrEqual(20);
      expect(seen.length).toBeLessThan(full.text.length);
      const spill = /tool-output\/\S+?\.json/.exec(seen)?.[0];
      expect(spill && existsSync(join(h.dir, spill))).toBe(true);
    } finally {
      await h.cleanup();
    }
  });

  test("004-9.10 event order of one tool round", async () => {
    const h = await harness([{ text: "Let me look.", toolCalls: [{ name: "ls", arguments: {} }] }, { text: "Empty." }]);
    try {
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
      expect(h.kinds()).toContain("assistant_text_delta");
      expect(h.kinds()).toContain("tool_call_update");
      const turnEnd = h.events.find((e) => e.kind === "turn_end")!;
      expect((turnEnd.data.tool_calls as any[])[0].name).toBe("ls");
    } finally {
      await h.cleanup();
    }
  });
});
