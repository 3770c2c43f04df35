/**
 * All the MCP servers of a session (or of a CLI run, shared by the sessions it opens). `start()`
 * connects them in the background and returns at once: the first request never waits for a slow
 * server. Whoever attaches a tool registry gets the tools of every server that is connected, and
 * those of a server that connects later as soon as it does, with an event. A server that fails is
 * reported once per failure, not on every call.
 */
import type { Tool } from "../../tools/types.ts";
import type { McpServerConfig, McpTransportKind } from "./config.ts";
import { McpConnection } from "./connection.ts";
import type { McpServerState } from "./state.ts";
import { toolsOf } from "./tools.ts";

/** What happened to a server: it connected (or its tool list changed) or it failed. */
export interface McpServerEvent {
  server: string;
  state: "connected" | "failed";
  /** Names of its tools as the model sees them (when connected). */
  tools: string[];
  /** Why it failed, one line. */
  message?: string;
}

export interface McpServerStatus {
  name: string;
  state: McpServerState | "untrusted";
  transport: McpTransportKind;
  /** Where the entry came from. */
  source: string;
  /** The server's tools: their own names and the names the model sees. */
  tools: { name: string; exposedAs: string; description?: string }[];
  error?: string;
  pid?: number;
}

/** Where attached tools go: a tool registry fits; a session decides which of them are active. */
export interface ToolSink {
  register(tool: Tool): void;
  unregister(name: string): unknown;
}

type Listener = (event: McpServerEvent) => void;

export class McpManager {
  private readonly connections: McpConnection[];
  private readonly listeners = new Set<Listener>();
  /** The gong tools of each connected server, by server name. */
  private readonly toolsByServer = new Map<string, Tool[]>();
  /** Servers whose failure was already reported (cleared when they connect again). */
  private readonly reported = new Set<string>();
  private started = false;

  constructor(
    servers: McpServerConfig[],
    readonly cwd: string,
    /** Configured servers that are not started because the project is not trusted (shown by `gong mcp list`). */
    private readonly untrusted: McpServerConfig[] = [],
  ) {
    this.connections = servers.map((config) => new McpConnection(config, cwd, (c) => this.changed(c)));
  }

  /** The servers this manager runs (for a manager that adds some to them). */
  get configs(): McpServerConfig[] {
    return this.connections.map((c) => c.config);
  }

  /** Starts connecting every enabled server; does not wait. */
  start(): this {
    if (!this.started) {
      this.started = true;
      for (const c of this.connections) void c.connect();
    }
    return this;
  }

  /** Resolves once every server has connected or failed (for `gong mcp list`, tests and benchmarks). */
  async settled(): Promise<void> {
    this.start();
    await Promise.all(this.connections.map((c) => c.connect()));
  }

  /** Every tool of the connected servers. */
  tools(): Tool[] {
    return [...this.toolsByServer.values()].flat();
  }

  status(): McpServerStatus[] {
    const live = this.connections.map((c) => ({
      name: c.name,
      state: c.state,
      transport: c.transportUsed ?? c.config.transport,
      source: c.config.source,
      tools: c.tools.map((t, i) => ({
        name: t.name,
        exposedAs: this.toolsByServer.get(c.name)?.[i]?.name ?? t.name,
        description: t.description,
      })),
      error: c.error,
      pid: c.pid,
    }));
    const skipped = this.untrusted.map((s) => ({
      name: s.name,
      state: "untrusted" as const,
      transport: s.transport,
      source: s.source,
      tools: [],
    }));
    return [...live, ...skipped];
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Keeps `sink` holding the tools of the connected servers: those connected now at once, later
   * ones as they connect (then `onEvent` hears of it). Returns the detach function.
   */
  attach(sink: ToolSink, onEvent?: Listener): () => void {
    for (const tool of this.tools()) sink.register(tool);
    // Failures that happened before this attachment are told once to it too.
    for (const c of this.connections) if (c.state === "failed") onEvent?.(this.failure(c));
    const held = new Map<string, string[]>(
      [...this.toolsByServer].map(([server, tools]) => [server, tools.map((t) => t.name)]),
    );
    return this.subscribe((event) => {
      if (event.state === "connected") {
        for (const old of held.get(event.server) ?? []) if (!event.tools.includes(old)) sink.unregister(old);
        for (const tool of this.toolsByServer.get(event.server) ?? []) sink.register(tool);
        held.set(event.server, event.tools);
      }
      onEvent?.(event);
    });
  }

  async close(): Promise<void> {
    this.listeners.clear();
    await Promise.all(this.connections.map((c) => c.close()));
  }

  private changed(connection: McpConnection): void {
    if (connection.state === "connected") {
      const tools = toolsOf(connection);
      this.toolsByServer.set(connection.name, tools);
      this.reported.delete(connection.name);
      this.emit({ server: connection.name, state: "connected", tools: tools.map((t) => t.name) });
    } else if (connection.state === "failed" && !this.reported.has(connection.name)) {
      this.reported.add(connection.name);
      this.emit(this.failure(connection));
    }
  }

  private failure(connection: McpConnection): McpServerEvent {
    // One line, whatever the server or the transport wrote.
    const why = (connection.error ?? "unknown error").replace(/\s+/g, " ").trim();
    return {
      server: connection.name,
      state: "failed",
      tools: [],
      message: `MCP server '${connection.name}' failed: ${why}`,
    };
  }

  private emit(event: McpServerEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // One listener's bug must not stop the others.
      }
    }
  }
}
