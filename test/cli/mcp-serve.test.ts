/**
 * Issue 41, `gong mcp serve`: gong as an MCP server over stdio, driven by the official MCP SDK's
 * client (its stdio transport spawning `bun cli.ts mcp serve`), the model behind it the fake LLM
 * server over real HTTP. Processes are counted in /proc, never timed.
 */
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { ElicitRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { routeByPrompt, type RoutedTurn } from "../../lib/testing/fake-llm/route.ts";
import { sleepers } from "../helpers/sleepers.ts";
import { until } from "../helpers/wait.ts";
import { startFakeLlm, useWorkspace } from "./helpers.ts";
import { connectClient, firstText, serveArgs, type ServeClient } from "./mcp-serve-helpers.ts";

// Each test starts gong (and the sessions in it) on a possibly crowded machine.
setDefaultTimeout(90_000);

const clients: ServeClient[] = [];
// Registered before the workspace's own: the servers end before their directories are removed.
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
});
const ws = useWorkspace();

async function serve(args: string[], capabilities = {}): Promise<ServeClient> {
  const c = await connectClient({ cwd: ws.dir, env: ws.env, args }, capabilities);
  clients.push(c);
  return c;
}

/** The text of the tool result the request sends back to the model (Anthropic's shape). */
function toolResultText(request: { body: any }): string {
  const last = request.body.messages.at(-1).content as { type: string; content: unknown }[];
  const result = last.find((c) => c.type === "tool_result")?.content;
  return typeof result === "string" ? result : JSON.stringify(result);
}

/** A turn that answers with what the tool said, so the test sees what the model saw. */
const echoResult: RoutedTurn = (request) => ({ text: `tool said: ${toolResultText(request)}` });

const bash = (command: string): RoutedTurn => ({ toolCalls: [{ name: "bash", arguments: { command } }] });

test("issue 41 mcp serve: tools/list offers gong and gong-reply with codex's parameter names and output", async () => {
  const fake = await startFakeLlm({ script: [] });
  const { client } = await serve(serveArgs(fake));
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toEqual(["gong", "gong-reply"]);
  const [task, reply] = tools;
  expect(Object.keys(task.inputSchema.properties ?? {})).toEqual(
    expect.arrayContaining([
      "prompt",
      "cwd",
      "model",
      "approval-policy",
      "sandbox",
      "base-instructions",
      "developer-instructions",
    ]),
  );
  expect(task.inputSchema.required).toEqual(["prompt"]);
  expect(reply.inputSchema.required).toEqual(["threadId", "prompt"]);
  for (const tool of tools) expect(tool.outputSchema?.required).toEqual(["threadId", "content"]);
  expect(client.getServerVersion()?.name).toBe("gong");
});

test("issue 41 mcp serve: gong runs a task in a session and answers with its text and threadId; gong-reply continues it", async () => {
  const fake = await startFakeLlm({
    script: routeByPrompt({
      "make notes.txt": [bash("echo from-the-task > notes.txt"), { text: "notes.txt is written" }, echoResult],
    }),
  });
  const { client } = await serve(serveArgs(fake));
  const first = await client.callTool({ name: "gong", arguments: { prompt: "make notes.txt" } });
  expect(first.isError).toBeFalsy();
  expect(firstText(first)).toBe("notes.txt is written");
  expect(readFileSync(join(ws.dir, "notes.txt"), "utf8")).toBe("from-the-task\n");
  const structured = first.structuredContent as { threadId: string; content: string };
  const record = first._meta?.["gong/result"] as { session_file: string; stop_reason: string };
  expect(record.stop_reason).toBe("completed");
  expect(structured.content).toBe("notes.txt is written");
  expect(JSON.stringify(first.content)).toContain(structured.threadId);

  const second = await client.callTool({
    name: "gong-reply",
    arguments: { threadId: structured.threadId, prompt: "and now?" },
  });
  expect((second.structuredContent as { threadId: string }).threadId).toBe(structured.threadId);
  // The second input went to the same conversation: its request carries the first one.
  const last = fake.requests.at(-1)!;
  expect(JSON.stringify(last.body.messages)).toContain("make notes.txt");
  expect(JSON.stringify(last.body.messages)).toContain("and now?");
  const file = readFileSync(record.session_file, "utf8");
  expect(file).toContain("make notes.txt");
  expect(file).toContain("and now?");
});

