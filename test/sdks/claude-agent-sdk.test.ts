/**
 * Issue 36, the Claude Agent SDK drives gong: `query()` with `pathToClaudeCodeExecutable`
 * pointing at gong, against the fake server, on each of the four wire APIs — streaming input, the
 * system/init, assistant, user and result messages, `canUseTool` allowing one call and denying
 * another, a `PreToolUse` hook callback blocking a command, `interrupt()`, `resume`, `continue`, `forkSession` and a session
 * id the program chooses, `outputFormat`, and a control request gong does not answer. The program
 * sees Claude Code's tools (`Bash`), whatever the model.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import {
  type CanUseTool,
  createSdkMcpServer,
  type HookCallback,
  type Options,
  query,
  type SDKMessage,
  type SDKUserMessage,
  tool,
} from "@anthropic-ai/claude-agent-sdk";
import { z } from "zod";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import type { Script } from "../../lib/testing/fake-llm/types.ts";
import { startFakeLlm, useWorkspace } from "../cli/helpers.ts";
import { gongExecutable, SDK_WIRES, type SdkWire, wireEnv } from "./helpers.ts";

const ws = useWorkspace();

const bash = (command: string) => ({ name: "Bash", arguments: { command } });

function user(text: string): SDKUserMessage {
  return { type: "user", message: { role: "user", content: text }, parent_tool_use_id: null, session_id: "" };
}

/** Streaming input: the messages, then the input stays open until `done` resolves (a program still talking). */
async function* stream(texts: string[], done: Promise<unknown> = Promise.resolve()): AsyncGenerator<SDKUserMessage> {
  for (const text of texts) yield user(text);
  await done;
}

async function setup(wire: SdkWire, script: Script): Promise<{ fake: FakeLlm; options: Options; stderr: string[] }> {
  const fake = await startFakeLlm({ script });
  const stderr: string[] = [];
  const options: Options = {
    pathToClaudeCodeExecutable: gongExecutable(ws.home),
    cwd: ws.dir,
    env: wireEnv(ws, wire, fake),
    model: wire.model,
    stderr: (data) => void stderr.push(data),
  };
  return { fake, options, stderr };
}

async function collect(messages: AsyncIterable<SDKMessage>): Promise<SDKMessage[]> {
  const out: SDKMessage[] = [];
  for await (const m of messages) out.push(m);
  return out;
}

const kinds = (messages: SDKMessage[]) =>
  messages.map((m) => (m.type === "system" || m.type === "result" ? `${m.type}/${m.subtype}` : m.type));

