/**
 * The Session (004 §2.1): holds the conversation, runs one input at a time through the loop,
 * takes steering and follow-ups while it runs, and owns the lifecycle
 * IDLE → PROCESSING → IDLE | AWAITING_INPUT, and CLOSED on close(), abort() or an auth error.
 */
import type { ExecutionEnvironment } from "../env/types.ts";
import type { Observer } from "../observe.ts";
import type { McpManager, McpServerEvent } from "../mcp/index.ts";
import type { ImagePart, LlmClient, Message, ModelInfo, ReasoningEffort } from "../llm/types.ts";
import type { ProfileFactory, ProviderProfile } from "../profiles/types.ts";
import type { ToolPreset, ToolRegistry } from "../../tools/registry.ts";
import { checkReasoningEffort, type SessionConfig } from "./config.ts";
import { EventBus, type EventListener, type SessionEvent } from "./events.ts";
import { HookRunner, type Hooks } from "./hooks.ts";
import { LoopDetector } from "./loop-detection.ts";
import { runInput, type LoopHost, type PendingInput, type SubmitResult } from "./loop.ts";
import { InputQueues } from "./queues.ts";
import type { SessionRecorder } from "./recorder.ts";
import { ContextMonitor } from "./context-monitor.ts";
import { SessionMcpTools, type ToolSelection } from "./mcp-tools.ts";
import { composeSystemPrompt, type PromptOverrides, type PromptSources } from "./system-prompt.ts";
import type { ToolExecutionContext } from "./tool-execution.ts";

export type SessionState = "IDLE" | "PROCESSING" | "AWAITING_INPUT" | "CLOSED";

export interface SubmitOptions {
  images?: ImagePart[] | { mimeType: string; data: string }[];
}

/** Everything the session is assembled from (see createSession). */
export interface SessionParts {
  id: string;
  config: SessionConfig;
  client: LlmClient;
  env: ExecutionEnvironment;
  ownsEnv: boolean;
  registry: ToolRegistry;
  profileFactory: ProfileFactory;
  profile: ProviderProfile;
  observer: Observer;
  hooks: Hooks[];
  sources: PromptSources;
  overrides: PromptOverrides;
  history: Message[];
  recorder: SessionRecorder;
  /** MCP servers whose tools this session offers; `owned` ones close with the session. */
  mcp?: { manager: McpManager; owned: boolean };
  /** The tool selection the session was given (a preset or names); MCP tools follow it. */
  toolSelection: ToolSelection;
}

const SUBAGENT_TOOLS = new Set(["task", "Task", "spawn_agent"]);

export class Session implements LoopHost {
  readonly id: string;
  readonly config: SessionConfig;
  readonly client: LlmClient;
  readonly bus: EventBus;
  readonly hooks: HookRunner;
  readonly queues: InputQueues;
  readonly history: Message[];
  readonly loopDetector: LoopDetector;
  readonly registry: ToolRegistry;
  readonly env: ExecutionEnvironment;
  turnCount = 0;

  private currentProfile: ProviderProfile;
  private readonly parts: SessionParts;
  private readonly monitor: ContextMonitor;
  private readonly runningTools = new Set<AbortController>();
  private readonly abortController = new AbortController();
  private currentState: SessionState = "IDLE";
  private running: Promise<SubmitResult> | null = null;
  private cachedPrompt: string | null = null;
  private started = false;
  private closing: Promise<void> | null = null;
  private mcpTools?: SessionMcpTools;
  /** MCP events from before session_start, told right after it. */
  private pendingMcp: McpServerEvent[] | null = [];

  constructor(parts: SessionParts) {
    this.parts = parts;
    this.id = parts.id;
    this.config = parts.config;
    this.client = parts.client;
    this.env = parts.env;
    this.registry = parts.registry;
    this.currentProfile = parts.profile;
    this.history = parts.history;
    this.bus = new EventBus(parts.id);
    this.hooks = new HookRunner(parts.hooks, () => this.config.hookTimeoutMs, (report) => this.bus.emit("hook_error", { ...report }));
    this.queues = new InputQueues(() => this.interruptTools());
    this.loopDetector = new LoopDetector(() => this.config.loopDetectionWindow);
    this.monitor = new ContextMonitor(this, parts.recorder);
    if (parts.mcp) this.mcpTools = new SessionMcpTools(parts.mcp.manager, this.registry, () => this.parts.toolSelection, (event) => this.mcpChanged(event));
  }

