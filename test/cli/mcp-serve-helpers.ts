/**
 * `gong mcp serve` driven by real MCP clients: the official SDK's client over its stdio transport
 * (spawning `bun cli.ts mcp serve`), and the raw protocol over a pipe for what a client library
 * hides (a client that goes away mid-task).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { CLI, WIRE_APIS } from "./helpers.ts";

/** The server's command line: gong's session flags pointing at the fake model, then `extra`. */
export function serveArgs(fake: FakeLlm, extra: string[] = []): string[] {
  return [CLI, "mcp", "serve", ...WIRE_APIS[0].flags(fake), ...extra];
}

export interface ServeClient {
  client: Client;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/** An SDK client connected to `gong mcp serve` in `cwd`; `capabilities` are what the client declares (elicitation…). */
export async function connectClient(
  options: { cwd: string; env: Record<string, string>; args: string[] },
  capabilities: ClientCapabilities = {},
): Promise<ServeClient> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: options.args,
    cwd: options.cwd,
    env: options.env,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: "gong-test-client", version: "1.0.0" }, { capabilities });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** The text of a tool result's first content block. */
export function firstText(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content[0]?.text ?? "";
}