test("issue 41 mcp serve: a task's arguments choose the directory, the instructions and the approval; gong-reply reaches a session an earlier server stored", async () => {
  const fake = await startFakeLlm({
    script: routeByPrompt({ "where am I": [bash("pwd"), echoResult, { text: "continued" }] }),
  });
  const sub = join(ws.dir, "sub");
  await Bun.write(join(sub, "keep"), "");
  const first = await serve(serveArgs(fake));
  const r = await first.client.callTool({
    name: "gong",
    arguments: {
      prompt: "where am I",
      cwd: "sub",
      "base-instructions": "BASE-MARKER",
      "developer-instructions": "DEV-MARKER",
      "approval-policy": "never",
      sandbox: "danger-full-access",
    },
  });
  expect(firstText(r)).toContain(sub);
  const system = JSON.stringify(fake.requests[0].body.system);
  expect(system).toContain("BASE-MARKER");
  expect(system).toContain("DEV-MARKER");
  const threadId = (r.structuredContent as { threadId: string }).threadId;
  await first.close();

  // A new server process: the session is read back from its file and continues in its own directory.
  const second = await serve(serveArgs(fake));
  const again = await second.client.callTool({ name: "gong-reply", arguments: { threadId, prompt: "go on" } });
  expect(firstText(again)).toBe("continued");
  expect(JSON.stringify(fake.requests.at(-1)!.body.messages)).toContain("where am I");
});

test("issue 41 mcp serve: progress notifications while a task runs, when the client sends a progress token", async () => {
  const fake = await startFakeLlm({
    script: routeByPrompt({ "count files": [bash("ls"), { text: "counted" }] }),
  });
  const { client } = await serve(serveArgs(fake));
  const seen: { progress: number; message?: string }[] = [];
  const r = await client.callTool({ name: "gong", arguments: { prompt: "count files" } }, undefined, {
    onprogress: (p) => seen.push(p),
  });
  expect(firstText(r)).toBe("counted");
  expect(seen.map((p) => p.message)).toEqual([
    "turn 1: waiting for the model",
    "bash: ls",
    "turn 2: waiting for the model",
  ]);
  expect(seen.map((p) => p.progress)).toEqual([1, 2, 3]);
});

test("issue 41 mcp serve: cancellation (notifications/cancelled) stops the task and its processes; the session stays for gong-reply", async () => {
  const tag = `4101.${process.pid % 10_000}`;
  const fake = await startFakeLlm({
    script: routeByPrompt({ "run forever": [bash(`sleep ${tag}`), { text: "back again" }] }),
  });
  const { client } = await serve(serveArgs(fake));
  const controller = new AbortController();
  const call = client
    .callTool({ name: "gong", arguments: { prompt: "run forever" } }, undefined, {
      signal: controller.signal,
      onprogress: () => {},
    })
    .catch((e: Error) => e);
  await until(() => sleepers(tag) === 1, "the task's command to start");
  controller.abort("changed my mind");
  expect(await call).toBeInstanceOf(Error);
  await until(() => sleepers(tag) === 0, "the task's command to be killed");
  // The session was interrupted, not closed: find it by the session file of the one task started.
  const sessions = join(ws.home, ".gong", "sessions");
  const file = await until(
    () => new Bun.Glob("**/*.jsonl").scanSync({ cwd: sessions, absolute: true }).next().value,
    "the session file",
  );
  const threadId = file.match(/_([0-9a-f-]+)\.jsonl$/)![1];
  const reply = await client.callTool({ name: "gong-reply", arguments: { threadId, prompt: "are you there?" } });
  expect(firstText(reply)).toBe("back again");
});

test("issue 41 mcp serve: permission questions go to the client through elicitation; accept runs the call, decline refuses it", async () => {
  const fake = await startFakeLlm({
    script: routeByPrompt({
      "touch yes": [bash("touch yes.txt"), echoResult],
      "touch no": [bash("touch no.txt"), echoResult],
    }),
  });
  const { client } = await serve(serveArgs(fake, ["--approval", "ask"]), { elicitation: {} });
  const questions: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const message = (request.params as { message: string }).message;
    questions.push(message);
    return message.includes("yes.txt") ? { action: "accept", content: { always: false } } : { action: "decline" };
  });
  await client.callTool({ name: "gong", arguments: { prompt: "touch yes" } });
  expect(existsSync(join(ws.dir, "yes.txt"))).toBe(true);
  const refused = await client.callTool({ name: "gong", arguments: { prompt: "touch no" } });
  expect(existsSync(join(ws.dir, "no.txt"))).toBe(false);
  expect(firstText(refused)).toContain("The user declined this call.");
  expect(questions).toEqual([
    `Allow gong to run \`touch yes.txt\` in ${ws.dir}?`,
    `Allow gong to run \`touch no.txt\` in ${ws.dir}?`,
  ]);
});

test("issue 41 mcp serve: a client without elicitation gets what the approval mode asks refused, as gong -p refuses it", async () => {
  const fake = await startFakeLlm({ script: routeByPrompt({ "touch it": [bash("touch it.txt"), echoResult] }) });
  const { client } = await serve(serveArgs(fake));
  const r = await client.callTool({ name: "gong", arguments: { prompt: "touch it", "approval-policy": "untrusted" } });
  expect(existsSync(join(ws.dir, "it.txt"))).toBe(false);
  expect(firstText(r)).toContain("no one can answer in this mode");
});

