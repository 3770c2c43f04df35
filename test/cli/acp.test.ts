/**
 * `gong --mode acp` driven by clients no one here wrote: the `acpx` command line (a prompt whose
 * tool call edits a file and shows a diff; cancel mid-tool; the editor refusing a command or a
 * write; a stored session loaded by a later run), and the ACP SDK's own client class (permissions
 * rejected, always allowed, never asked for a call a settings hook blocks, and pending at a
 * cancel; cancel mid-tool; the editor's files and terminals as gong's environment; session/load
 * replay; MCP servers of the editor and of the session's directory). The model is the fake server, in this process, so its request log shows
 * what gong sent.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import type { ScriptTurn } from "../../lib/testing/fake-llm/types.ts";
import { tempDir } from "../helpers/temp.ts";
import { EVERYTHING, NODE, stdioEntry } from "../mcp/helpers.ts";
import {
  acpx,
  acpxOwnerGone,
  removeAcpxSocketDirs,
  acpxStopReason,
  acpxUpdates,
  agentArgs,
  bash,
  cancelWhenAsked,
  editor,
  gone,
  kinds,
  neverAnswer,
  pidFrom,
  toolUpdates,
  until,
} from "./acp-client.ts";
import { startFakeLlm, useWorkspace } from "./helpers.ts";

const ws = useWorkspace();
afterEach(removeAcpxSocketDirs);

describe("gong --mode acp", () => {
  test("acpx: a prompt whose tool call edits a file streams the call, its diff and the answer", async () => {
    writeFileSync(join(ws.dir, "hello.txt"), "a\n");
    const fake = await startFakeLlm({
      script: [
        {
          text: "Editing.",
          toolCalls: [{ name: "edit", arguments: { path: "hello.txt", old_text: "a", new_text: "b" } }],
        },
        { text: "hello.txt now says b." },
      ],
    });
    const run = await acpx(ws, agentArgs(fake), "--format", "json", "--approve-all", "exec", "change a to b").exited;
    expect(run.code).toBe(0);
    const { messages } = run;
    const updates = acpxUpdates(run);
    const call = updates.find((u) => u.sessionUpdate === "tool_call");
    expect(call).toMatchObject({
      kind: "edit",
      title: "edit: hello.txt",
      locations: [{ path: join(realpathSync(ws.dir), "hello.txt") }],
    });
    const done = updates.find((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
    expect(done.content).toEqual([
      { type: "diff", path: join(realpathSync(ws.dir), "hello.txt"), oldText: "a\n", newText: "b\n" },
    ]);
    const text = updates
      .filter((u) => u.sessionUpdate === "agent_message_chunk")
      .map((u) => u.content.text)
      .join("");
    expect(text).toContain("hello.txt now says b.");
    expect(acpxStopReason(run)).toBe("end_turn");
    // acpx offers its own fs: the write went through the editor, which wrote the file.
    expect(messages.some((m) => m.method === "fs/write_text_file")).toBe(true);
    expect(readFileSync(join(ws.dir, "hello.txt"), "utf8")).toBe("b\n");
  }, 30_000);

  test("acpx: a later run loads the stored session and the model sees the earlier exchange", async () => {
    const fake = await startFakeLlm({ script: [{ text: "First answer." }, { text: "Second answer." }] });
    const agent = agentArgs(fake);
    expect((await acpx(ws, agent, "sessions", "new").exited).code).toBe(0);
    expect(
      (await acpx(ws, agent, "--format", "json", "--ttl", "0.2", "prompt", "remember the word kiwi").exited).code,
    ).toBe(0);
    await acpxOwnerGone(ws, agent); // the first run's agent has gone away
    const second = await acpx(ws, agent, "--format", "json", "--ttl", "0.2", "prompt", "which word?").exited;
    expect(second.code).toBe(0);
    const methods = second.messages.map((m) => m.method).filter(Boolean);
    expect(methods).toContain("session/load");
    expect(methods).not.toContain("session/new");
    const last = JSON.stringify(fake.requests.at(-1)!.body.messages);
    expect(last).toContain("remember the word kiwi");
    expect(last).toContain("First answer.");
    expect(last).toContain("which word?");
    await acpxOwnerGone(ws, agent);
  }, 60_000);

  test("acpx: cancel mid-tool stops the command, the turn ends cancelled, and the next prompt in the session works", async () => {
    // The command's pid becomes the sleep's (exec), so "gone" means the sleep itself was stopped.
    const fake = await startFakeLlm({
      script: [bash("echo $$ > pid.txt; exec sleep 60"), { text: "after the cancel" }],
    });
    const agent = agentArgs(fake);
    expect((await acpx(ws, agent, "sessions", "new").exited).code).toBe(0);
    const prompt = acpx(ws, agent, "--approve-all", "--format", "json", "--ttl", "1", "prompt", "sleep a while");
    const pid = await pidFrom(ws.dir);
    expect(gone(pid)).toBe(false);
    expect((await acpx(ws, agent, "cancel").exited).code).toBe(0);
    const first = await prompt.exited;
    expect(acpxStopReason(first)).toBe("cancelled");
    expect(first.messages.some((m) => m.method === "session/cancel")).toBe(true);
    expect(
      acpxUpdates(first)
        .filter((u) => u.sessionUpdate === "tool_call_update")
        .at(-1).status,
    ).toBe("failed");
    await until(() => gone(pid), "the sleep to end");

    const next = await acpx(ws, agent, "--approve-all", "--format", "json", "--ttl", "1", "prompt", "still there?")
      .exited;
    expect(next.code).toBe(0);
    expect(acpxStopReason(next)).toBe("end_turn");
    expect(
      acpxUpdates(next)
        .filter((u) => u.sessionUpdate === "agent_message_chunk")
        .map((u) => u.content.text)
        .join(""),
    ).toContain("after the cancel");
    const history = JSON.stringify(fake.requests.at(-1)!.body.messages);
    expect(history).toContain("sleep a while");
    expect(history).toContain("still there?");
    await acpxOwnerGone(ws, agent);
  }, 60_000);

  test("acpx without --approve-all refuses the command and the write: the model reads why, in the editor's words", async () => {
    const fake = await startFakeLlm({
      script: [
        bash("touch ran.txt"),
        { toolCalls: [{ name: "write", arguments: { path: "out.txt", content: "x\n" } }] },
        { text: "could not do it" },
      ],
    });
    const run = await acpx(
      ws,
      agentArgs(fake),
      "--format",
      "json",
      "--non-interactive-permissions",
      "deny",
      "exec",
      "make files",
    ).exited;
    expect(existsSync(join(ws.dir, "ran.txt"))).toBe(false);
    expect(existsSync(join(ws.dir, "out.txt"))).toBe(false);
    const results = fake.requests
      .at(-1)!
      .body.messages.filter((m: { role: string }) => m.role === "tool")
      .map((m: { content: string }) => m.content);
    expect(results[0]).toContain(
      "The editor refused to run the command: Permission denied for terminal/create. The command did not run",
    );
    expect(results[1]).toContain(
      `The editor refused to write '${join(ws.dir, "out.txt")}': Permission denied for fs/write_text_file.`,
    );
    const failed = acpxUpdates(run).filter((u) => u.sessionUpdate === "tool_call_update" && u.status === "failed");
    expect(failed.map((u) => u.content[0].content.text)).toEqual(results);
  }, 60_000);

  test("initialize advertises session loading, images, embedded context and MCP over HTTP", async () => {
    const fake = await startFakeLlm({ script: [] });
    await using e = await editor(ws, agentArgs(fake));
    const init = await e.agent.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    expect(init.protocolVersion).toBe(1);
    expect(init.agentCapabilities).toMatchObject({
      loadSession: true,
      promptCapabilities: { image: true, embeddedContext: true },
      mcpCapabilities: { http: true },
    });
    const session = await e.agent.request("session/new", { cwd: ws.dir, mcpServers: [] });
    expect(session.modes?.availableModes.map((m) => m.id)).toEqual(["ask", "edits", "auto"]);
    expect(session.configOptions?.[0]).toMatchObject({ id: "model", currentValue: "ollama/qwen3-coder" });
  }, 30_000);

  test("permissions: a rejected command does not run and the model hears why; 'always' asks once per tool", async () => {
    const fake = await startFakeLlm({
      script: [
        bash("touch rejected.txt"),
        { text: "ok, not running it" },
        bash("touch one.txt"),
        bash("touch two.txt"),
        { text: "both done" },
      ],
    });
    let answer: acp.PermissionOptionId = "reject_once";
    await using e = await editor(ws, agentArgs(fake, "ask"), {
      permit: async () => ({ outcome: { outcome: "selected", optionId: answer } }),
    });
    const { sessionId } = await e.agent.request("session/new", { cwd: ws.dir, mcpServers: [] });
    const first = await e.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "make a file" }],
    });
    expect(first.stopReason).toBe("end_turn");
    expect(existsSync(join(ws.dir, "rejected.txt"))).toBe(false);
    expect(e.permissions[0].toolCall).toMatchObject({ kind: "execute", title: "bash: touch rejected.txt" });
    expect(JSON.stringify(fake.requests[1].body.messages)).toContain("The user declined this call.");

    answer = "allow_always";
    await e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "make two files" }] });
    expect(existsSync(join(ws.dir, "one.txt"))).toBe(true);
    expect(existsSync(join(ws.dir, "two.txt"))).toBe(true);
    expect(e.permissions.length).toBe(2); // the rejected one, then one 'always' for bash
  }, 30_000);

  test("permissions: a call a settings hook blocks is never put to the editor; the model reads the hook's reason", async () => {
    mkdirSync(join(ws.dir, ".gong"));
    writeFileSync(join(ws.dir, ".gong", "settings.json"), JSON.stringify({ hooks: ["guard.ts"] }));
    writeFileSync(
      join(ws.dir, "guard.ts"),
      'export default { beforeToolCall: (tool) => (tool === "bash" ? { block: "no commands in this project" } : undefined) };\n',
    );
    const fake = await startFakeLlm({ script: [bash("touch blocked.txt"), { text: "blocked, as asked" }] });
    await using e = await editor(ws, agentArgs(fake, "ask", "--trust"), {
      permit: async () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }),
    });
    const { sessionId } = await e.agent.request("session/new", { cwd: ws.dir, mcpServers: [] });
    const result = await e.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "make a file" }],
    });
    expect(result.stopReason).toBe("end_turn");
    expect(e.permissions).toEqual([]);
    expect(existsSync(join(ws.dir, "blocked.txt"))).toBe(false);
    expect(JSON.stringify(fake.requests[1].body.messages)).toContain("no commands in this project");
  }, 30_000);

  test("cancel while a permission request is open: the call never runs, the turn ends cancelled, the session goes on", async () => {
    const fake = await startFakeLlm({ script: [bash("touch never.txt"), { text: "next turn" }] });
    await using e = await editor(ws, agentArgs(fake, "ask"), { permit: neverAnswer });
    const { sessionId, stopReason } = await cancelWhenAsked(e, ws.dir, "go");
    expect(stopReason).toBe("cancelled");
    expect(existsSync(join(ws.dir, "never.txt"))).toBe(false);
    const again = await e.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "still there?" }],
    });
    expect(again.stopReason).toBe("end_turn");
  }, 30_000);

  test("cancel mid-tool kills the command, reports cancelled, and the session keeps its history", async () => {
    const fake = await startFakeLlm({ script: [bash("echo $$ > pid.txt; sleep 30"), { text: "back again" }] });
    await using e = await editor(ws, agentArgs(fake));
    const { sessionId } = await e.agent.request("session/new", { cwd: ws.dir, mcpServers: [] });
    const prompt = e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "sleep" }] });
    const pid = await pidFrom(ws.dir);
    await e.agent.notify("session/cancel", { sessionId });
    expect((await prompt).stopReason).toBe("cancelled");
    await until(() => gone(pid), "the command to end");
    expect(toolUpdates(e).at(-1)?.status).toBe("failed");
    await e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "and now?" }] });
    expect(JSON.stringify(fake.requests.at(-1)!.body.messages)).toContain("sleep");
  }, 30_000);

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
    await using e = await editor(ws, agentArgs(fake), {
      capabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
      buffers: { [notes]: "unsaved buffer\n" },
    });
    const { sessionId } = await e.agent.request("session/new", { cwd: ws.dir, mcpServers: [] });
    await e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "work" }] });
    const requests = JSON.stringify(fake.requests.map((r) => r.body.messages));
    expect(requests).toContain("unsaved buffer");
    expect(requests).not.toContain("on disk");
    expect(
      e.calls.some(
        (c) => c.method === "fs/write_text_file" && (c.params as acp.WriteTextFileRequest).content === "from gong\n",
      ),
    ).toBe(true);
    expect(existsSync(join(ws.dir, "out.txt"))).toBe(false); // the editor holds it in a buffer
    expect(
      e.calls.filter((c) => c.method === "terminal/create").map((c) => (c.params as acp.CreateTerminalRequest).args),
    ).toEqual([["-c", "echo in-the-terminal"]]);
    expect(requests).toContain("in-the-terminal");
    expect(toolUpdates(e).some((u) => u.content?.some((c) => c.type === "terminal"))).toBe(true);
  }, 30_000);

  test("session/load replays the stored conversation as updates (an edit with its diff); set_mode and the model option work", async () => {
    writeFileSync(join(ws.dir, "hello.txt"), "one\na\nthree\n");
    const edit = { toolCalls: [{ name: "edit", arguments: { path: "hello.txt", old_text: "a", new_text: "b" } }] };
    const fake = await startFakeLlm({ script: [edit, bash("echo hi"), { text: "it said hi" }] });
    // The first editor (and its gong) is gone before the second loads the session; its updates are read after.
    const first = await editor(ws, agentArgs(fake));
    let sessionId: string;
    try {
      sessionId = (await first.agent.request("session/new", { cwd: ws.dir, mcpServers: [] })).sessionId;
      await first.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "say hi" }] });
    } finally {
      await first.close();
    }
    const file = join(realpathSync(ws.dir), "hello.txt");
    // The live session showed the whole file before and after.
    expect(toolUpdates(first).find((u) => u.content?.[0]?.type === "diff")?.content).toEqual([
      { type: "diff", path: file, oldText: "one\na\nthree\n", newText: "one\nb\nthree\n" },
    ]);
    await using second = await editor(ws, agentArgs(fake));
    await second.agent.request("session/load", { sessionId, cwd: ws.dir, mcpServers: [] });
    expect(kinds(second)).toEqual([
      "user_message_chunk",
      "tool_call",
      "tool_call",
      "agent_message_chunk",
      "current_mode_update",
    ]);
    expect(second.updates[0].update).toMatchObject({ content: { text: "say hi" } });
    // The replay shows the diff the edit returned (its region, here the whole small file).
    expect(second.updates[1].update).toMatchObject({ kind: "edit", status: "completed", locations: [{ path: file }] });
    expect((second.updates[1].update as acp.ToolCall).content).toEqual([
      { type: "diff", path: file, oldText: "one\na\nthree\n", newText: "one\nb\nthree\n" },
    ]);
    expect(second.updates[2].update).toMatchObject({ kind: "execute", status: "completed" });
    await second.agent.request("session/set_mode", { sessionId, modeId: "ask" });
    await expect(second.agent.request("session/set_mode", { sessionId, modeId: "yolo" })).rejects.toThrow(
      /Unknown mode/,
    );
    const set = await second.agent.request("session/set_config_option", {
      sessionId,
      configId: "model",
      value: "ollama/llama3.3",
    });
    expect(set.configOptions[0]).toMatchObject({ currentValue: "ollama/llama3.3" });
    await expect(
      second.agent.request("session/load", { sessionId: "no-such-session", cwd: ws.dir, mcpServers: [] }),
    ).rejects.toThrow();
  }, 30_000);

  test("the editor's MCP servers (session/new mcpServers): their tools reach the model and answer through the server", async () => {
    // The model keeps to bash until the echo tool shows up in its request (servers connect in the background).
    const script = (request: {
      body: { tools?: { function?: { name: string } }[]; messages: unknown[] };
    }): ScriptTurn => {
      const names = (request.body.tools ?? []).map((t) => t.function?.name);
      if (JSON.stringify(request.body.messages).includes("Echo: from the editor"))
        return { text: "the editor's server answered" };
      if (names.includes("mcp__editor-tools__echo"))
        return { toolCalls: [{ name: "mcp__editor-tools__echo", arguments: { message: "from the editor" } }] };
      return bash("sleep 0.3");
    };
    const fake = await startFakeLlm({ script });
    await using e = await editor(ws, agentArgs(fake));
    const { sessionId } = await e.agent.request("session/new", {
      cwd: ws.dir,
      mcpServers: [
        { name: "editor-tools", command: NODE, args: [EVERYTHING, "stdio"], env: [{ name: "UNUSED", value: "1" }] },
      ],
    });
    const done = await e.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "echo something" }],
    });
    expect(done.stopReason).toBe("end_turn");
    expect(JSON.stringify(fake.requests.at(-1)!.body.messages)).toContain("Echo: from the editor");
  }, 30_000);

  test("the editor refuses a command and a write: the model reads the editor's reason, not an internal error", async () => {
    const fake = await startFakeLlm({
      script: [
        bash("touch ran.txt"),
        { toolCalls: [{ name: "write", arguments: { path: "out.txt", content: "x\n" } }] },
        { text: "both refused" },
      ],
    });
    await using e = await editor(ws, agentArgs(fake), {
      capabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
      refuse: ["terminal/create", "fs/write_text_file"],
    });
    const { sessionId } = await e.agent.request("session/new", { cwd: ws.dir, mcpServers: [] });
    expect(
      (await e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] })).stopReason,
    ).toBe("end_turn");
    const results = fake.requests
      .at(-1)!
      .body.messages.filter((m: { role: string }) => m.role === "tool")
      .map((m: { content: string }) => m.content);
    expect(results).toEqual([
      "The editor refused to run the command: Permission denied for terminal/create. The command did not run; ask the user to allow it in the editor.",
      `The editor refused to write '${join(realpathSync(ws.dir), "out.txt")}': Permission denied for fs/write_text_file. The file was not changed; ask the user to allow the change in the editor.`,
    ]);
    expect(
      toolUpdates(e)
        .filter((u) => u.status === "failed")
        .map((u) => (u.content?.[0] as { content: { text: string } } | undefined)?.content.text),
    ).toEqual(results);
    expect(existsSync(join(ws.dir, "ran.txt"))).toBe(false);
  }, 30_000);

  test("an MCP server that fails is told to the editor (a notice, or a message without that capability) and on stderr", async () => {
    const broken: acp.McpServer = { name: "broken", command: "/nonexistent/mcp-server", args: [], env: [] };
    const warned = (text: string) => text.includes("MCP server 'broken' failed");
    for (const capabilities of [{}, { session: { notices: {} } }] as acp.ClientCapabilities[]) {
      const fake = await startFakeLlm({ script: [{ text: "answered anyway" }] });
      const e = await editor(ws, agentArgs(fake), { capabilities });
      let stderr = "";
      try {
        const { sessionId } = await e.agent.request("session/new", { cwd: ws.dir, mcpServers: [broken] });
        const done = await e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
        expect(done.stopReason).toBe("end_turn");
        const shown = () =>
          e.updates
            .map((u) => u.update)
            .filter((u) =>
              u.sessionUpdate === "notice"
                ? warned(u.title)
                : u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" && warned(u.content.text),
            );
        await until(() => shown().length > 0, "the failure in the editor");
        expect(shown()).toHaveLength(1);
        expect(shown()[0].sessionUpdate).toBe(capabilities.session ? "notice" : "agent_message_chunk");
      } finally {
        stderr = await e.close();
      }
      expect(stderr).toContain("gong: warning: MCP server 'broken' failed");
    }
  }, 30_000);

  test("a session's .mcp.json is read from the cwd session/new gives, not from where gong started (and only when trusted)", async () => {
    writeFileSync(join(ws.dir, ".mcp.json"), JSON.stringify({ mcpServers: { here: stdioEntry() } }));
    using project = tempDir("gong-acp-project-");
    writeFileSync(project.path(".mcp.json"), JSON.stringify({ mcpServers: { there: stdioEntry() } }));

    // Untrusted: the project's servers are left out, with one line on stderr.
    const idle = await startFakeLlm({ script: [{ text: "no servers" }] });
    const untrusted = await editor(ws, agentArgs(idle));
    let stderr: string;
    try {
      await untrusted.agent.request("session/new", { cwd: project.dir, mcpServers: [] });
    } finally {
      stderr = await untrusted.close();
    }
    expect(stderr).toContain(
      `gong: ignoring the MCP server there from ${project.path(".mcp.json")}: the project is not trusted`,
    );

    // The model keeps to bash until the project's echo tool shows up in its request.
    const script = (request: {
      body: { tools?: { function?: { name: string } }[]; messages: unknown[] };
    }): ScriptTurn => {
      const names = (request.body.tools ?? []).map((t) => t.function?.name ?? "");
      if (JSON.stringify(request.body.messages).includes("Echo: from the project")) return { text: "done" };
      if (names.includes("mcp__there__echo"))
        return { toolCalls: [{ name: "mcp__there__echo", arguments: { message: "from the project" } }] };
      return bash("sleep 0.3");
    };
    const fake = await startFakeLlm({ script });
    await using e = await editor(ws, agentArgs(fake, "auto", "--trust"));
    const { sessionId } = await e.agent.request("session/new", { cwd: project.dir, mcpServers: [] });
    expect(
      (await e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "echo" }] })).stopReason,
    ).toBe("end_turn");
    const last = fake.requests.at(-1)!.body;
    expect(JSON.stringify(last.messages)).toContain("Echo: from the project");
    const names = (last.tools as { function: { name: string } }[]).map((t) => t.function.name);
    expect(names.some((n) => n.startsWith("mcp__here__"))).toBe(false);
  }, 60_000);
});
