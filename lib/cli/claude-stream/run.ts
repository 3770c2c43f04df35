/**
 * `gong -p --input-format stream-json --output-format stream-json`: Claude Code's streaming
 * protocol on stdin and stdout, as the Claude Agent SDK speaks it. stdin is read all the time:
 * `user` lines queue inputs of one session, run one after another; `control_request` lines are
 * answered at once (`initialize`, `interrupt`, `set_permission_mode`, `set_model`, `mcp_message`;
 * any other subtype gets an error naming it); `control_response` lines settle gong's own requests
 * to the program (`can_use_tool` for the calls the gate asks about, `hook_callback` for the hooks
 * it registered, `mcp_message` for its in-process MCP servers). stdout carries the `system` init
 * line, then each input's `assistant` / `user` messages (and `stream_event` lines with
 * `--include-partial-messages`) and one `result`. The run ends when stdin ends.
 */
import { createInterface } from "node:readline";
import type { Hooks, Session, SessionEvent } from "../../agent/index.ts";
import { openSession, storeFor } from "../../core/open.ts";
import { EXIT, resultRecord, runHeadless } from "../../core/outcome.ts";
import type { SessionSetup } from "../../core/prepare.ts";
import { approvalGate, withGate } from "../../gate/approval.ts";
import { resolveModelName } from "../../llm/catalog.ts";
import type { ApprovalMode } from "../../gate/modes.ts";
import type { McpManager } from "../../mcp/manager.ts";
import type { SessionStore } from "../../store/session-store.ts";
import { VERSION } from "../../version.ts";
import type { Io } from "../session-io.ts";
import { ControlChannel, type ControlPayload } from "./control.ts";
import { assistantLine, parseInputLine, toolResultLine, type UserInput } from "./messages.ts";
import { canUseToolAsker } from "./permissions.ts";
import { PartialMessages } from "./partial.ts";
import { sdkHookConfig } from "./sdk-hooks.ts";
import { SdkMcpServers } from "./sdk-mcp.ts";

export interface ClaudeStreamOptions {
  /** `--replay-user-messages`: each user line is written back once it is taken. */
  replay: boolean;
  /** Claude Code's name for the approval mode in force (the init line's permissionMode). */
  permissionMode: string;
  /** `--permission-prompt-tool stdio`: the program answers what the gate asks (its canUseTool). */
  programAnswers: boolean;
  /** `--include-partial-messages`: the model's text and thinking as `stream_event` lines while they stream. */
  partialMessages: boolean;
}

/** Claude Code's permission modes as gong's approval modes (`dontAsk`: what would be asked is refused). */
const MODES: Record<string, ApprovalMode> = {
  default: "ask",
  acceptEdits: "edits",
  bypassPermissions: "auto",
  dontAsk: "ask",
  // Chosen at start only (--permission-mode plan offers the reading tools alone).
  plan: "ask",
};

/** Lines a program may send that carry nothing for gong. */
const QUIET_TYPES = new Set(["keep_alive", "control_cancel_request", "update_environment_variables"]);

export async function runClaudeStream(setup: SessionSetup, options: ClaudeStreamOptions, io: Io): Promise<number> {
  return await new StreamHost(setup, options, io).run();
}

class StreamHost {
  private readonly channel: ControlChannel;
  private session: Session | undefined;
  private store: SessionStore | undefined;
  private readonly inputs: UserInput[] = [];
  private wake: (() => void) | undefined;
  private stdinEnded = false;
  private permissionMode: string;
  private initialize: ControlPayload | undefined;
  /** A model set_model asked for while an input ran: the next input takes it. */
  private nextModel: string | undefined;
  private code: number = EXIT.ok;
  /** Ends the reading of stdin (set while it is read). */
  private stopReading?: () => void;
  /** Why the run stops early (a bad line, stdout closed): said once, in the protocol's shape. */
  private failure: string | undefined;
  private readonly unsubscribe: (() => void)[] = [];
  /** The program's in-process MCP servers, and the manager that runs them beside the configured ones. */
  private sdkMcp: SdkMcpServers | undefined;
  private ownMcp: McpManager | undefined;

  constructor(
    private readonly setup: SessionSetup,
    private readonly options: ClaudeStreamOptions,
    private readonly io: Io,
  ) {
    this.permissionMode = options.permissionMode;
    this.channel = new ControlChannel((line) => this.write(line));
  }

  async run(): Promise<number> {
    // A program that closes its end of stdout can read nothing more: the turn stops, nothing is left running.
    this.io.stdout.on("error", () => this.stop("stdout was closed"));
    const reading = this.read();
    try {
      await this.runInputs();
    } finally {
      this.channel.close("stdin ended");
      for (const u of this.unsubscribe) u();
      await this.session?.close();
      this.store?.close();
      await this.ownMcp?.close();
    }
    await reading;
    if (this.failure !== undefined) return EXIT.usage;
    return this.setup.terminated.aborted ? EXIT.interrupted : this.code;
  }

  private write(line: object): void {
    if (this.failure === "stdout was closed") return;
    this.io.stdout.write(`${JSON.stringify(line)}\n`);
  }

