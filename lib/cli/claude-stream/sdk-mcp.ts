/**
 * The MCP servers a Claude Agent SDK program runs in its own process (`createSdkMcpServer`,
 * named in `initialize`'s `sdkMcpServers`): gong is their MCP client over the control protocol.
 * Each message gong's client sends is an `mcp_message` control request; the program's server
 * answers in the control response's `mcp_response`. The servers' tools reach the model as any
 * MCP server's do (`mcp__<server>__<tool>`), through the same gate.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_STARTUP_TIMEOUT_MS, DEFAULT_TOOL_TIMEOUT_MS, type McpServerConfig } from "../../mcp/config.ts";
import type { ControlChannel } from "./control.ts";

/** The servers `initialize` named, and the wires to them while they are open. */
export class SdkMcpServers {
  readonly configs: McpServerConfig[];
  private readonly open = new Map<string, ControlTransport>();

  constructor(names: unknown, channel: ControlChannel) {
    const named = Array.isArray(names) ? names.filter((n): n is string => typeof n === "string" && n !== "") : [];
    this.configs = named.map((name) => ({
      name,
      transport: "stdio",
      inferred: false,
      args: [],
      env: {},
      headers: {},
      enabled: true,
      startupTimeoutMs: DEFAULT_STARTUP_TIMEOUT_MS,
      toolTimeoutMs: DEFAULT_TOOL_TIMEOUT_MS,
      disabledTools: [],
      scope: "sdk",
      source: `the program's createSdkMcpServer '${name}'`,
      open: () => {
        const wire = new ControlTransport(name, channel, () => this.open.delete(name));
        this.open.set(name, wire);
        return wire;
      },
    }));
  }

  /** A message the program's server sends on its own (a notification): to gong's client of it. */
  deliver(server: unknown, message: unknown): string | undefined {
    const wire = this.open.get(String(server));
    if (!wire) return `gong has no connection to an SDK MCP server named '${String(server)}'.`;
    if (typeof message !== "object" || message === null) return "mcp_message needs a JSON-RPC message.";
    wire.onmessage?.(message as JSONRPCMessage);
    return undefined;
  }
}

/** An MCP transport over the control channel: each message one `mcp_message` request. */
class ControlTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private closed = false;

  constructor(
    private readonly server: string,
    private readonly channel: ControlChannel,
    private readonly closed_: () => void,
  ) {}

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error(`the connection to '${this.server}' is closed`);
    const answer = this.channel.request({ subtype: "mcp_message", server_name: this.server, message });
    // A notification's acknowledgement carries nothing; a request's carries the server's reply.
    if (!("id" in message) || !("method" in message)) return void answer.catch(() => {});
    answer.then(
      (response) => {
        const reply = response.mcp_response as JSONRPCMessage | undefined;
        if (reply && !this.closed) this.onmessage?.(reply);
      },
      (e: Error) => {
        if (this.closed) return;
        // The program answered with an error or went away: the request fails, the server is gone.
        this.onmessage?.({ jsonrpc: "2.0", id: message.id, error: { code: -32603, message: e.message } });
      },
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closed_();
    this.onclose?.();
  }
}
