/**
 * One MCP server: connect (with the start-up timeout), list its tools, call them, and notice when
 * it goes away. A server that failed or died is connected again on the next call — the call then
 * waits for the restart — so a crash costs one error result, not the rest of the session.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { VERSION } from "../version.ts";
import type { McpServerConfig } from "./config.ts";
import type { McpServerState } from "./state.ts";
import { loadSdk, type McpSdk } from "./sdk.ts";
import { MAX_MESSAGE_BYTES, OVERSIZED_MESSAGE, openTransport, type OpenedTransport } from "./transport.ts";

export interface CallOptions {
  signal?: AbortSignal;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

/** Why a call did not reach a result; `kind` picks the envelope's error code. */
export class McpCallError extends Error {
  constructor(
    readonly kind: "unavailable" | "died" | "timeout" | "aborted" | "protocol" | "oversized",
    message: string,
  ) {
    super(message);
    this.name = "McpCallError";
  }
}

/** Told when the state changed (or the tool list did, while connected). */
export type ConnectionListener = (connection: McpConnection) => void;

export class McpConnection {
  state: McpServerState;
  /** The server's tools, filtered by enabledTools/disabledTools, as of the last listing. */
  tools: McpTool[] = [];
  /** Why the server is not connected, when it failed. */
  error?: string;
  /** The transport of the live connection (a url without a type may have fallen back to SSE). */
  transportUsed?: "stdio" | "http" | "sse";

  private client?: Client;
  private sdk?: McpSdk;
  private opened?: OpenedTransport;
  private connecting?: Promise<void>;
  private closing = false;
  /** The last call's answer was past MAX_MESSAGE_BYTES (the SDK dropped it and closed the connection). */
  private oversized = false;

  constructor(
    readonly config: McpServerConfig,
    private readonly projectCwd: string,
    private readonly onChange: ConnectionListener,
  ) {
    this.state = config.enabled ? "pending" : "disabled";
  }

  get name(): string {
    return this.config.name;
  }

  /** The server process id (stdio servers). */
  get pid(): number | undefined {
    return this.opened?.pid();
  }