  get state(): SessionState {
    return this.currentState;
  }

  get profile(): ProviderProfile {
    return this.currentProfile;
  }

  get model(): string {
    return this.currentProfile.model;
  }

  get signal(): AbortSignal {
    return this.abortController.signal;
  }

  /** The MCP servers whose tools this session offers (status, `settled()`), when any are configured. */
  get mcp(): McpManager | undefined {
    return this.parts.mcp?.manager;
  }

  /** Path of the session file, when the session is stored. */
  get sessionFile(): string | undefined {
    return this.parts.recorder.path;
  }

  // ---------------------------------------------------------------------------------- input

  /** Runs one input (and the follow-ups queued meanwhile) to the end. Rejects when the session is busy or closed. */
  async submit(text: string, options: SubmitOptions = {}): Promise<SubmitResult> {
    if (typeof text !== "string") throw new Error("submit() needs the input text as a string.");
    this.assertOpen("submit");
    if (this.running || this.currentState === "PROCESSING") {
      throw new Error("Session is busy with another input; use steer() to redirect it or followUp() to queue a message for afterwards.");
    }
    const images = (options.images ?? []).map((img) => ({ type: "image" as const, mimeType: img.mimeType, data: img.data }));
    return this.start({ text, images });
  }

  /** Injects a message after the running tool call; the calls still pending are skipped. When idle, it is sent with the next input. */
  steer(text: string): void {
    this.assertOpen("steer");
    this.queues.steer(text);
  }

  /** Queues a message to process once the current input is done; when idle, processes it now. */
  followUp(text: string): void {
    this.assertOpen("followUp");
    this.queues.followUp(text);
    if (!this.running) {
      const next = this.queues.nextFollowUp();
      if (next !== undefined) void this.start({ text: next, images: [] }).catch(() => {});
    }
  }

  /** Stops everything: the stream, running commands; the session ends CLOSED. Resolves when it has. */
  async abort(): Promise<void> {
    if (!this.abortController.signal.aborted) this.abortController.abort(new Error("Session aborted"));
    if (this.running) await this.running.catch(() => {});
    await this.shutdown("aborted");
  }

  async close(): Promise<void> {
    if (this.running) return this.abort();
    await this.shutdown("closed");
  }

  // ---------------------------------------------------------------------------------- settings

  /** Switches the model; the next model call uses it. */
  setModel(ref: string): void {
    this.assertOpen("setModel");
    const info: ModelInfo = this.client.model(ref);
    this.currentProfile = this.parts.profileFactory({ model: ref, modelInfo: info, registry: this.registry });
    this.parts.sources.environment.model = `${info.name} (${ref})`;
    this.parts.sources.environment.knowledgeCutoff = info.knowledgeCutoff;
    this.cachedPrompt = null;
    this.parts.recorder.modelChange(ref);
    this.bus.emit("model_change", { model: ref });
  }

  setReasoningEffort(effort: ReasoningEffort | null): void {
    this.assertOpen("setReasoningEffort");
    this.config.reasoningEffort = checkReasoningEffort(effort);
    this.parts.recorder.thinkingLevelChange(effort);
  }

  /** Switches the active tools (a preset or tool names); the next request carries the new list. */
  setTools(presetOrNames: ToolPreset | readonly string[]): void {
    this.assertOpen("setTools");
    this.registry.setActive(presetOrNames);
    this.parts.toolSelection = presetOrNames;
    this.mcpTools?.reselect();
    this.cachedPrompt = null;
  }

  /** The full system prompt the next request will carry. */
  systemPrompt(): string {
    this.cachedPrompt ??= composeSystemPrompt(this.currentProfile, this.parts.sources, this.parts.overrides);
    return this.cachedPrompt;
  }

