import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Hooks } from "../../lib/agent/index.ts";
import { createDefaultProfile } from "../../lib/profiles/index.ts";
import { tempDir } from "../helpers/temp.ts";
import { harness, requestMessages, toolResultTexts } from "./harness.ts";

const readCall = (path: string) => ({ toolCalls: [{ name: "read", arguments: { path } }] });
const bashCall = (command: string) => ({ toolCalls: [{ name: "bash", arguments: { command } }] });

function lastUserTexts(messages: any[]): string[] {
  return messages
    .filter((m) => m.role === "user")
    .flatMap((m) =>
      typeof m.content === "string"
        ? [m.content]
        : m.content.filter((c: any) => c.type === "text").map((c: any) => c.text),
    );
}

describe("J.10 1. notification hooks (events)", () => {
  test("J.10 1.1 tool execution sends events naming the tool and carrying the result", async () => {
    await using h = await harness([readCall("f.txt"), { text: "ok" }]);
    writeFileSync(join(h.dir, "f.txt"), "data\n");
    await h.session.submit("read");
    const start = h.events.find((e) => e.kind === "tool_call_start")!;
    const end = h.events.find((e) => e.kind === "tool_call_end")!;
    expect(start.data.tool_name).toBe("read");
    expect(end.data.tool_name).toBe("read");
    expect((end.data.output as any).status).toBe("success");
    expect(end.session_id).toBe(h.session.id);
  });

  test("J.10 1.2 agent lifecycle: agent_start then agent_end with duration_ms and steps", async () => {
    await using h = await harness([bashCall("true"), { text: "done" }]);
    await h.session.submit("go");
    const kinds = h.kinds();
    expect(kinds.indexOf("agent_start")).toBeLessThan(kinds.indexOf("agent_end"));
    const end = h.events.find((e) => e.kind === "agent_end")!;
    expect(typeof end.data.duration_ms).toBe("number");
    expect(end.data.steps).toBe(2);
  });

  test("J.10 1.3 turn_end carries the turn's tool calls", async () => {
    await using h = await harness([bashCall("echo hi"), { text: "done" }]);
    await h.session.submit("go");
    const turnEnd = h.events.find((e) => e.kind === "turn_end")!;
    expect(turnEnd.data.tool_calls).toEqual([
      { call_id: expect.any(String), tool_name: "bash", arguments: { command: "echo hi" } },
    ]);
  });
});