describe.each(SDK_WIRES)("issue 36 the Claude Agent SDK's query() runs on gong ($name)", (wire) => {
  test("streaming input: system/init, assistant and user messages with Claude Code's blocks, a result each", async () => {
    const { fake, options } = await setup(wire, [
      { toolCalls: [bash("echo from-the-sdk")] },
      { text: "It printed from-the-sdk.", usage: { input: 30, output: 6 } },
      { text: "Second answer." },
    ]);
    const messages = await collect(
      query({
        prompt: stream(["Run the command", "And now?"]),
        options: { ...options, permissionMode: "bypassPermissions" },
      }),
    );
    expect(kinds(messages)).toEqual([
      "system/init",
      "assistant",
      "user",
      "assistant",
      "result/success",
      "assistant",
      "result/success",
    ]);
    const [init, call, toolResult, , first, , second] = messages as any[];
    expect(init).toMatchObject({ cwd: ws.dir, model: wire.model, permissionMode: "bypassPermissions" });
    expect(init.tools).toContain("Bash");
    expect(call.message.content[0]).toMatchObject({
      type: "tool_use",
      name: "Bash",
      input: { command: "echo from-the-sdk" },
    });
    expect(toolResult.message.content[0]).toMatchObject({
      type: "tool_result",
      tool_use_id: call.message.content[0].id,
    });
    expect(JSON.stringify(toolResult.message.content[0].content)).toContain("from-the-sdk");
    expect(first).toMatchObject({ result: "It printed from-the-sdk.", is_error: false, num_turns: 2 });
    expect(first.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
    expect(second).toMatchObject({ result: "Second answer.", session_id: init.session_id });
    expect(JSON.stringify(fake.requests[2].body)).toContain("It printed from-the-sdk.");
  });

  test("canUseTool allows one call and denies another; the model reads the denial", async () => {
    const { options } = await setup(wire, [
      { toolCalls: [bash("echo allowed-call")] },
      { toolCalls: [bash("touch denied-file")] },
      { text: "Done." },
    ]);
    const asked: { tool: string; input: Record<string, unknown> }[] = [];
    const canUseTool: CanUseTool = async (tool, input) => {
      asked.push({ tool, input });
      return String(input.command).startsWith("echo")
        ? { behavior: "allow", updatedInput: input }
        : { behavior: "deny", message: "no new files today" };
    };
    const messages = await collect(query({ prompt: "Do both", options: { ...options, canUseTool } }));
    expect(asked.map((a) => [a.tool, a.input.command])).toEqual([
      ["Bash", "echo allowed-call"],
      ["Bash", "touch denied-file"],
    ]);
    const results = messages.flatMap((m: any) => (m.type === "user" ? m.message.content : []));
    expect(JSON.stringify(results[0].content)).toContain("allowed-call");
    expect(results[1].is_error).toBe(true);
    expect(JSON.stringify(results[1].content)).toContain("no new files today");
    expect(messages.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "Done." });
    expect(existsSync(`${ws.dir}/denied-file`)).toBe(false);
  });

  test("permissionMode dontAsk from the start: what no rule allows is refused without asking canUseTool", async () => {
    const { options } = await setup(wire, [{ toolCalls: [bash("touch unasked-file")] }, { text: "Refused." }]);
    const asked: string[] = [];
    const canUseTool: CanUseTool = async (tool, input) => {
      asked.push(tool);
      return { behavior: "allow", updatedInput: input };
    };
    const messages = await collect(
      query({ prompt: "Make a file", options: { ...options, canUseTool, permissionMode: "dontAsk" } }),
    );
    expect(asked).toEqual([]);
    const results = messages.flatMap((m: any) => (m.type === "user" ? m.message.content : []));
    expect(results[0].is_error).toBe(true);
    expect(JSON.stringify(results[0].content)).toContain("dontAsk");
    expect(existsSync(`${ws.dir}/unasked-file`)).toBe(false);
  });

  test("a PreToolUse hook callback blocks a command", async () => {
    const { options } = await setup(wire, [{ toolCalls: [bash("touch hooked-file")] }, { text: "Blocked, then." }]);
    const seen: unknown[] = [];
    const block: HookCallback = async (input) => {
      seen.push(input);
      return {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "deny",
          permissionDecisionReason: "the hook forbids touch",
        },
      };
    };
    const messages = await collect(
      query({
        prompt: "Make the file",
        options: {
          ...options,
          permissionMode: "bypassPermissions",
          hooks: { PreToolUse: [{ matcher: "Bash", hooks: [block] }] },
        },
      }),
    );
    expect(seen[0]).toMatchObject({
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "touch hooked-file" },
    });
    const result = messages.flatMap((m: any) => (m.type === "user" ? m.message.content : []))[0];
    expect(result.is_error).toBe(true);
    expect(JSON.stringify(result.content)).toContain("the hook forbids touch");
    expect(existsSync(`${ws.dir}/hooked-file`)).toBe(false);
  });

  test("interrupt() stops the running turn; the session takes the next message", async () => {
    const { options } = await setup(wire, [{ toolCalls: [bash("sleep 60")] }, { text: "After the interrupt." }]);
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    let sendNext!: () => void;
    const next = new Promise<void>((resolve) => (sendNext = resolve));
    async function* input(): AsyncGenerator<SDKUserMessage> {
      yield user("Sleep");
      await next;
      yield user("Go on");
      await done;
    }
    const q = query({ prompt: input(), options: { ...options, permissionMode: "bypassPermissions" } });
    const messages: SDKMessage[] = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === "assistant" && JSON.stringify(m.message.content).includes("sleep 60")) await q.interrupt();
      if (m.type === "result" && messages.filter((x) => x.type === "result").length === 1) sendNext();
      if (m.type === "result" && messages.filter((x) => x.type === "result").length === 2) finish();
    }
    const results = messages.filter((m) => m.type === "result") as any[];
    expect(results).toHaveLength(2);
    expect(results[0].is_error).toBe(true);
    expect(results[1]).toMatchObject({ subtype: "success", result: "After the interrupt." });
  });

  test("resume continues the session; a session id the program chose; outputFormat gives structured_output", async () => {
    const answer = { city: "Paris", population: 2 };
    const { fake, options } = await setup(wire, [{ text: "Remembered: blue." }, { text: JSON.stringify(answer) }]);
    const sessionId = crypto.randomUUID();
    const first = await collect(query({ prompt: "My colour is blue", options: { ...options, sessionId } }));
    expect(first.at(-1)).toMatchObject({ type: "result", session_id: sessionId, result: "Remembered: blue." });
    const schema = {
      type: "object",
      properties: { city: { type: "string" }, population: { type: "number" } },
      required: ["city", "population"],
    };
    const second = await collect(
      query({
        prompt: "Which city?",
        options: { ...options, resume: sessionId, outputFormat: { type: "json_schema", schema } },
      }),
    );
    expect(second.at(-1)).toMatchObject({ type: "result", subtype: "success", structured_output: answer });
    expect(JSON.stringify(fake.requests[1].body)).toContain("Remembered: blue.");
  });

  test("continue takes the latest session of the directory; forkSession branches a resumed one under a new id", async () => {
    const { fake, options } = await setup(wire, [
      { text: "Noted: 7." },
      { text: "It was 7." },
      { text: "Forked: still 7." },
    ]);
    const first = await collect(query({ prompt: "Remember 7", options }));
    const firstId = (first.at(-1) as { session_id: string }).session_id;
    const continued = await collect(query({ prompt: "What number?", options: { ...options, continue: true } }));
    expect(continued.at(-1)).toMatchObject({ type: "result", session_id: firstId, result: "It was 7." });
    expect(JSON.stringify(fake.requests[1].body)).toContain("Noted: 7.");
    const forked = await collect(
      query({ prompt: "And now?", options: { ...options, resume: firstId, forkSession: true } }),
    );
    const forkId = (forked.at(-1) as { session_id: string }).session_id;
    expect(forked.at(-1)).toMatchObject({ type: "result", result: "Forked: still 7." });
    expect(forkId).not.toBe(firstId);
    expect(JSON.stringify(fake.requests[2].body)).toContain("It was 7.");
  });

  test("a control request gong does not answer is an error naming it", async () => {
    const { options } = await setup(wire, [{ text: "Hello." }]);
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const q = query({ prompt: stream(["Hi"], done), options });
    const reply = await q.setMaxThinkingTokens(1000).then(
      () => "answered",
      (e: Error) => e.message,
    );
    expect(reply).toContain("set_max_thinking_tokens");
    finish();
    const messages = await collect(q);
    expect(messages.at(-1)).toMatchObject({ type: "result", result: "Hello." });
  });
});

