import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import type { Hooks } from "../../lib/agent/index.ts";
import type { Tool } from "../../tools/types.ts";
import { harness, requestMessages, toolResultTexts } from "./harness.ts";

const toolNames = (body: any): string[] => (body.tools ?? []).map((t: any) => t.name);

describe("003 §10 tool presets", () => {
  test("TOOLCFG-001 all seven tools and the web fetch tool are active by default (and the profile's subagent tools after them)", async () => {
    await using h = await harness([{ text: "ok" }]);
    await h.session.submit("hi");
    expect(toolNames(h.fake.requests[0].body)).toEqual([
      "read",
      "write",
      "edit",
      "bash",
      "grep",
      "find",
      "ls",
      "web_fetch",
      ...SUBAGENT_TOOLS,
    ]);
  });

  test("TOOLCFG-002 the minimal preset offers read, write, edit, bash", async () => {
    await using h = await harness([{ text: "ok" }], { tools: "minimal" });
    await h.session.submit("hi");
    expect(toolNames(h.fake.requests[0].body)).toEqual(["read", "write", "edit", "bash"]);
  });

  test("TOOLCFG-003 the readonly preset has no write, edit or bash", async () => {
    await using h = await harness([{ text: "ok" }], { tools: "readonly" });
    await h.session.submit("hi");
    const names = toolNames(h.fake.requests[0].body);
    expect(names).toEqual(["read", "grep", "find", "ls"]);
    expect(h.session.systemPrompt()).not.toContain("- bash:");
  });

  test("TOOLCFG-004 a runtime switch shows in the very next request (tools and prompt)", async () => {
    await using h = await harness([{ toolCalls: [{ name: "ls", arguments: {} }] }, { text: "one" }, { text: "two" }]);
    const events: string[] = [];
    h.session.subscribe((e) => {
      if (e.kind === "tool_call_end") {
        h.session.setTools("readonly");
        events.push("switched");
      }
    });
    await h.session.submit("first");
    expect(events).toEqual(["switched"]);
    expect(toolNames(h.fake.requests[0].body)).toHaveLength(8 + SUBAGENT_TOOLS.length);
    expect(toolNames(h.fake.requests[1].body)).toEqual(["read", "grep", "find", "ls"]);
    h.session.setTools(["read", "bash"]);
    await h.session.submit("second");
    expect(toolNames(h.fake.requests[2].body)).toEqual(["read", "bash"]);
    expect(JSON.stringify(h.fake.requests[2].body.system)).toContain("- bash:");
  });

  test("TOOLCFG-005 an unknown tool name is refused and the active set is unchanged", async () => {
    await using h = await harness([{ text: "ok" }], { tools: "minimal" });
    expect(() => h.session.setTools(["nonexistent"])).toThrow(/Unknown tool 'nonexistent'/);
    expect(() => h.session.setTools("everything" as any)).toThrow(/Unknown tool preset/);
    await h.session.submit("hi");
    expect(toolNames(h.fake.requests[0].body)).toEqual(["read", "write", "edit", "bash"]);
  });

  test("TOOLCFG-006 an empty tool list is refused", async () => {
    await using h = await harness([{ text: "ok" }]);
    expect(() => h.session.setTools([])).toThrow(/empty/);
    expect(h.session.tools).toHaveLength(8 + SUBAGENT_TOOLS.length);
  });
});

describe("one rule for custom and subagent tools: all on under the default preset, otherwise when named", () => {
  test("setTools('default') keeps a custom tool and the subagent tools, as createSession does", async () => {
    await using h = await harness([{ text: "ok" }], { customTools: [plainText] });
    const atStart = [...h.session.tools];
    expect(atStart).toEqual([
      "read",
      "write",
      "edit",
      "bash",
      "grep",
      "find",
      "ls",
      "web_fetch",
      "plain_text",
      ...SUBAGENT_TOOLS,
    ]);
    h.session.setTools("minimal");
    expect(h.session.tools).toEqual(["read", "write", "edit", "bash"]);
    h.session.setTools("default");
    expect(h.session.tools).toEqual(atStart);
    h.session.setTools(["read", "plain_text", "spawn_agent"]);
    expect(h.session.tools).toEqual(["read", "plain_text", "spawn_agent"]);
    await h.session.submit("hi");
    expect(toolNames(h.fake.requests[0].body)).toEqual(["read", "plain_text", "spawn_agent"]);
  });

  test("setProfile keeps the custom tool and brings the subagent tools over in the new profile's names", async () => {
    await using h = await harness([{ text: "ok" }], { customTools: [plainText] });
    h.session.setTools("default");
    h.session.setProfile("anthropic");
    expect(h.session.tools).toEqual([
      "Read",
      "Write",
      "Edit",
      "Bash",
      "TaskOutput",
      "TaskStop",
      "Grep",
      "Glob",
      "TodoWrite",
      "WebFetch",
      "WebSearch",
      "AskUserQuestion",
      "EnterPlanMode",
      "ExitPlanMode",
      "plain_text",
      "Agent",
    ]);
    h.session.setProfile("default");
    expect(h.session.tools).toEqual([
      "read",
      "write",
      "edit",
      "bash",
      "grep",
      "find",
      "ls",
      "web_fetch",
      "plain_text",
      ...SUBAGENT_TOOLS,
    ]);
  });

  test("a list naming another profile's subagent tool leaves it out; a custom tool it names stays across profiles", async () => {
    await using h = await harness([{ text: "ok" }], {
      customTools: [plainText],
      tools: ["read", "plain_text", "wait_agent"],
    });
    expect(h.session.tools).toEqual(["read", "plain_text"]);
    h.session.setProfile("anthropic");
    expect(h.session.tools).toEqual(["Read", "plain_text"]);
  });
});