describe("J.10 2. gates", () => {
  test("J.10 2.1 beforeToolCall returning ok lets the tool run", async () => {
    const seen: string[] = [];
    const hooks: Hooks = { beforeToolCall: (tool) => (seen.push(tool), "ok") };
    await using h = await harness([bashCall("echo ran > ran.txt"), { text: "done" }], { hooks });
    await h.session.submit("go");
    expect(seen).toEqual(["bash"]);
    expect(existsSync(join(h.dir, "ran.txt"))).toBe(true);
  });

  test("J.10 2.2 beforeToolCall block: the tool does not run and the model is told why", async () => {
    const hooks: Hooks = { beforeToolCall: (tool) => (tool === "bash" ? { block: "needs confirmation" } : undefined) };
    await using h = await harness([bashCall("echo ran > ran.txt"), { text: "ok" }], { hooks });
    await h.session.submit("go");
    expect(existsSync(join(h.dir, "ran.txt"))).toBe(false);
    expect(toolResultTexts(h.fake, 1)[0]).toContain("needs confirmation");
    expect(requestMessages(h.fake, 1).at(-1).isError).toBe(true);
  });

  test("J.10 2.3 gate chain: the first passes, the second blocks, later ones are not asked", async () => {
    const asked: string[] = [];
    const hooks: Hooks[] = [
      { beforeToolCall: () => (asked.push("a"), "ok") },
      { beforeToolCall: () => (asked.push("b"), { block: "forbidden" }) },
      { beforeToolCall: () => (asked.push("c"), "ok") },
    ];
    await using h = await harness([bashCall("echo ran > ran.txt"), { text: "ok" }], { hooks });
    await h.session.submit("go");
    expect(asked).toEqual(["a", "b"]);
    expect(existsSync(join(h.dir, "ran.txt"))).toBe(false);
  });

  test("J.10 2.4 beforeSessionOp cancel stops an automatic compaction and leaves the history alone", async () => {
    const ops: [string, unknown][] = [];
    const hooks: Hooks = {
      beforeSessionOp: (op, meta) => (ops.push([op, meta.reason]), op === "compact" ? "cancel" : "ok"),
    };
    // 16,000 characters of output (~4,000 tokens) in a 20,000-token window leave less than the reserve: compaction is due.
    const small = (o: Parameters<typeof createDefaultProfile>[0]) => ({
      ...createDefaultProfile(o),
      contextWindowSize: 20_000,
    });
    await using h = await harness([bashCall("head -c 16000 /dev/zero | tr '\\0' x"), { text: "done" }], {
      hooks,
      profile: small,
    });
    expect((await h.session.submit("fill the context")).text).toBe("done");
    // Asked at both turn boundaries (after the tool round and after the answer), refused both times.
    expect(ops).toEqual([
      ["compact", "threshold"],
      ["compact", "threshold"],
    ]);
    expect(h.kinds()).not.toContain("compaction_start");
    expect(h.events.find((e) => e.kind === "compaction_end")!.data).toMatchObject({
      compacted: false,
      cancelled: true,
    });
    // No summary request went out and the next request carried the whole history.
    expect(h.fake.requests).toHaveLength(2);
    expect(h.session.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(toolResultTexts(h.fake, 1)[0]).toContain("x".repeat(16_000));
  });

  test("J.10 2.4 beforeSessionOp cancel stops a manual compaction", async () => {
    const hooks: Hooks = { beforeSessionOp: (op) => (op === "compact" ? "cancel" : "ok") };
    await using h = await harness([{ text: "one" }], { hooks, config: { compactKeepRecentTokens: 1 } });
    await h.session.submit("hello");
    const before = JSON.stringify(h.session.messages);
    expect(await h.session.compact()).toBe(false);
    expect(JSON.stringify(h.session.messages)).toBe(before);
    expect(h.kinds()).not.toContain("compaction_start");
    expect(h.fake.requests).toHaveLength(1);
  });

  test("J.10 2.4 beforeSessionOp is asked before a fork and a branch; cancel leaves the session where it was", async () => {
    const ops: [string, unknown][] = [];
    let refuse = true;
    const hooks: Hooks = { beforeSessionOp: (op, meta) => (ops.push([op, meta.entry_id]), refuse ? "cancel" : "ok") };
    await using h = await harness([{ text: "one" }, { text: "two" }], { hooks });
    await h.session.submit("first");
    await h.session.submit("second");
    const id = h.session.id;
    const file = h.session.sessionFile;
    await expect(h.session.fork()).rejects.toThrow(/cancelled by a beforeSessionOp hook/);
    expect(h.session.id).toBe(id);
    const firstAnswer = h.session.messages.length; // unchanged below
    const entries = readFileSync(file!, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const firstUser = entries.find((e) => e.type === "message" && e.message.content === "first")!.id;
    await expect(h.session.branch(firstUser)).rejects.toThrow(/cancelled/);
    expect(h.session.messages.length).toBe(firstAnswer);
    expect(ops.map(([op]) => op)).toEqual(["fork", "branch"]);
    expect(ops[1][1]).toBe(firstUser);

    refuse = false;
    await h.session.branch(firstUser);
    expect(h.session.messages.map((m) => m.content)).toEqual(["first"]);
    const forked = await h.session.fork();
    expect(forked.id).not.toBe(id);
    expect(h.session.id).toBe(forked.id);
    expect(ops.map(([op]) => op)).toEqual(["fork", "branch", "branch", "fork"]);
  });

  test("J.2 5.7 a beforeToolCall hook blocks rm -rf / and the command never runs", async () => {
    const hooks: Hooks = {
      beforeToolCall: (tool, params) =>
        tool === "bash" && /rm\s+-rf\s+\/(\s|$)/.test(String(params.command))
          ? { block: "refusing to delete the filesystem root" }
          : undefined,
    };
    // Harmless if it ever ran: it only writes a marker file.
    await using h = await harness([bashCall("echo rm -rf / > ran.txt"), { text: "ok" }], { hooks });
    await h.session.submit("clean up");
    expect(existsSync(join(h.dir, "ran.txt"))).toBe(false);
    expect(toolResultTexts(h.fake, 1)[0]).toContain("refusing to delete");
  });
});

describe("J.10 3. pipes", () => {
  test("J.10 3.1 onToolResult redacts a secret before the model sees it", async () => {
    const hooks: Hooks = {
      onToolResult: (_tool, result) => ({ text: result.text.replace(/API_KEY=\S+/g, "API_KEY=[REDACTED]") }),
    };
    await using h = await harness([readCall(".env"), { text: "ok" }], { hooks });
    writeFileSync(join(h.dir, ".env"), "API_KEY=sk-very-secret\n");
    await h.session.submit("read .env");
    const seen = toolResultTexts(h.fake, 1)[0];
    expect(seen).toContain("API_KEY=[REDACTED]");
    expect(seen).not.toContain("sk-very-secret");
  });

  test("J.10 3.2 onToolResult hooks chain: [a][b]", async () => {
    const hooks: Hooks[] = [
      { onToolResult: (_t, r) => ({ ...r, text: `${r.text}[a]` }) },
      { onToolResult: (_t, r) => ({ ...r, text: `${r.text}[b]` }) },
    ];
    await using h = await harness([bashCall("printf out"), { text: "ok" }], { hooks });
    await h.session.submit("go");
    expect(toolResultTexts(h.fake, 1)[0].endsWith("[a][b]")).toBe(true);
  });

  test("J.10 3.3 a partial change keeps the other fields (exit_code stays 0)", async () => {
    const hooks: Hooks = { onToolResult: () => ({ text: "rewritten" }) };
    await using h = await harness([bashCall("printf output"), { text: "ok" }], { hooks });
    await h.session.submit("go");
    const full = h.events.find((e) => e.kind === "tool_call_end")!.data.output as any;
    expect(full.text).toBe("rewritten");
    expect(full.data.exit_code).toBe(0);
    expect(full.status).toBe("success");
    expect(toolResultTexts(h.fake, 1)[0]).toBe("rewritten");
  });

  test("J.10 3.4 onContext adds a message the model receives", async () => {
    const hooks: Hooks = { onContext: (messages) => [...messages, { role: "user", content: "[note: be brief]" }] };
    await using h = await harness([{ text: "ok" }], { hooks });
    await h.session.submit("hello");
    expect(lastUserTexts(requestMessages(h.fake, 0))).toContain("[note: be brief]");
    expect(h.session.messages.length).toBe(2);
  });

  test("J.10 3.5 onInput transforms the user's text", async () => {
    const hooks: Hooks = { onInput: (text) => ({ transform: text === "你好" ? "hello" : text }) };
    await using h = await harness([{ text: "hi" }], { hooks });
    await h.session.submit("你好");
    expect(lastUserTexts(requestMessages(h.fake, 0))).toEqual(["hello"]);
  });

  test("J.10 3.6 onInput handled: later hooks are skipped and the agent does nothing", async () => {
    const later: string[] = [];
    const hooks: Hooks[] = [{ onInput: () => "handled" }, { onInput: (t) => (later.push(t), "passthrough") }];
    await using h = await harness([{ text: "unused" }], { hooks });
    const result = await h.session.submit("/local-command");
    expect(result.stopReason).toBe("handled");
    expect(later).toEqual([]);
    expect(h.fake.requests.length).toBe(0);
    expect(h.session.messages.length).toBe(0);
  });

  test("J.10 3.7 onBeforeAgent injects messages and changes the system prompt", async () => {
    const hooks: Hooks = {
      onBeforeAgent: (prompt, system) => ({
        system: `${system}\nEXTRA-RULE`,
        messages: [{ role: "user", content: "extra context" }],
        prompt: `${prompt}!`,
      }),
    };
    await using h = await harness([{ text: "ok" }], { hooks });
    await h.session.submit("task");
    expect(lastUserTexts(requestMessages(h.fake, 0))).toEqual(["task!", "extra context"]);
    expect(JSON.stringify(h.fake.requests[0].body.system)).toContain("EXTRA-RULE");
  });
});

describe("J.10 4. errors and isolation", () => {
  test("J.10 4.1 J.10 4.2 a throwing hook is skipped with a hook_error carrying the stack; the next hook runs", async () => {
    const hooks: Hooks[] = [
      {
        name: "broken",
        onToolResult: () => {
          throw new RuntimeError("boom");
        },
      },
      { onToolResult: (_t, r) => ({ text: `${r.text}[b]` }) },
    ];
    await using h = await harness([bashCall("printf x"), { text: "ok" }], { hooks });
    await h.session.submit("go");
    const error = h.events.find((e) => e.kind === "hook_error")!;
    expect(error.data.hook).toBe("broken");
    expect(error.data.callback).toBe("onToolResult");
    expect(error.data.error).toBe("boom");
    expect(String(error.data.stack)).toContain("RuntimeError");
    expect(String(error.data.stack)).toContain("hooks.test.ts");
    expect(toolResultTexts(h.fake, 1)[0]).toBe("x[b]");
  });

  test("J.10 4.3 a hook that overruns its timeout is skipped and the agent goes on", async () => {
    const hooks: Hooks[] = [
      { name: "stuck", onToolResult: () => new Promise<never>(() => {}) },
      { onToolResult: (_t, r) => ({ text: `${r.text}[b]` }) },
    ];
    await using h = await harness([bashCall("printf quick"), { text: "ok" }], {
      hooks,
      config: { hook_timeout_ms: 50 },
    });
    const result = await h.session.submit("go");
    expect(result.text).toBe("ok");
    expect(toolResultTexts(h.fake, 1)[0]).toBe("quick[b]");
    const errors = h.events.filter((e) => e.kind === "hook_error");
    expect(errors).toHaveLength(1);
    expect(errors[0].data).toMatchObject({ hook: "stuck", callback: "onToolResult", timed_out: true });
    expect(String(errors[0].data.error)).toContain("50 ms");
    const kinds = h.kinds();
    expect(kinds.indexOf("hook_error")).toBeLessThan(kinds.indexOf("tool_call_end"));
  });
});

describe("J.10 5. registration", () => {
  test("J.10 5.1 hooks from a module file (hookModules)", async () => {
    using temp = tempDir("gong-hookmod-");
    const dir = temp.dir;
    const file = join(dir, "audit-hook.ts");
    writeFileSync(
      file,
      `export default {
        name: "audit",
        onToolResult(tool: string, result: { text: string }) {
          return { text: result.text + " [audited " + tool + "]" };
        },
      };\n`,
    );
    await using h = await harness([bashCall("printf hi"), { text: "ok" }], { hookModules: [file] });
    await h.session.submit("go");
    expect(toolResultTexts(h.fake, 1)[0]).toBe("hi [audited bash]");
  });

  test("J.10 5.2 hooks given to createSession", async () => {
    const calls: string[] = [];
    await using h = await harness([bashCall("printf hi"), { text: "ok" }], {
      hooks: { beforeToolCall: (tool) => void calls.push(tool) },
    });
    await h.session.submit("go");
    expect(calls).toEqual(["bash"]);
  });

  test("J.10 5.1 a hook module that does not export hooks is a clear error", async () => {
    using temp = tempDir("gong-hookmod-");
    const dir = temp.dir;
    const file = join(dir, "bad.ts");
    writeFileSync(file, "export default 42;\n");
    await expect(harness([], { hookModules: [file] })).rejects.toThrow(/default-export a hooks object/);
  });
});

class RuntimeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RuntimeError";
  }
}
