/**
 * Clients that drive `gong --mode acp` in the ACP tests: the ACP SDK's own client class, set up as
 * an editor would (its files and terminals when asked for), and the `acpx` command line. Both run
 * under the Bun running the tests, so they do not depend on the machine's `node`.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import type { ScriptTurn } from "../../lib/testing/fake-llm/types.ts";
import { CLI, ROOT } from "./helpers.ts";
import { until } from "../helpers/wait.ts";

export const ACPX = join(ROOT, "node_modules", "acpx", "dist", "cli.js");

/** gong's command line against the fake server (Chat Completions: the default profile, plain tool names). */
export function agentArgs(fake: FakeLlm, approval = "auto", ...extra: string[]): string[] {
  return [
    "--mode",
    "acp",
    "--model",
    "ollama/qwen3-coder",
    "--base-url",
    fake.baseUrls.openai,
    "--approval",
    approval,
    ...extra,
  ];
}

export const bash = (command: string): ScriptTurn => ({ toolCalls: [{ name: "bash", arguments: { command } }] });

/** Where a test runs: its workspace directory and environment. */
export interface Place {
  dir: string;
  env: Record<string, string>;
}

export interface Editor {
  agent: acp.ClientContext;
  updates: acp.SessionNotification[];
  permissions: acp.RequestPermissionRequest[];
  calls: { method: string; params: unknown }[];
  /** Ends the connection and gong; resolves with what gong wrote to stderr. */
  close(): Promise<string>;
  /** close(), for `await using e = await editor(…)`. */
  [Symbol.asyncDispose](): Promise<void>;
}

export interface EditorOptions {
  capabilities?: acp.ClientCapabilities;
  /** Answers permission requests; default: allow once. */
  permit?(request: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse>;
  /** Editor buffers by absolute path (fs/read_text_file answers from here, else from disk). */
  buffers?: Record<string, string>;
  /** Client methods the editor refuses, answering as acpx does without --approve-all. */
  refuse?: string[];
}

/** Starts `gong --mode acp` in `place.dir` and connects the SDK's client to it, as an editor would. */
export async function editor(place: Place, args: string[], options: EditorOptions = {}): Promise<Editor> {
  const proc = Bun.spawn([process.execPath, CLI, ...args], {
    cwd: place.dir,
    env: place.env,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const stderr = new Response(proc.stderr).text();
  const updates: acp.SessionNotification[] = [];
  const permissions: acp.RequestPermissionRequest[] = [];
  const calls: { method: string; params: unknown }[] = [];
  const terminals = new Map<string, { output: Promise<string>; exit: Promise<number>; kill(): void }>();
  const refuse = (method: string) => {
    if (options.refuse?.includes(method)) throw new Error(`Permission denied for ${method}`);
  };
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
      refuse("fs/write_text_file");
      options.buffers ??= {};
      options.buffers[params.path] = params.content;
    })
    .onRequest("terminal/create", ({ params }) => {
      calls.push({ method: "terminal/create", params });
      refuse("terminal/create");
      const child = Bun.spawn([params.command, ...(params.args ?? [])], {
        cwd: params.cwd ?? place.dir,
        stdout: "pipe",
        stderr: "pipe",
      });
      const id = `term-${terminals.size + 1}`;
      terminals.set(id, {
        output: new Response(child.stdout).text(),
        exit: child.exited,
        kill: () => child.kill("SIGKILL"),
      });
      return { terminalId: id };
    })
    .onRequest("terminal/wait_for_exit", async ({ params }) => ({
      exitCode: await terminals.get(params.terminalId)!.exit,
    }))
    .onRequest("terminal/output", async ({ params }) => {
      const t = terminals.get(params.terminalId)!;
      return { output: await t.output, truncated: false, exitStatus: { exitCode: await t.exit } };
    })
    .onRequest("terminal/release", () => {})
    .onRequest("terminal/kill", ({ params }) => {
      terminals.get(params.terminalId)?.kill();
    });
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
  await connection.agent.request("initialize", {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: options.capabilities ?? {},
  });
  const close = async () => {
    connection.close();
    proc.stdin.end();
    const exited = await Promise.race([proc.exited, Bun.sleep(10_000).then(() => "hung")]);
    if (exited === "hung") proc.kill("SIGKILL");
    return stderr;
  };
  return {
    agent: connection.agent,
    updates,
    permissions,
    calls,
    close,
    async [Symbol.asyncDispose]() {
      await close();
    },
  };
}

export const kinds = (e: Editor) => e.updates.map((u) => u.update.sessionUpdate);

export type ToolCallUpdate = Extract<acp.SessionUpdate, { sessionUpdate: "tool_call_update" }>;
export const toolUpdates = (e: Editor) =>
  e.updates.map((u) => u.update).filter((u): u is ToolCallUpdate => u.sessionUpdate === "tool_call_update");

/** A new session in `cwd` and one prompt in it; resolves with the session id and the stop reason. */
export async function promptOnce(
  e: Editor,
  cwd: string,
  text: string,
): Promise<{ sessionId: string; stopReason: acp.StopReason }> {
  const { sessionId } = await e.agent.request("session/new", { cwd, mcpServers: [] });
  const { stopReason } = await e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  return { sessionId, stopReason };
}

/** The user never answers a permission request (with `cancelWhenAsked`). */
export const neverAnswer = (): Promise<acp.RequestPermissionResponse> => new Promise(() => {});

/** A new session in `cwd` and a prompt cancelled once a permission request is open; resolves with the session id and the stop reason. */
export async function cancelWhenAsked(
  e: Editor,
  cwd: string,
  text: string,
): Promise<{ sessionId: string; stopReason: acp.StopReason }> {
  const { sessionId } = await e.agent.request("session/new", { cwd, mcpServers: [] });
  const prompt = e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  await until(() => e.permissions.length > 0, "a permission request");
  await e.agent.notify("session/cancel", { sessionId });
  return { sessionId, stopReason: (await prompt).stopReason };
}

/** Polls a condition until it holds (test/helpers/wait.ts). */
export { until };

/** Whether process `pid` is gone. */
export function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

/** The number a command wrote to `file` in `dir` once it is there. */
export async function pidFrom(dir: string, file = "pid.txt"): Promise<number> {
  const path = join(dir, file);
  const read = () => (existsSync(path) ? readFileSync(path, "utf8").trim() : "");
  await until(() => read() !== "", `${file}`);
  return Number(read());
}

export interface AcpxRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout's JSON-RPC messages (with --format json). */
  messages: any[];
}