  /** Connects unless connected; resolves when the attempt is over (the state says how it went). */
  connect(): Promise<void> {
    if (this.state === "connected" || this.state === "disabled" || this.closing) return Promise.resolve();
    this.connecting ??= this.attempt().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  async call(tool: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<CallToolResult> {
    this.oversized = false;
    if (this.state !== "connected") {
      // An interrupt while the server is being started again ends the wait (the start goes on).
      await untilAborted(this.connect(), options.signal);
      if (options.signal?.aborted)
        throw new McpCallError("aborted", `The call to MCP server '${this.name}' was cancelled.`);
      if ((this.state as McpServerState) !== "connected") {
        throw new McpCallError(
          "unavailable",
          `MCP server '${this.name}' is not available: ${this.error ?? this.state}. It is started again on the next call.`,
        );
      }
    }
    const client = this.client!;
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, {
        signal: options.signal,
        timeout: this.config.toolTimeoutMs,
        resetTimeoutOnProgress: true,
        onprogress: options.onProgress
          ? (p) => options.onProgress!({ progress: p.progress, total: p.total, message: p.message })
          : undefined,
      });
      return result as CallToolResult;
    } catch (e) {
      // Not an answer of the server's but a failure of the wire (an HTTP server gone or restarted,
      // its session lost): connect afresh on the next call.
      if (!options.signal?.aborted && !(e instanceof this.sdk!.McpError))
        this.lost(client, `the connection failed: ${(e as Error).message ?? String(e)}`);
      throw this.callError(e, options.signal);
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.connecting?.catch(() => {});
    await this.drop();
  }

  private callError(e: unknown, signal: AbortSignal | undefined): McpCallError {
    const message = e instanceof Error ? e.message : String(e);
    const { McpError, ErrorCode } = this.sdk!;
    if (signal?.aborted) return new McpCallError("aborted", `The call to MCP server '${this.name}' was cancelled.`);
    if (e instanceof McpError && e.code === ErrorCode.RequestTimeout) {
      return new McpCallError(
        "timeout",
        `MCP server '${this.name}' did not answer within ${this.config.toolTimeoutMs} ms (toolTimeoutMs).`,
      );
    }
    if (this.oversized) {
      return new McpCallError(
        "oversized",
        `MCP server '${this.name}' answered with a message larger than ${MAX_MESSAGE_BYTES / 2 ** 20} MB, the most an MCP message may be here; the answer was dropped and the connection restarted (the server did not fail). Do not repeat the call as it was: ask the tool for less (a narrower query, a range, a page, a filter).`,
      );
    }
    if (this.state !== "connected" || (e instanceof McpError && e.code === ErrorCode.ConnectionClosed)) {
      return new McpCallError(
        "died",
        `MCP server '${this.name}' stopped during the call${this.error ? ` (${this.error})` : ""}. It is started again on the next call.`,
      );
    }
    return new McpCallError("protocol", `MCP server '${this.name}': ${message}`);
  }

  private async attempt(): Promise<void> {
    if (this.config.problem) return this.fail(this.config.problem);
    this.setState("connecting");
    try {
      this.sdk ??= await loadSdk();
    } catch (e) {
      return this.fail(`the MCP SDK could not be loaded: ${(e as Error).message}`);
    }
    const kinds =
      this.config.transport === "http" && this.config.inferred
        ? (["http", "sse"] as const)
        : ([this.config.transport] as const);
    let lastError = "";
    for (const kind of kinds) {
      const outcome = await this.handshake(kind);
      if (outcome === true) return;
      lastError = outcome;
      if (this.closing) return;
    }
    this.fail(lastError);
  }

  /** One connection attempt over one transport: true when connected and listed, else why not. */
  private async handshake(kind: "stdio" | "http" | "sse"): Promise<true | string> {
    const sdk = this.sdk!;
    const client = new sdk.Client({ name: "gong", version: VERSION }, { capabilities: {} });
    let opened: OpenedTransport;
    try {
      opened = openTransport(sdk, this.config, kind, this.projectCwd);
    } catch (e) {
      return (e as Error).message;
    }
    this.client = client;
    this.opened = opened;
    const timeout = this.config.startupTimeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeout} ms (startupTimeoutMs)`)), timeout);
    });
    try {
      await Promise.race([client.connect(opened.transport, { timeout }), timedOut]);
      const tools = await Promise.race([this.listAll(client, timeout), timedOut]);
      if (this.closing) return "closed";
      client.onclose = () =>
        this.lost(
          client,
          this.oversized
            ? `an answer was larger than ${MAX_MESSAGE_BYTES / 2 ** 20} MB (the most an MCP message may be here), so the connection was dropped`
            : "the server exited",
        );
      // The SDK's stdio reader refuses a message past its buffer limit with a plain Error, then closes.
      client.onerror = (error) => {
        if (error.message.startsWith(OVERSIZED_MESSAGE)) this.oversized = true;
      };
      client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => void this.refresh(client));
      this.tools = tools;
      this.transportUsed = kind;
      this.error = undefined;
      this.setState("connected");
      return true;
    } catch (e) {
      const why = `${(e as Error).message}${stderrNote(opened)}`;
      await this.drop();
      return why;
    } finally {
      clearTimeout(timer);
    }
  }

  private async listAll(client: Client, timeout: number): Promise<McpTool[]> {
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    const { enabledTools, disabledTools } = this.config;
    // A tool that only runs as a protocol task (started now, fetched later) cannot be called in one request: left out.
    const callable = (t: McpTool) => (t.execution as { taskSupport?: string } | undefined)?.taskSupport !== "required";
    return tools.filter(
      (t) => callable(t) && (!enabledTools || enabledTools.includes(t.name)) && !disabledTools.includes(t.name),
    );
  }

  private async refresh(client: Client): Promise<void> {
    try {
      const tools = await this.listAll(client, this.config.startupTimeoutMs);
      if (client !== this.client || this.state !== "connected") return;
      this.tools = tools;
      this.onChange(this);
    } catch {
      // The old list stays; a dead server is noticed through onclose.
    }
  }

  /** The connection ended without our asking: the server exited or the wire failed. */
  private lost(client: Client, why: string): void {
    if (client !== this.client || this.closing) return;
    const note = stderrNote(this.opened);
    const opened = this.opened;
    this.client = undefined;
    this.opened = undefined;
    client.onclose = undefined;
    // What the server left running (a child it started) goes with it.
    void opened?.killTree().catch(() => {});
    void client.close().catch(() => {});
    this.fail(`${why}${note}`);
  }

  private fail(error: string): void {
    this.error = error;
    this.setState("failed");
  }

  private setState(state: McpServerState): void {
    this.state = state;
    this.onChange(this);
  }

  private async drop(): Promise<void> {
    const client = this.client;
    const opened = this.opened;
    this.client = undefined;
    this.opened = undefined;
    // The server and everything it started, with a short grace: a server ignoring SIGTERM costs no more.
    await opened?.killTree().catch(() => {});
    if (client) {
      client.onclose = undefined;
      await client.close().catch(() => {});
    }
  }
}

/** The last line the server wrote to stderr, as " (stderr: …)" for an error sentence; "" when there is none. */
function stderrNote(opened: OpenedTransport | undefined): string {
  const last = opened?.stderrTail().trim().split("\n").pop()?.trim();
  return last ? ` (stderr: ${last.slice(0, 200)})` : "";
}

function untilAborted(work: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return work;
  if (signal.aborted) return Promise.resolve();
  return new Promise((done) => {
    const onAbort = () => done();
    signal.addEventListener("abort", onAbort, { once: true });
    void work.finally(() => {
      signal.removeEventListener("abort", onAbort);
      done();
    });
  });
}