  /** Ends the run: the input running stops, queued ones are dropped, and the reason is said once. */
  private stop(why: string, say?: string): void {
    if (this.failure !== undefined) return;
    this.failure = why;
    this.inputs.length = 0;
    if (say !== undefined) {
      this.io.stderr.write(`gong: ${say}\n`);
      this.write({
        type: "result",
        subtype: "error_during_execution",
        is_error: true,
        errors: [say],
        session_id: this.session?.id ?? "",
        uuid: crypto.randomUUID(),
      });
    }
    void this.session?.interrupt().catch(() => {});
    // Nothing more is read either: a program that went away may never close stdin.
    this.stopReading?.();
    this.wake?.();
  }

  /** stdin, line by line, until it ends or the run stops. */
  private async read(): Promise<void> {
    const lines = createInterface({ input: this.io.stdin, crlfDelay: Number.POSITIVE_INFINITY });
    this.stopReading = () => lines.close();
    let number = 0;
    try {
      for await (const text of lines) {
        number++;
        if (this.failure !== undefined || this.setup.terminated.aborted) break;
        if (!text.trim()) continue;
        const line = parseInputLine(text);
        if (line.kind === "invalid")
          this.stop("bad input", `stdin line ${number} is not a stream-json message: ${line.problem}.`);
        else if (line.kind === "user") {
          this.inputs.push(line.input);
          this.wake?.();
        } else if (line.kind === "control_request") void this.answer(line.requestId, line.subtype, line.request);
        else if (line.kind === "control_response") this.channel.settle(line.line);
        else if (!QUIET_TYPES.has(line.type))
          this.stop(
            "bad input",
            `stdin line ${number} is a message of type '${line.type}', which gong does not read (user, control_request and control_response are).`,
          );
      }
    } finally {
      lines.close();
      this.stdinEnded = true;
      // What the program has not answered yet, it never will.
      this.channel.close("the program closed stdin");
      this.wake?.();
    }
  }

  /** Runs the queued inputs one after another until stdin has ended and none is left. */
  private async runInputs(): Promise<void> {
    let initialized = false;
    for (;;) {
      const input = this.inputs.shift();
      if (!input) {
        if (this.stdinEnded || this.failure !== undefined || this.setup.terminated.aborted) return;
        await new Promise<void>((resolve) => (this.wake = resolve));
        continue;
      }
      const session = await this.open();
      if (!initialized) {
        this.write(this.initLine(session));
        initialized = true;
      }
      if (this.nextModel) {
        session.setModel(this.nextModel);
        this.nextModel = undefined;
      }
      if (this.options.replay) this.write({ ...input.line, session_id: session.id, isReplay: true });
      const run = await runHeadless(session, input.text, {
        stops: [this.setup.terminated],
        verbose: false,
        warn: (message) => this.io.stderr.write(`${message}\n`),
        schema: this.setup.answerSchema,
        images: input.images,
      });
      if (this.failure !== undefined) return;
      this.write(resultRecord(session, run));
      if (run.failure) this.io.stderr.write(`gong: ${run.failure}\n`);
      this.code = run.code;
    }
  }

  /** The session, opened with the first input: after `initialize` brought the program's hooks. */
  private async open(): Promise<Session> {
    if (this.session) return this.session;
    const { setup } = this;
    const hooks = sdkHookConfig(this.initialize?.hooks, this.channel);
    if (hooks.unsupported.length > 0)
      this.io.stderr.write(
        `gong: hooks for ${hooks.unsupported.join(", ")} are registered but gong has no such event.\n`,
      );
    let programHooks: Hooks[] = [];
    if (Object.keys(hooks.config).length > 0) {
      const { ShellHooks } = await import("../../setup/shell-hooks.ts");
      const sdkHooks = new ShellHooks({
        config: hooks.config,
        cwd: setup.cwd,
        env: this.io.env,
        permissionMode: () => this.permissionMode,
        report: (line) => void this.io.stderr.write(`gong: ${line}\n`),
        decisions: setup.permissions.hookDecisions,
      });
      programHooks = [sdkHooks.hooks];
      this.unsubscribe.push(() => sdkHooks.setTranscript(undefined));
      this.observers.push((event) => sdkHooks.observe(event));
    }
    const asker = canUseToolAsker(this.channel, () => void this.session?.interrupt().catch(() => {}));
    const gate = approvalGate({
      mode: () => MODES[this.permissionMode] ?? "auto",
      // dontAsk: what a rule does not allow is refused without a question.
      ask: this.options.programAnswers
        ? (request) =>
            this.permissionMode === "dontAsk"
              ? Promise.resolve({ allow: false, reason: "the permission mode dontAsk refuses what no rule allows" })
              : asker(request)
        : undefined,
      permissions: setup.permissions,
    });
    const base = setup.sessionOptions.hooks;
    const list = base === undefined ? [] : Array.isArray(base) ? base : [base];
    const mcpServers = await this.mcpServers();
    this.store = storeFor(setup);
    const session = await openSession(setup, this.store, {
      hooks: withGate([...list, ...programHooks], gate),
      ...(mcpServers ? { mcpServers } : {}),
    });
    this.session = session;
    if (this.options.partialMessages) {
      const partial = new PartialMessages(
        (line) => this.write(line),
        () => session.id,
      );
      this.observers.push((event) => partial.observe(event));
    }
    this.unsubscribe.push(session.subscribe((event) => this.observe(event)));
    return session;
  }