test("issue 41 mcp serve: an unknown tool and bad arguments are MCP errors with a sentence; nothing runs", async () => {
  const fake = await startFakeLlm({ script: [] });
  const { client } = await serve(serveArgs(fake));
  const error = async (name: string, args: Record<string, unknown>) => {
    const e = await client.callTool({ name, arguments: args }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(McpError);
    expect((e as McpError).code).toBe(-32602);
    return (e as McpError).message;
  };
  expect(await error("gong-do", { prompt: "x" })).toContain("Unknown tool 'gong-do'. gong offers gong, gong-reply.");
  expect(await error("gong", {})).toContain("'prompt' is required");
  expect(await error("gong", { prompt: 5 })).toContain("'prompt' must be a string (got number)");
  expect(await error("gong", { prompt: "x", config: {} })).toContain("unknown argument 'config'");
  expect(await error("gong", { prompt: "x", sandbox: "open" })).toContain("'sandbox' must be one of");
  expect(await error("gong", { prompt: "x", "max-turns": 0 })).toContain("'max-turns' must be at least 1");
  expect(await error("gong", { prompt: "x", cwd: "missing" })).toContain(
    `'cwd' must be an existing directory: ${join(ws.dir, "missing")} is not one.`,
  );
  expect(await error("gong", { prompt: "x", model: "nosuchprovider/model" })).toContain("nosuchprovider");
  expect(await error("gong-reply", { threadId: "../../etc/passwd", prompt: "x" })).toContain(
    "'threadId' must be a session id",
  );
  expect(await error("gong-reply", { threadId: "0123abcd", prompt: "x" })).toContain("No session '0123abcd'");
  expect(fake.requests).toHaveLength(0);
  // The server is still there for the next call.
  expect((await client.listTools()).tools).toHaveLength(2);
});

test("issue 41 mcp serve --file-tools: gong's file tools in the server's directory, bad arguments as MCP errors", async () => {
  const fake = await startFakeLlm({ script: [] });
  const { client } = await serve(serveArgs(fake, ["--file-tools"]));
  const names = (await client.listTools()).tools.map((t) => t.name);
  expect(names).toEqual(["gong", "gong-reply", "read", "write", "edit", "grep", "find", "ls"]);
  const written = await client.callTool({ name: "write", arguments: { path: "a.txt", content: "one\ntwo\n" } });
  expect(written.isError).toBeFalsy();
  const read = await client.callTool({ name: "read", arguments: { path: "a.txt" } });
  expect(firstText(read)).toContain("two");
  const outside = await client.callTool({ name: "read", arguments: { path: "/etc/hostname" } });
  expect(outside.isError).toBe(true);
  const bad = await client.callTool({ name: "read", arguments: {} }).catch((e: unknown) => e);
  expect((bad as McpError).code).toBe(-32602);
});

test("issue 41 bad input: a client that disconnects mid-task: the task stops, its processes are gone, gong exits", async () => {
  const tag = `4102.${process.pid % 10_000}`;
  const fake = await startFakeLlm({ script: routeByPrompt({ "never ends": [bash(`sleep ${tag}`)] }) });
  // The raw protocol over a pipe: what a client that goes away does to gong is close its stdin.
  const gong = Bun.spawn([process.execPath, ...serveArgs(fake)], {
    cwd: ws.dir,
    env: ws.env,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const send = (message: unknown) => {
    gong.stdin.write(`${JSON.stringify(message)}\n`);
    gong.stdin.flush();
  };
  try {
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "gong", arguments: { prompt: "never ends" } },
    });
    await until(() => sleepers(tag) === 1, "the task's command to start");
    gong.stdin.end();
    expect(await gong.exited).toBe(0);
    expect(sleepers(tag)).toBe(0);
    // The session file holds the task's input, and no lock is left behind.
    const sessions = join(ws.home, ".gong", "sessions");
    const files = [...new Bun.Glob("**/*").scanSync({ cwd: sessions })];
    expect(files.filter((f) => f.endsWith(".jsonl"))).toHaveLength(1);
    expect(files.filter((f) => f.endsWith(".lock"))).toHaveLength(0);
  } finally {
    gong.kill("SIGKILL");
  }
});

test("issue 41 mcp serve: a long-lived server keeps only the sessions used last open; gong-reply reads an older one back from its file", async () => {
  const fake = await startFakeLlm({ script: () => ({ text: "ok" }) });
  const { client } = await serve(serveArgs(fake));
  const ids: string[] = [];
  for (let i = 0; i < 10; i++) {
    const r = await client.callTool({ name: "gong", arguments: { prompt: `task ${i}` } });
    ids.push((r.structuredContent as { threadId: string }).threadId);
  }
  const sessions = join(ws.home, ".gong", "sessions");
  const locks = () => [...new Bun.Glob("**/*.lock").scanSync({ cwd: sessions })];
  expect(locks()).toHaveLength(8);
  const again = await client.callTool({ name: "gong-reply", arguments: { threadId: ids[0], prompt: "first again" } });
  expect(firstText(again)).toBe("ok");
  expect(JSON.stringify(fake.requests.at(-1)!.body.messages)).toContain("task 0");
  expect(locks()).toHaveLength(8);
});