/** The default profile's subagent tools, active beside the seven (see test/agent/subagents.test.ts). */
const SUBAGENT_TOOLS = ["spawn_agent", "send_input", "wait", "close_agent"];

const plainText: Tool<Record<string, never>> = {
  name: "plain_text",
  description: "Returns plain text only.",
  schema: v.object({}),
  truncation: "head",
  async run(_args, ctx) {
    return ctx.reply.success({}, "just text");
  },
};

describe("003 §11 dual channel (envelope text for the model, data for hosts)", () => {
  test("TOOLRES-001 a text-only result: the model gets the text, data is empty", async () => {
    await using h = await harness([{ toolCalls: [{ name: "plain_text", arguments: {} }] }, { text: "ok" }], {
      customTools: [plainText],
    });
    await h.session.submit("go");
    expect(toolResultTexts(h.fake, 1)[0]).toBe("just text");
    expect((h.events.find((e) => e.kind === "tool_call_end")!.data.output as any).data).toEqual({});
  });

  test("TOOLRES-002 text and data travel separately: data never reaches the model", async () => {
    const withData: Tool<Record<string, never>> = {
      ...plainText,
      name: "with_data",
      run: async (_a, ctx) => ctx.reply.success({ internal_marker: "DATA-ONLY-123" }, "short text"),
    };
    await using h = await harness([{ toolCalls: [{ name: "with_data", arguments: {} }] }, { text: "ok" }], {
      customTools: [withData],
    });
    await h.session.submit("go");
    expect(JSON.stringify(requestMessages(h.fake, 1))).not.toContain("DATA-ONLY-123");
    expect((h.events.find((e) => e.kind === "tool_call_end")!.data.output as any).data.internal_marker).toBe(
      "DATA-ONLY-123",
    );
  });

  test("TOOLRES-003 edit: short text for the model, the diff in data", async () => {
    await using h = await harness([
      { toolCalls: [{ name: "edit", arguments: { path: "a.txt", old_text: "old", new_text: "new" } }] },
      { text: "ok" },
    ]);
    writeFileSync(join(h.dir, "a.txt"), "an old line\n");
    await h.session.submit("edit");
    const full = h.events.find((e) => e.kind === "tool_call_end")!.data.output as any;
    expect(full.data.diff).toContain("+an new line");
    expect(full.data.replacements).toBe(1);
    expect(toolResultTexts(h.fake, 1)[0]).toStartWith("Successfully replaced text in a.txt");
  });

  test("TOOLRES-004 bash: the output as text, exit_code and duration in data", async () => {
    await using h = await harness([
      { toolCalls: [{ name: "bash", arguments: { command: "echo visible" } }] },
      { text: "ok" },
    ]);
    await h.session.submit("run");
    const full = h.events.find((e) => e.kind === "tool_call_end")!.data.output as any;
    expect(full.data.exit_code).toBe(0);
    expect(typeof full.data.duration_ms).toBe("number");
    expect(toolResultTexts(h.fake, 1)[0]).toContain("visible");
    expect(toolResultTexts(h.fake, 1)[0]).not.toContain("exit_code");
  });

  test("TOOLRES-005 an error result is flagged and its text says what went wrong", async () => {
    await using h = await harness([
      { toolCalls: [{ name: "read", arguments: { path: "missing.txt" } }] },
      { text: "ok" },
    ]);
    await h.session.submit("read");
    const result = requestMessages(h.fake, 1).at(-1);
    expect(result.isError).toBe(true);
    expect(toolResultTexts(h.fake, 1)[0]).toMatch(/missing\.txt/);
    const end = h.events.find((e) => e.kind === "tool_call_end")!;
    expect(end.data.is_error).toBe(true);
    expect((end.data.output as any).error.code).toBe("NOT_FOUND");
  });

  test("TOOLRES-006 a hook changing the text leaves data untouched", async () => {
    const hooks: Hooks = { onToolResult: (_t, r) => ({ text: r.text.toUpperCase() }) };
    await using h = await harness(
      [{ toolCalls: [{ name: "bash", arguments: { command: "echo quiet" } }] }, { text: "ok" }],
      { hooks },
    );
    await h.session.submit("run");
    const full = h.events.find((e) => e.kind === "tool_call_end")!.data.output as any;
    expect(toolResultTexts(h.fake, 1)[0]).toContain("QUIET");
    expect(full.data.exit_code).toBe(0);
    expect(full.data.total_bytes).toBe(6);
  });

  test("TOOLRES read images reach the model as image parts", async () => {
    // 1x1 PNG
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
      "base64",
    );
    await using h = await harness([
      { toolCalls: [{ name: "read", arguments: { path: "dot.png" } }] },
      { text: "a dot" },
    ]);
    writeFileSync(join(h.dir, "dot.png"), png);
    await h.session.submit("look");
    const result = requestMessages(h.fake, 1).at(-1);
    const types = Array.isArray(result.content) ? result.content.map((c: any) => c.type) : [];
    expect(types).toContain("image");
  });
});
