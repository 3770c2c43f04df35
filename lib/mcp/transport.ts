/**
 * The wire to one server, made with the official SDK's transports: a child process over stdio,
 * streamable HTTP, or the older HTTP+SSE. A stdio server gets the SDK's safe default environment
 * (PATH, HOME, …) plus what its entry sets — never gong's own keys — and its stderr is kept, last
 * lines only, to say why it failed.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isAbsolute, resolve } from "node:path";
import { ProcessTrees } from "../env/process-trees.ts";
import { TailRing } from "../output/tail-ring.ts";
import type { McpServerConfig } from "./config.ts";
import type { McpSdk } from "./sdk.ts";

/** Bytes of stderr kept (the one tail ring). */
const STDERR_KEEP = 2_000;

/**
 * Every stdio server is a process tree of gong's (the marker variable in its environment): closing
 * a server kills what it started too (`bash -c "sleep 300 & exec node srv.mjs"`), and gong's exit
 * reaches them like any command's tree.
 */
const serverTrees = new ProcessTrees();

/** The largest message read from a stdio server (the SDK's default, named here so gong can say it). */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** How the SDK's stdio reader words a message past that size (a plain Error; the connection then closes). */
export const OVERSIZED_MESSAGE = "ReadBuffer exceeded maximum size";

/** SIGTERM → SIGKILL grace for a server being closed: it has nothing to save. */
export const SERVER_KILL_GRACE_MS = 500;

export interface OpenedTransport {
  transport: Transport;
  /** The last lines the server wrote to stderr (stdio only). */
  stderrTail(): string;
  /** The server process (stdio only). */
  pid(): number | undefined;
  /** Kills the server's whole process tree (stdio; nothing for HTTP); resolves when none of it runs. */
  killTree(): Promise<void>;
}

export function openTransport(
  sdk: McpSdk,
  config: McpServerConfig,
  kind: "stdio" | "http" | "sse",
  projectCwd: string,
): OpenedTransport {
  const { getDefaultEnvironment, SSEClientTransport, StdioClientTransport, StreamableHTTPClientTransport } = sdk;
  if (config.open)
    return {
      transport: config.open() as Transport,
      stderrTail: () => "",
      pid: () => undefined,
      killTree: async () => {},
    };
  if (kind === "stdio") {
    const cwd =
      config.cwd === undefined ? projectCwd : isAbsolute(config.cwd) ? config.cwd : resolve(projectCwd, config.cwd);
    const tree = serverTrees.openTree();
    const transport = new StdioClientTransport({
      command: config.command!,
      args: config.args,
      env: serverTrees.treeEnv(tree, { ...getDefaultEnvironment(), ...config.env }),
      cwd,
      stderr: "pipe",
      maxBufferSize: MAX_MESSAGE_BYTES,
    });
    const tail = new TailRing(STDERR_KEEP);
    transport.stderr?.on("data", (chunk: Buffer | string) => {
      tail.push(typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk);
    });
    const killTree = async () => {
      if (tree.pid === undefined) serverTrees.attach(tree, transport.pid ?? undefined);
      await serverTrees.kill(tree, SERVER_KILL_GRACE_MS);
    };
    return { transport, stderrTail: () => tail.text(), pid: () => transport.pid ?? undefined, killTree };
  }
  const url = new URL(config.url!);
  const requestInit: RequestInit = { headers: config.headers };
  const transport =
    kind === "sse"
      ? new SSEClientTransport(url, { requestInit })
      : new StreamableHTTPClientTransport(url, { requestInit });
  return { transport, stderrTail: () => "", pid: () => undefined, killTree: async () => {} };
}
