/**
 * gong as an MCP server, on the official SDK's server side: `tools/list` offers `gong` and
 * `gong-reply` (and gong's file tools with --file-tools); `tools/call` runs a task in a session the
 * core builds from the server's flags with the call's arguments on top (one prepared setup per
 * directory and set of flags, shared by the sessions that ask for the same). When the client goes
 * away — stdin closed, or gong told to end — every running input is stopped, its commands killed,
 * every session closed (its file complete) and everything the setups started stopped.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { existsSync, statSync } from "node:fs";
import { ConfigError, UsageError } from "../../core/errors.ts";
import type { SessionFlags } from "../../core/flags.ts";
import { openExisting, storeFor } from "../../core/open.ts";
import { prepareSession, type SessionSetup } from "../../core/prepare.ts";
import { SettingsError } from "../../core/settings.ts";
import { McpConfigError } from "../../mcp/index.ts";
import { VERSION } from "../../version.ts";
import { checkCall } from "../../../tools/registry.ts";
import { FileTools } from "./file-tools.ts";
import { ProgressReporter } from "./progress.ts";
import { ServedSession, SessionBusyError, type TaskCall } from "./served-session.ts";
import { ArgumentError, REPLY_TOOL, replyArgs, TASK_TOOL, TASK_TOOLS, taskArgs } from "./task-tools.ts";

export interface ServeOptions {
  /** The server's working directory: the default `cwd` of a task, and what a relative one is resolved against. */
  cwd: string;
  /** The server's own flags (its command line): a call's arguments go on top. */
  flags: SessionFlags;
  /** The user's environment (keys, base URLs, HOME). */
  env: Record<string, string | undefined>;
  /** Offer gong's file tools too. */
  fileTools: boolean;
  /** One line on stderr. */
  warn(line: string): void;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Idle sessions kept open for gong-reply; older ones are read back from their files. */
const KEPT_OPEN = 8;

const INSTRUCTIONS =
  "gong is a coding agent. Call gong with a task (prompt, and cwd for the project) to have it done in a new session; the answer comes with a threadId, and gong-reply with that threadId and a prompt continues the same session.";

export class McpServeHost {
  readonly server: Server;
  /** Sessions kept open, the one used last at the end. */
  private readonly sessions = new Map<string, ServedSession>();
  private readonly reopening = new Map<string, Promise<ServedSession>>();
  /** Prepared setups by directory and flags (the server's own is the first). */
  private readonly setups = new Map<string, Promise<SessionSetup>>();
  private readonly fileTools: FileTools | undefined;
  private closing: Promise<void> | undefined;