  /**
   * The program's in-process servers beside the configured ones, in a manager of their own (the
   * setup's never started), connected before the first model call so their tools are offered.
   */
  private async mcpServers(): Promise<McpManager | undefined> {
    this.sdkMcp = new SdkMcpServers(this.initialize?.sdkMcpServers, this.channel);
    if (this.sdkMcp.configs.length === 0) return undefined;
    const configured = this.setup.sessionOptions.mcpServers;
    const { McpManager } = await import("../../mcp/manager.ts");
    const others = configured instanceof McpManager ? configured.configs : [];
    this.ownMcp = new McpManager([...others, ...this.sdkMcp.configs], this.setup.cwd);
    await this.ownMcp.settled();
    return this.ownMcp;
  }

  private readonly observers: ((event: SessionEvent) => void)[] = [];

  private observe(event: SessionEvent): void {
    for (const o of this.observers) o(event);
    // The session's own messages (a subagent's stay inside its tool call).
    if (event.agent_id !== undefined) return;
    const id = this.session?.id ?? "";
    if (event.kind === "message_end") {
      const { message } = event.data;
      if (message.role === "assistant") this.write(assistantLine(message, id));
      else if (message.role === "tool") this.write(toolResultLine(message, id));
    }
  }

  /** One control request of the program's, answered with one control_response. */
  private async answer(requestId: string, subtype: string, request: ControlPayload): Promise<void> {
    try {
      switch (subtype) {
        case "initialize":
          this.initialize = request;
          return this.channel.success(requestId, this.initializeResponse());
        case "interrupt":
          await this.session?.interrupt();
          return this.channel.success(requestId);
        case "set_permission_mode":
          return this.setPermissionMode(requestId, request.mode);
        case "set_model":
          return this.setModel(requestId, request.model);
        case "mcp_message": {
          const problem = this.sdkMcp
            ? this.sdkMcp.deliver(request.server_name, request.message)
            : "no SDK MCP server is connected.";
          return problem ? this.channel.error(requestId, `mcp_message: ${problem}`) : this.channel.success(requestId);
        }
        default:
          return this.channel.error(requestId, `gong does not answer control requests of subtype '${subtype}'.`);
      }
    } catch (e) {
      this.channel.error(requestId, `${subtype} failed: ${(e as Error).message}`);
    }
  }

  private setPermissionMode(requestId: string, mode: unknown): void {
    if (typeof mode !== "string" || !Object.hasOwn(MODES, mode) || mode === "plan")
      return this.channel.error(
        requestId,
        `set_permission_mode: gong takes default, acceptEdits, bypassPermissions or dontAsk (got '${String(mode)}'); plan mode is chosen at start with --permission-mode plan.`,
      );
    this.permissionMode = mode;
    this.channel.success(requestId);
  }

  private setModel(requestId: string, model: unknown): void {
    const name = typeof model === "string" && model !== "default" ? model : this.setup.model;
    const resolved = name.includes("/") ? name : resolveModelName(name);
    if (!resolved) return this.channel.error(requestId, `set_model: '${name}' is not a model gong knows.`);
    const session = this.session;
    if (session && session.state !== "PROCESSING") session.setModel(resolved);
    else this.nextModel = resolved;
    this.channel.success(requestId);
  }

  /** What `initialize` answers: the commands, agents, models and output style the session has. */
  private initializeResponse(): ControlPayload {
    const { brought } = this.setup;
    return {
      commands: brought.commands.map((c) => ({ name: c.name, description: c.description ?? "", argumentHint: "" })),
      agents: brought.agents.map((a) => ({ name: a.name, description: a.description ?? "" })),
      output_style: "default",
      available_output_styles: ["default"],
      models: [{ value: this.setup.model, displayName: this.setup.model, description: "the session's model" }],
      account: {},
      claude_code_version: VERSION,
    };
  }

  /** The `system` / `init` line: where the session runs and what it has. */
  private initLine(session: Session): object {
    const { setup } = this;
    return {
      type: "system",
      subtype: "init",
      cwd: setup.cwd,
      session_id: session.id,
      tools: session.tools,
      mcp_servers: (session.mcp?.status() ?? []).map((s) => ({ name: s.name, status: s.state })),
      model: session.model,
      permissionMode: this.permissionMode,
      slash_commands: setup.brought.commands.map((c) => c.name),
      apiKeySource:
        session.model.startsWith("anthropic/") && this.io.env.ANTHROPIC_API_KEY ? "ANTHROPIC_API_KEY" : "none",
      claude_code_version: VERSION,
      output_style: "default",
      agents: setup.brought.agents.map((a) => a.name),
      skills: setup.brought.skills.map((s) => s.name),
      plugins: [],
      uuid: crypto.randomUUID(),
    };
  }
}
