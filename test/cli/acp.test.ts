/**
 * `gong --mode acp` driven by clients no one here wrote: the `acpx` command line (a prompt whose
 * tool call edits a file and shows a diff; a stored session loaded by a later run), and the ACP
 * SDK's own client class (permissions rejected, always allowed and pending at a cancel; cancel
 * mid-tool; the editor's files and terminals as gong's environment; session/load replay). The
 * model is the fake server, in this process, so its request log shows what gong sent.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import type { ScriptTurn } from "../../lib/testing/fake-llm/types.ts";
import { EVERYTHING, NODE } from "../mcp/helpers.ts";
import { CLI, ROOT, startFakeLlm, useWorkspace } from "./helpers.ts";

const ws = useWorkspace();
const ACPX = join(ROOT, "node_modules", "acpx", "dist", "cli.js");

/** gong's command line against the fake server (Chat Completions: the default profile, plain tool names). */
function agentArgs(fake: FakeLlm, approval = "auto"): string[] {
  return ["--mode", "acp", "--model", "ollama/qwen3-coder", "--base-url", fake.baseUrls.openai, "--approval", approval];
}

const bash = (command: string): ScriptTurn => ({ toolCalls: [{ name: "bash", arguments: { command } }] });

interface Editor {
  agent: acp.ClientContext;
  updates: acp.SessionNotification[];
  permissions: acp.RequestPermissionRequest[];
  calls: { method: string; params: unknown }[];
  close(): Promise<void>;
}