/** `acpx` (run by the Bun running the tests) with gong as its agent, in `place.dir`. */
/** Folders acpx made for its queue sockets: it keys them by HOME, always under /tmp. */
const acpxSocketDirs = new Set<string>();

/** Removes the socket folders of the acpx runs so far (their queue owners are gone by then, or will find none). */
export function removeAcpxSocketDirs(): void {
  for (const dir of acpxSocketDirs) rmSync(dir, { recursive: true, force: true });
  acpxSocketDirs.clear();
}

export function acpx(place: Place, agent: string[], ...args: string[]): { exited: Promise<AcpxRun> } {
  if (place.env.HOME)
    acpxSocketDirs.add(join("/tmp", `acpx-${createHash("sha256").update(place.env.HOME).digest("hex").slice(0, 10)}`));
  const proc = Bun.spawn([process.execPath, ACPX, "--agent", [process.execPath, CLI, ...agent].join(" "), ...args], {
    cwd: place.dir,
    env: place.env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const exited = Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]).then(
    ([stdout, stderr, code]) => ({
      code,
      stdout,
      stderr,
      messages: stdout
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l)),
    }),
  );
  return { exited };
}

/** Waits until acpx's queue owner for the session in `place.dir` (and with it gong) has gone away. */
export async function acpxOwnerGone(place: Place, agent: string[]): Promise<void> {
  const end = Date.now() + 30_000;
  for (;;) {
    const status = (await acpx(place, agent, "--format", "quiet", "status").exited).stdout.trim();
    if (status !== "running") return;
    if (Date.now() > end) throw new Error("acpx's queue owner did not go away");
    await Bun.sleep(100);
  }
}

/** The session/update payloads among acpx's JSON messages. */
export const acpxUpdates = (run: AcpxRun) =>
  run.messages.filter((m) => m.method === "session/update").map((m) => m.params.update);
export const acpxStopReason = (run: AcpxRun) => run.messages.find((m) => m.result?.stopReason)?.result.stopReason;
