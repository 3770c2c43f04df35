/**
 * The wire to one server, made with the official SDK's transports: a child process over stdio,
 * streamable HTTP, or the older HTTP+SSE. A stdio server gets the SDK's safe default environment
 * (PATH, HOME, …) plus what its entry sets — never gong's own keys — and its stderr is kept, last
 * lines only, to say why it failed.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isAbsolute, resolve } from "node:path";
import type { McpServerConfig } from "./config.ts";
import type { McpSdk } from "./sdk.ts";

const STDERR_KEEP = 2_000;

export interface OpenedTransport {
  transport: Transport;
  /** The last lines the server wrote to stderr (stdio only). */
  stderrTail(): string;
  /** The server process (stdio only). */
  pid(): number | undefined;
}

export function openTransport(sdk: McpSdk, config: McpServerConfig, kind: "stdio" | "http" | "sse", projectCwd: string): OpenedTransport {
  const { getDefaultEnvironment, SSEClientTransport, StdioClientTransport, StreamableHTTPClientTransport } = sdk;
  if (kind === "stdio") {
    const cwd = config.cwd === undefined ? projectCwd : isAbsolute(config.cwd) ? config.cwd : resolve(projectCwd, config.cwd);
    const transport = new StdioClientTransport({
      command: config.command!,
      args: config.args,
      env: { ...getDefaultEnvironment(), ...config.env },
      cwd,
      stderr: "pipe",
    });
    let tail = "";
    transport.stderr?.on("data", (chunk: Buffer | string) => {
      tail = (tail + chunk.toString()).slice(-STDERR_KEEP);
    });
    return { transport, stderrTail: () => tail, pid: () => transport.pid ?? undefined };
  }
  const url = new URL(config.url!);
  const requestInit: RequestInit = { headers: config.headers };
  const transport = kind === "sse" ? new SSEClientTransport(url, { requestInit }) : new StreamableHTTPClientTransport(url, { requestInit });
  return { transport, stderrTail: () => "", pid: () => undefined };
}