interface EditorOptions {
  capabilities?: acp.ClientCapabilities;
  /** Answers permission requests; default: allow once. */
  permit?(request: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse>;
  /** Editor buffers by absolute path (fs/read_text_file answers from here, else from disk). */
  buffers?: Record<string, string>;
}

/** Starts `gong --mode acp` and connects the SDK's client to it, as an editor would. */
async function editor(args: string[], options: EditorOptions = {}): Promise<Editor> {
  const proc = Bun.spawn([process.execPath, CLI, ...args], { cwd: ws.dir, env: ws.env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const updates: acp.SessionNotification[] = [];
  const permissions: acp.RequestPermissionRequest[] = [];
  const calls: { method: string; params: unknown }[] = [];
  const terminals = new Map<string, { output: string; exit: Promise<number> }>();
  const app = acp
    .client()
    .onNotification("session/update", ({ params }) => {
      updates.push(params);
    })
    .onRequest("session/request_permission", async ({ params }) => {
      permissions.push(params);
      return options.permit ? options.permit(params) : { outcome: { outcome: "selected", optionId: "allow_once" } };
    })
    .onRequest("fs/read_text_file", ({ params }) => {
      calls.push({ method: "fs/read_text_file", params });
      return { content: options.buffers?.[params.path] ?? readFileSync(params.path, "utf8") };
    })
    .onRequest("fs/write_text_file", ({ params }) => {
      calls.push({ method: "fs/write_text_file", params });
      options.buffers ??= {};
      options.buffers[params.path] = params.content;
    })
    .onRequest("terminal/create", ({ params }) => {
      calls.push({ method: "terminal/create", params });
      const child = Bun.spawn([params.command, ...(params.args ?? [])], { cwd: params.cwd ?? ws.dir, stdout: "pipe", stderr: "pipe" });
      const id = `term-${terminals.size + 1}`;
      const entry = { output: "", exit: child.exited };
      void new Response(child.stdout).text().then((t) => (entry.output += t));
      terminals.set(id, entry);
      return { terminalId: id };
    })
    .onRequest("terminal/wait_for_exit", async ({ params }) => ({ exitCode: await terminals.get(params.terminalId)!.exit }))
    .onRequest("terminal/output", async ({ params }) => {
      const t = terminals.get(params.terminalId)!;
      await t.exit;
      await Bun.sleep(20);
      return { output: t.output, truncated: false, exitStatus: { exitCode: await t.exit } };
    })
    .onRequest("terminal/release", () => {})
    .onRequest("terminal/kill", () => {});
  const stream = acp.ndJsonStream(
    new WritableStream({
      write(chunk) {
        proc.stdin.write(chunk);
        proc.stdin.flush();
      },
    }),
    proc.stdout as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  await connection.agent.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: options.capabilities ?? {} });
  return {
    agent: connection.agent,
    updates,
    permissions,
    calls,
    async close() {
      connection.close();
      proc.stdin.end();
      const exited = await Promise.race([proc.exited, Bun.sleep(5000).then(() => "hung")]);
      if (exited === "hung") proc.kill("SIGKILL");
    },
  };
}

const kinds = (e: Editor) => e.updates.map((u) => u.update.sessionUpdate);
const toolUpdates = (e: Editor) => e.updates.map((u) => u.update).filter((u): u is Extract<acp.SessionUpdate, { sessionUpdate: "tool_call_update" }> => u.sessionUpdate === "tool_call_update");

describe("gong --mode acp", () => {
  test("acpx: a prompt whose tool call edits a file streams the call, its diff and the answer", async () => {
    writeFileSync(join(ws.dir, "hello.txt"), "a\n");
    const fake = await startFakeLlm({
      script: [{ text: "Editing.", toolCalls: [{ name: "edit", arguments: { path: "hello.txt", old_text: "a", new_text: "b" } }] }, { text: "hello.txt now says b." }],
    });
    const agent = [process.execPath, CLI, ...agentArgs(fake)].join(" ");
    const proc = Bun.spawn(["node", ACPX, "--agent", agent, "--format", "json", "--approve-all", "exec", "change a to b"], { cwd: ws.dir, env: ws.env, stdout: "pipe", stderr: "pipe" });
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(code).toBe(0);
    const messages = out.trim().split("\n").map((l) => JSON.parse(l));
    const updates = messages.filter((m) => m.method === "session/update").map((m) => m.params.update);
    const call = updates.find((u) => u.sessionUpdate === "tool_call");
    expect(call).toMatchObject({ kind: "edit", title: "edit: hello.txt", locations: [{ path: join(realpathSync(ws.dir), "hello.txt") }] });
    const done = updates.find((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
    expect(done.content).toEqual([{ type: "diff", path: join(realpathSync(ws.dir), "hello.txt"), oldText: "a\n", newText: "b\n" }]);
    const text = updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text).join("");
    expect(text).toContain("hello.txt now says b.");
    expect(messages.find((m) => m.result?.stopReason)?.result.stopReason).toBe("end_turn");
    // acpx offers its own fs: the write went through the editor, which wrote the file.
    expect(messages.some((m) => m.method === "fs/write_text_file")).toBe(true);
    expect(readFileSync(join(ws.dir, "hello.txt"), "utf8")).toBe("b\n");
  }, 30_000);

  test("acpx: a later run loads the stored session and the model sees the earlier exchange", async () => {
    const fake = await startFakeLlm({ script: [{ text: "First answer." }, { text: "Second answer." }] });
    const agent = [process.execPath, CLI, ...agentArgs(fake)].join(" ");
    const acpx = async (...args: string[]) => {
      const proc = Bun.spawn(["node", ACPX, "--agent", agent, ...args], { cwd: ws.dir, env: ws.env, stdout: "pipe", stderr: "pipe" });
      const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
      return { out, code };
    };
    expect((await acpx("sessions", "new")).code).toBe(0);
    expect((await acpx("--format", "json", "--ttl", "0.2", "prompt", "remember the word kiwi")).code).toBe(0);
    await Bun.sleep(1000); // the first run's agent has gone away
    const second = await acpx("--format", "json", "--ttl", "0.2", "prompt", "which word?");
    expect(second.code).toBe(0);
    const methods = second.out.trim().split("\n").map((l) => JSON.parse(l).method).filter(Boolean);
    expect(methods).toContain("session/load");
    expect(methods).not.toContain("session/new");
    const last = JSON.stringify(fake.requests.at(-1)!.body.messages);
    expect(last).toContain("remember the word kiwi");
    expect(last).toContain("First answer.");
    expect(last).toContain("which word?");
  }, 40_000);

  test("initialize advertises session loading, images, embedded context and MCP over HTTP", async () => {
    const fake = await startFakeLlm({ script: [] });
    const e = await editor(agentArgs(fake));
    try {
      const init = await e.agent.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      expect(init.protocolVersion).toBe(1);
      expect(init.agentCapabilities).toMatchObject({ loadSession: true, promptCapabilities: { image: true, embeddedContext: true }, mcpCapabilities: { http: true } });
      const session = await e.agent.request("session/new", { cwd: ws.dir, mcpServers: [] });
      expect(session.modes?.availableModes.map((m) => m.id)).toEqual(["ask", "edits", "auto"]);
      expect(session.configOptions?.[0]).toMatchObject({ id: "model", currentValue: "ollama/qwen3-coder" });
    } finally {
      await e.close();
    }
  });

  test("permissions: a rejected command does not run and the model hears why; 'always' asks once per tool", async () => {
    const fake = await startFakeLlm({ script: [bash("touch rejected.txt"), { text: "ok, not running it" }, bash("touch one.txt"), bash("touch two.txt"), { text: "both done" }] });
    let answer: acp.PermissionOptionId = "reject_once";
    const e = await editor(agentArgs(fake, "ask"), { permit: async () => ({ outcome: { outcome: "selected", optionId: answer } }) });
    try {
      const { sessionId } = await e.agent.request("session/new", { cwd: ws.dir, mcpServers: [] });
      const first = await e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "make a file" }] });
      expect(first.stopReason).toBe("end_turn");
      expect(existsSync(join(ws.dir, "rejected.txt"))).toBe(false);
      expect(e.permissions[0].toolCall).toMatchObject({ kind: "execute", title: "bash: touch rejected.txt" });
      expect(JSON.stringify(fake.requests[1].body.messages)).toContain("The user declined this call.");

      answer = "allow_always";
      await e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "make two files" }] });
      expect(existsSync(join(ws.dir, "one.txt"))).toBe(true);
      expect(existsSync(join(ws.dir, "two.txt"))).toBe(true);
      expect(e.permissions.length).toBe(2); // the rejected one, then one 'always' for bash
    } finally {
      await e.close();
    }
  });

  test("cancel while a permission request is open: the call never runs, the turn ends cancelled, the session goes on", async () => {
    const fake = await startFakeLlm({ script: [bash("touch never.txt"), { text: "next turn" }] });
    let asked!: () => void;
    const askedOnce = new Promise<void>((r) => (asked = r));
    const e = await editor(agentArgs(fake, "ask"), {
      permit: () => {
        asked();
        return new Promise(() => {}); // the user never answers
      },
    });
    try {
      const { sessionId } = await e.agent.request("session/new", { cwd: ws.dir, mcpServers: [] });
      const prompt = e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
      await askedOnce;
      await e.agent.notify("session/cancel", { sessionId });
      expect((await prompt).stopReason).toBe("cancelled");
      expect(existsSync(join(ws.dir, "never.txt"))).toBe(false);
      const again = await e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "still there?" }] });
      expect(again.stopReason).toBe("end_turn");
    } finally {
      await e.close();
    }
  });

  test("cancel mid-tool kills the command, reports cancelled, and the session keeps its history", async () => {
    const fake = await startFakeLlm({ script: [bash("echo $$ > pid.txt; sleep 30"), { text: "back again" }] });
    const e = await editor(agentArgs(fake));
    try {
      const { sessionId } = await e.agent.request("session/new", { cwd: ws.dir, mcpServers: [] });
      const prompt = e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "sleep" }] });
      while (!existsSync(join(ws.dir, "pid.txt")) || !readFileSync(join(ws.dir, "pid.txt"), "utf8").trim()) await Bun.sleep(20);
      const pid = Number(readFileSync(join(ws.dir, "pid.txt"), "utf8"));
      await e.agent.notify("session/cancel", { sessionId });
      expect((await prompt).stopReason).toBe("cancelled");
      await Bun.sleep(100);
      expect(() => process.kill(pid, 0)).toThrow();
      expect(toolUpdates(e).at(-1)?.status).toBe("failed");
      await e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "and now?" }] });
      expect(JSON.stringify(fake.requests.at(-1)!.body.messages)).toContain("sleep");
    } finally {
      await e.close();
    }
  });

  test("the editor's files and terminals: reads see the unsaved buffer, writes go to the editor, commands run in its terminal", async () => {
    writeFileSync(join(ws.dir, "notes.txt"), "on disk\n");
    const fake = await startFakeLlm({
      script: [
        { toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] },
        { toolCalls: [{ name: "write", arguments: { path: "out.txt", content: "from gong\n" } }] },
        bash("echo in-the-terminal"),
        { text: "done" },
      ],
    });
    const notes = join(realpathSync(ws.dir), "notes.txt");
    const e = await editor(agentArgs(fake), { capabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true }, buffers: { [notes]: "unsaved buffer\n" } });
    try {
      const { sessionId } = await e.agent.request("session/new", { cwd: ws.dir, mcpServers: [] });
      await e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "work" }] });
      const requests = JSON.stringify(fake.requests.map((r) => r.body.messages));
      expect(requests).toContain("unsaved buffer");
      expect(requests).not.toContain("on disk");
      expect(e.calls.some((c) => c.method === "fs/write_text_file" && (c.params as acp.WriteTextFileRequest).content === "from gong\n")).toBe(true);
      expect(existsSync(join(ws.dir, "out.txt"))).toBe(false); // the editor holds it in a buffer
      expect(e.calls.filter((c) => c.method === "terminal/create").map((c) => (c.params as acp.CreateTerminalRequest).args)).toEqual([["-c", "echo in-the-terminal"]]);
      expect(requests).toContain("in-the-terminal");
      expect(toolUpdates(e).some((u) => u.content?.some((c) => c.type === "terminal"))).toBe(true);
    } finally {
      await e.close();
    }
  });

  test("session/load replays the stored conversation as updates; set_mode and the model option work", async () => {
    const fake = await startFakeLlm({ script: [bash("echo hi"), { text: "it said hi" }] });
    const first = await editor(agentArgs(fake));
    let sessionId: string;
    try {
      sessionId = (await first.agent.request("session/new", { cwd: ws.dir, mcpServers: [] })).sessionId;
      await first.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "say hi" }] });
    } finally {
      await first.close();
    }
    const second = await editor(agentArgs(fake));
    try {
      await second.agent.request("session/load", { sessionId, cwd: ws.dir, mcpServers: [] });
      expect(kinds(second)).toEqual(["user_message_chunk", "tool_call", "agent_message_chunk", "current_mode_update"]);
      expect(second.updates[0].update).toMatchObject({ content: { text: "say hi" } });
      expect(second.updates[1].update).toMatchObject({ kind: "execute", status: "completed" });
      await second.agent.request("session/set_mode", { sessionId, modeId: "ask" });
      await expect(second.agent.request("session/set_mode", { sessionId, modeId: "yolo" })).rejects.toThrow(/Unknown mode/);
      const set = await second.agent.request("session/set_config_option", { sessionId, configId: "model", value: "ollama/llama3.3" });
      expect(set.configOptions[0]).toMatchObject({ currentValue: "ollama/llama3.3" });
      await expect(second.agent.request("session/load", { sessionId: "no-such-session", cwd: ws.dir, mcpServers: [] })).rejects.toThrow();
    } finally {
      await second.close();
    }
  });

  test("the editor's MCP servers (session/new mcpServers): their tools reach the model and answer through the server", async () => {
    // The model keeps to bash until the echo tool shows up in its request (servers connect in the background).
    const script = (request: { body: { tools?: { function?: { name: string } }[]; messages: unknown[] } }): ScriptTurn => {
      const names = (request.body.tools ?? []).map((t) => t.function?.name);
      if (JSON.stringify(request.body.messages).includes("Echo: from the editor")) return { text: "the editor's server answered" };
      if (names.includes("mcp__editor-tools__echo")) return { toolCalls: [{ name: "mcp__editor-tools__echo", arguments: { message: "from the editor" } }] };
      return bash("sleep 0.3");
    };
    const fake = await startFakeLlm({ script });
    const e = await editor(agentArgs(fake));
    try {
      const { sessionId } = await e.agent.request("session/new", {
        cwd: ws.dir,
        mcpServers: [{ name: "editor-tools", command: NODE, args: [EVERYTHING, "stdio"], env: [{ name: "UNUSED", value: "1" }] }],
      });
      const done = await e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "echo something" }] });
      expect(done.stopReason).toBe("end_turn");
      expect(JSON.stringify(fake.requests.at(-1)!.body.messages)).toContain("Echo: from the editor");
    } finally {
      await e.close();
    }
  }, 30_000);
});