  /** `base`: the setup prepared for the server's own directory and flags. */
  constructor(
    private readonly options: ServeOptions,
    base: SessionSetup,
  ) {
    this.setups.set(setupKey(options.cwd, options.flags), Promise.resolve(base));
    this.server = new Server(
      { name: "gong", title: "gong", version: VERSION },
      { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
    );
    this.fileTools = options.fileTools ? new FileTools(base, this.server) : undefined;
    this.server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [...TASK_TOOLS, ...(this.fileTools?.definitions() ?? [])],
    }));
    this.server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
      this.call(request.params.name, request.params.arguments, extra).catch((e) => {
        throw asProtocolError(e);
      }),
    );
  }

  /** Serves over `transport` until the client goes away or `stop` aborts; then closes everything. */
  async serve(transport: Transport, stop: AbortSignal): Promise<void> {
    const closed = new Promise<void>((resolve) => {
      this.server.onclose = resolve;
      stop.addEventListener("abort", () => resolve(), { once: true });
    });
    await this.server.connect(transport);
    await closed;
    await this.close();
  }

  /** gong was told to end: every command's process tree is killed at once. */
  terminate(reason: string): void {
    for (const setup of this.setups.values()) void setup.then((s) => s.terminate(reason)).catch(() => {});
  }

  /** Stops every running input, closes every session and stops what the setups started. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.sessions.values()].map((s) => s.close()));
      await this.fileTools?.close().catch(() => {});
      const setups = await Promise.all([...this.setups.values()].map((s) => s.catch(() => undefined)));
      await Promise.all(setups.map((s) => s?.dispose()));
      await this.server.close().catch(() => {});
    })();
    return this.closing;
  }

  private async call(name: string, args: Record<string, unknown> | undefined, extra: Extra): Promise<CallToolResult> {
    if (name === TASK_TOOL) return this.task(args, extra);
    if (name === REPLY_TOOL) return this.reply(args, extra);
    const files = this.fileTools;
    if (files?.has(name)) {
      const checked = checkCall(files.tool(name), args ?? {}).checked;
      if (!checked.ok) throw new ArgumentError(checked.message);
      return files.call(name, checked.args as Record<string, unknown>, {
        requestId: extra.requestId,
        signal: extra.signal,
      });
    }
    const offered = [...TASK_TOOLS.map((t) => t.name), ...(files?.definitions().map((t) => t.name) ?? [])];
    throw new ProtocolError(ErrorCode.InvalidParams, `Unknown tool '${name}'. gong offers ${offered.join(", ")}.`);
  }

  /** `gong`: a new session in the task's directory with the call's flags. */
  private async task(raw: unknown, extra: Extra): Promise<CallToolResult> {
    const args = taskArgs(raw, this.options.cwd);
    if (!existsSync(args.cwd) || !statSync(args.cwd).isDirectory())
      throw new ArgumentError(`'cwd' must be an existing directory: ${args.cwd} is not one.`);
    const setup = await this.setupFor(args.cwd, args.flags);
    const served = await ServedSession.open(setup, storeFor(setup), this.server);
    return this.runIn(served, args.prompt, extra);
  }

  /** `gong-reply`: the session this server runs, or one stored under GONG_HOME (resumed in its own directory). */
  private async reply(raw: unknown, extra: Extra): Promise<CallToolResult> {
    const { threadId, prompt } = replyArgs(raw);
    const served = this.sessions.get(threadId) ?? (await this.reopened(threadId));
    return this.runIn(served, prompt, extra);
  }

  /**
   * Runs an input in a session kept open for the replies to come. Only the sessions used last stay
   * open (memory and session locks stay bounded on a long-lived server); an older one is closed
   * once idle, and gong-reply reads it back from its file.
   */
  private async runIn(served: ServedSession, prompt: string, extra: Extra): Promise<CallToolResult> {
    this.sessions.delete(served.id);
    this.sessions.set(served.id, served);
    try {
      return await served.run(prompt, taskCall(extra));
    } finally {
      const idle = [...this.sessions.values()].filter((s) => !s.busy);
      for (const old of idle.slice(0, Math.max(0, idle.length - KEPT_OPEN))) {
        this.sessions.delete(old.id);
        await old.close();
      }
    }
  }

  /** One reopening per session at a time: two replies naming it at once get the same session (one writer per file). */
  private reopened(threadId: string): Promise<ServedSession> {
    let opening = this.reopening.get(threadId);
    if (!opening) {
      opening = this.reopen(threadId).finally(() => this.reopening.delete(threadId));
      this.reopening.set(threadId, opening);
    }
    return opening;
  }

  private async reopen(threadId: string): Promise<ServedSession> {
    // A threadId names a session, never a file: a path is refused before anything is looked up.
    if (!/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(threadId))
      throw new ArgumentError(`'threadId' must be a session id as gong returned it (got '${threadId}').`);
    const store = openExisting(threadId, this.options.cwd);
    let setup: SessionSetup;
    try {
      setup = await this.setupFor(store.cwd, {});
    } catch (e) {
      store.close();
      throw e;
    }
    return ServedSession.open(setup, store, this.server);
  }

  /** The setup for a directory and the call's flags over the server's, prepared once and shared. */
  private setupFor(cwd: string, given: Partial<SessionFlags>): Promise<SessionSetup> {
    const flags = { ...this.options.flags, ...given };
    const key = setupKey(cwd, flags);
    let setup = this.setups.get(key);
    if (!setup) {
      const { env, warn } = this.options;
      setup = prepareSession({ cwd, flags, env, warn }).then((prepared) => {
        for (const notice of prepared.notices) warn(`gong: ${notice}`);
        return prepared;
      });
      this.setups.set(key, setup);
      // A setup that could not be prepared (a bad model, a broken settings file) is tried again next time.
      setup.catch(() => this.setups.delete(key));
    }
    return setup;
  }
}

function setupKey(cwd: string, flags: SessionFlags): string {
  return JSON.stringify([cwd, flags]);
}

/** What a running input needs of its tools/call request: its id, its cancellation, its progress token. */
function taskCall(extra: Extra): TaskCall {
  return {
    requestId: extra.requestId,
    signal: extra.signal,
    progress: new ProgressReporter(extra._meta?.progressToken, (params) =>
      extra.sendNotification({ method: "notifications/progress", params }),
    ),
  };
}

/**
 * A JSON-RPC error with gong's sentence as its message (the SDK's McpError would put "MCP error
 * <code>:" in front, and a client's McpError puts it there again).
 */
class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** A failed call as the protocol's error, with gong's sentence. */
function asProtocolError(e: unknown): Error {
  if (e instanceof ProtocolError || e instanceof McpError) return e;
  const message = e instanceof Error ? e.message : String(e);
  // The call's arguments, or the settings they lead to, are wrong: the caller can fix them.
  if (
    e instanceof ArgumentError ||
    e instanceof UsageError ||
    e instanceof ConfigError ||
    e instanceof SettingsError ||
    e instanceof McpConfigError
  )
    return new ProtocolError(ErrorCode.InvalidParams, message);
  if (e instanceof SessionBusyError) return new ProtocolError(ErrorCode.InvalidRequest, message);
  return new ProtocolError(ErrorCode.InternalError, message);
}