describe.each(SDK_WIRES)(
  "issue 36 the Claude Agent SDK's in-process servers and session controls on gong ($name)",
  (wire) => {
    test("an SDK MCP tool (createSdkMcpServer) the model calls runs in the program", async () => {
      const { options } = await setup(wire, [
        { toolCalls: [{ name: "mcp__calc__add", arguments: { a: 2, b: 40 } }] },
        { text: "The sum is 42." },
      ]);
      const calls: unknown[] = [];
      const calc = createSdkMcpServer({
        name: "calc",
        version: "1.0.0",
        tools: [
          tool("add", "Adds two numbers", { a: z.number(), b: z.number() }, async ({ a, b }) => {
            calls.push({ a, b });
            return { content: [{ type: "text", text: String(a + b) }] };
          }),
        ],
      });
      const messages = await collect(
        query({
          prompt: "Add 2 and 40",
          options: { ...options, permissionMode: "bypassPermissions", mcpServers: { calc } },
        }),
      );
      const init = messages[0] as any;
      expect(init.tools).toContain("mcp__calc__add");
      expect(init.mcp_servers).toEqual([{ name: "calc", status: "connected" }]);
      expect(calls).toEqual([{ a: 2, b: 40 }]);
      const result = messages.flatMap((m: any) => (m.type === "user" ? m.message.content : []))[0];
      expect(JSON.stringify(result.content)).toContain("42");
      expect(messages.at(-1)).toMatchObject({ type: "result", result: "The sum is 42." });
    });

    test("setPermissionMode() and setModel() between turns; partial messages stream the answer", async () => {
      const { fake, options } = await setup(wire, [
        { text: "First." },
        { toolCalls: [bash("echo after-mode-change")] },
        { text: "Second, streamed.", chunkSize: 4 },
      ]);
      let sendNext!: () => void;
      const next = new Promise<void>((resolve) => (sendNext = resolve));
      let finish!: () => void;
      const done = new Promise<void>((resolve) => (finish = resolve));
      async function* input(): AsyncGenerator<SDKUserMessage> {
        yield user("One");
        await next;
        yield user("Two");
        await done;
      }
      const asked: string[] = [];
      const q = query({
        prompt: input(),
        options: {
          ...options,
          includePartialMessages: true,
          canUseTool: async (toolName, input) => {
            asked.push(toolName);
            return { behavior: "allow", updatedInput: input };
          },
        },
      });
      const messages: SDKMessage[] = [];
      for await (const m of q) {
        messages.push(m);
        if (m.type !== "result") continue;
        if (messages.filter((x) => x.type === "result").length === 2) {
          finish();
          continue;
        }
        // Nothing is asked in bypassPermissions; the next turn runs on the model set here.
        await q.setPermissionMode("bypassPermissions");
        await q.setModel(wire.otherModel);
        sendNext();
      }
      expect(asked).toEqual([]);
      expect(messages.filter((m) => m.type === "result").map((m: any) => m.result)).toEqual([
        "First.",
        "Second, streamed.",
      ]);
      const deltas = messages.flatMap((m: any) =>
        m.type === "stream_event" && m.event.type === "content_block_delta" ? [m.event.delta.text] : [],
      );
      expect(deltas.join("")).toBe("First.Second, streamed.");
      expect(deltas.length).toBeGreaterThan(2);
      const events = messages.flatMap((m: any) => (m.type === "stream_event" ? [m.event.type] : []));
      expect(events.slice(0, 3)).toEqual(["message_start", "content_block_start", "content_block_delta"]);
      expect(events).toContain("message_stop");
      expect(fake.requests).toHaveLength(3);
      // The second turn's calls went to the model setModel named.
      const id = wire.otherModel.slice(wire.otherModel.indexOf("/") + 1);
      const called = (i: number) => fake.requests[i].body.model ?? /models\/([^:]+):/.exec(fake.requests[i].path)?.[1];
      expect(called(0)).not.toBe(id);
      expect(called(2)).toBe(id);
    });
  },
);
