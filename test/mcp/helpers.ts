/**
 * The MCP server the tests talk to: `@modelcontextprotocol/server-everything`, the reference
 * server of the protocol's authors, over stdio or streamable HTTP on 127.0.0.1.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import type { SessionEvent } from "../../lib/agent/index.ts";
import { McpManager, serverFromOptions, type McpServerEvent } from "../../lib/mcp/index.ts";
import type { ToolResponse } from "../../lib/envelope.ts";

export const ROOT = resolve(import.meta.dir, "../..");
export const EVERYTHING = join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
/** node runs the server, as `npx @modelcontextprotocol/server-everything` would. */
export const NODE = Bun.which("node") ?? process.execPath;

/**
 * A start-up timeout far above the default 10 s: node starting the server on a loaded 2-core CI
 * machine must not turn into a "failed" server; the tests assert what happens, not how fast.
 */
export const STARTUP_TIMEOUT_MS = 30_000;

export const stdioEntry = () => ({ command: NODE, args: [EVERYTHING, "stdio"], startupTimeoutMs: STARTUP_TIMEOUT_MS });

/** A wrapper that waits `ms` before the server starts, so its handshake comes late. */
export const slowStdioEntry = (ms: number) => ({
  command: "bash",
  args: ["-c", `sleep ${ms / 1000}; exec "$0" "$@"`, NODE, EVERYTHING, "stdio"],
  startupTimeoutMs: STARTUP_TIMEOUT_MS,
});

/** A manager of one server named "everything", connected before it is returned; `await using` closes it. */
export async function connectedManager(
  entry: Record<string, unknown> = stdioEntry(),
): Promise<McpManager & AsyncDisposable> {
  const manager = new McpManager([serverFromOptions("everything", entry)], process.cwd());
  await manager.settled();
  return Object.assign(manager, { [Symbol.asyncDispose]: () => manager.close() });
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

export interface HttpServer {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** server-everything over streamable HTTP (or the older HTTP+SSE) on a free port; resolves once it listens. */
export async function startHttpEverything(
  transport: "streamableHttp" | "sse" = "streamableHttp",
  port?: number,
): Promise<HttpServer> {
  port ??= await freePort();
  const child = spawn(NODE, [EVERYTHING, transport], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((ready, fail) => {
    let seen = "";
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes("listening on port") || seen.includes("running on port")) ready();
    };
    child.stderr!.on("data", onData);
    child.stdout!.on("data", () => {});
    child.once("exit", (code) => fail(new Error(`server-everything exited (${code}): ${seen}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/${transport === "sse" ? "sse" : "mcp"}`,
    process: child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((done) => child.once("exit", done));
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/** The mcp_server events seen, optionally of one state. */
export function mcpEvents(events: SessionEvent[], state?: McpServerEvent["state"]): McpServerEvent[] {
  return events.flatMap((e) => (e.kind === "mcp_server" && (!state || e.data.state === state) ? [e.data] : []));
}

/** The full envelope of the first call of `tool`. */
export function outputOf(events: SessionEvent[], tool: string): ToolResponse {
  for (const e of events) if (e.kind === "tool_call_end" && e.data.tool_name === tool) return e.data.output;
  throw new Error(`no tool_call_end for ${tool}`);
}