  /** Summarizes older messages now (beforeSessionOp("compact") may cancel). Resolves false when nothing was compacted. */
  async compact(): Promise<boolean> {
    this.assertOpen("compact");
    if (this.running) throw new Error("Session is busy; compact() runs between inputs.");
    return this.monitor.compact("manual");
  }

  // ---------------------------------------------------------------------------------- events

  events(): AsyncIterableIterator<SessionEvent> {
    return this.bus.events();
  }

  subscribe(listener: EventListener): () => void {
    return this.bus.subscribe(listener);
  }

  // ---------------------------------------------------------------------------------- LoopHost

  toolContext(): ToolExecutionContext {
    const names = this.registry.names();
    return {
      registry: this.registry,
      hooks: this.hooks,
      observer: this.parts.observer,
      bus: this.bus,
      parallel: this.currentProfile.supportsParallelToolCalls,
      signal: this.signal,
      steeringPending: () => this.queues.hasSteering,
      running: this.runningTools,
      hasSubagentTool: names.some((n) => SUBAGENT_TOOLS.has(n)),
    };
  }

  append(message: Message): void {
    this.history.push(message);
    this.bus.emit("message_start", { message });
    this.bus.emit("message_end", { message });
    this.parts.recorder.message(message);
  }

  persist(message: Message): void {
    this.parts.recorder.message(message);
  }

  afterTurn(): Promise<void> {
    return this.monitor.afterTurn();
  }

  compactForOverflow(): Promise<boolean> {
    return this.monitor.compact("overflow");
  }

  // ---------------------------------------------------------------------------------- internals

  private async start(input: PendingInput): Promise<SubmitResult> {
    if (!this.started) {
      this.started = true;
      this.bus.emit("session_start", { model: this.model, cwd: this.env.workingDirectory(), profile: this.currentProfile.id });
      for (const event of this.pendingMcp ?? []) this.bus.emit("mcp_server", { ...event });
      this.pendingMcp = null;
    }
    this.currentState = "PROCESSING";
    const run = (async () => {
      await this.monitor.idle();
      return runInput(this, input);
    })();
    this.running = run;
    let result: SubmitResult;
    try {
      result = await run;
    } catch (e) {
      // A bug outside the guarded steps (e.g. a custom tool with an invalid schema): report it, stay usable.
      this.bus.emit("error", { kind: "internal", message: (e as Error).message, stack: (e as Error).stack });
      this.currentState = "IDLE";
      throw e;
    } finally {
      this.running = null;
    }
    if (this.signal.aborted) await this.shutdown("aborted");
    else if (result.error?.kind === "auth") await this.shutdown("error");
    else this.currentState = result.stopReason === "completed" && result.text.trimEnd().endsWith("?") ? "AWAITING_INPUT" : "IDLE";
    return result;
  }

  /** A server connected (its tools are in the next request) or failed. */
  private mcpChanged(event: McpServerEvent): void {
    this.cachedPrompt = null;
    if (this.pendingMcp) this.pendingMcp.push(event);
    else if (this.currentState !== "CLOSED") this.bus.emit("mcp_server", { ...event });
  }

  /** Steering interrupts the tool calls running right now (a long command is killed). */
  private interruptTools(): void {
    for (const controller of this.runningTools) controller.abort(new Error("Interrupted by a steering message"));
  }

  private assertOpen(method: string): void {
    if (this.currentState === "CLOSED") throw new Error(`Session is closed; ${method}() is not possible. Create or resume a session.`);
  }

  private shutdown(reason: "aborted" | "closed" | "error"): Promise<void> {
    this.closing ??= (async () => {
      this.currentState = "CLOSED";
      if (!this.abortController.signal.aborted) this.abortController.abort(new Error("Session closed"));
      this.mcpTools?.close();
      if (this.parts.mcp?.owned) await this.parts.mcp.manager.close().catch(() => {});
      if (this.parts.ownsEnv) await this.env.cleanup().catch(() => {});
      this.parts.recorder.close();
      // session_start and session_end bracket a session that ran; one closed unused announced nothing.
      if (this.started) this.bus.emit("session_end", { state: "CLOSED", reason, turns: this.turnCount });
      this.bus.close();
    })();
    return this.closing;
  }
}
