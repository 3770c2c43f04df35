/**
 * The Session (docs/conformance.md: 004 §2.1): holds the conversation, runs one input at a time
 * through the loop, takes steering and follow-ups while it runs, and owns the lifecycle IDLE →
 * PROCESSING → IDLE | AWAITING_INPUT, and CLOSED on close(), abort() or an auth error. interrupt()
 * stops the running input and leaves the session IDLE with its history.
 *
 * Each input runs through `runLoop` with the conversation, values and a few narrow callbacks built
 * here (private, so a script sees only the methods documented in the README). Messages, plans and
 * model changes reach the session file because the recorder listens to their events.
 */
import type { ExecutionEnvironment } from "../env/types.ts";
import type { Observer } from "../output/policy.ts";
import type { McpManager, McpServerEvent } from "../mcp/index.ts";
import type { ImagePart, LlmClient, Message, ModelInfo, ReasoningEffort, ToolSpec, Usage } from "../llm/types.ts";
import { addUsage, zeroUsage } from "../llm/usage.ts";
import type { ToolLimits } from "../output/policy.ts";
import { factoryFor, isProfileToolName } from "../profiles/index.ts";
import type { ProfileFactory, ProviderProfile } from "../profiles/types.ts";
import type { Plan } from "../../tools/plan.ts";
import type { ToolPreset, ToolRegistry } from "../../tools/registry.ts";
import type { ProcessTable } from "../../tools/processes.ts";
import { buildToolset, type Toolset } from "./toolset.ts";
import type { Tool } from "../../tools/types.ts";
import type { UserChannel } from "../../tools/user-channel.ts";
import { checkReasoningEffort, type SessionConfig } from "./config.ts";
import { EventStream } from "./events.ts";
import { HookRunner } from "./hooks.ts";
import { LoopDetector } from "./loop-detection.ts";
import { runLoop, type LoopConfig, type LoopContext, type PendingInput } from "./loop.ts";
import { toolRunner, type ToolExecutionContext } from "./tool-execution.ts";
import { InputQueues } from "./queues.ts";
import type { SessionRecorder } from "./recorder.ts";
import { ContextMonitor } from "./context-monitor.ts";
import { SessionMcpTools } from "./mcp-tools.ts";
import { composeSystemPrompt, type PromptOverrides, type PromptSources } from "./system-prompt.ts";
import type { SubagentLink, SubagentManager } from "./subagents/manager.ts";
import type { ChildReport, EventListener, Hooks, SessionEvent, SubmitResult } from "./vocabulary.ts";
import type { ParentSnapshot } from "./subagents/child-factory.ts";
import type { AgentDefinition } from "../setup/agents.ts";
import { skillsBlock, type Skill } from "../setup/skills.ts";
import { shouldDefer, toolSearchTool } from "../mcp/tool-search.ts";
import type {
  CheckpointInfo,
  Checkpointer,
  RewindOptions,
  RewindPreview,
  RewindResult,
} from "../checkpoints/checkpointer.ts";

export type SessionState = "IDLE" | "PROCESSING" | "AWAITING_INPUT" | "CLOSED";

export interface SubmitOptions {
  images?: ImagePart[] | { mimeType: string; data: string }[];
}

/** Everything the session is assembled from (see createSession). */
export interface SessionParts {
  config: SessionConfig;
  client: LlmClient;
  env: ExecutionEnvironment;
  ownsEnv: boolean;
  registry: ToolRegistry;
  /** "auto" (chosen from the model), a profile id, or a factory. */
  profileChoice: string | ProfileFactory;
  /** The profile in force: the session keeps it (and profileChoice, toolSelection) current, so a child can follow them. */
  profile: ProviderProfile;
  /** The tool selection the session was given (a preset or names), translated per profile. */
  toolSelection: ToolPreset | readonly string[];
  /** The caller's own tools: they win over a profile's tool of the same name (buildToolset says when they are on). */
  customTools: readonly Tool[];
  /** Agent Skills: their names and descriptions in the system prompt, their bodies behind the skill tool. */
  skills: readonly Skill[];
  /** Custom agents: subagent types of the spawning tools. */
  agents: readonly AgentDefinition[];
  /** Output limits from the session config and observer options, on top of the profile's in every Toolset. */
  limitOverrides: Record<string, ToolLimits>;
  /** The command timeout the session config set explicitly, if it did. */
  commandTimeoutMs?: number;
  observer: Observer;
  hooks: Hooks[];
  sources: PromptSources;
  overrides: PromptOverrides;
  history: Message[];
  /** Opens the session file's recorder; a failed write is reported through `onError` (a warning event). */
  recorder(onError: (message: string) => void): SessionRecorder;
  /** Builds the manager of this session's child agents, linked to the session's event stream and totals. */
  subagents(link: SubagentLink): SubagentManager;
  /** MCP servers whose tools this session offers (see buildToolset); `owned` ones close with the session. */
  mcp?: { manager: McpManager; owned: boolean };
  /** Checkpoints of the workspace before each user turn (absent: none are taken). */
  checkpoints?: Checkpointer;
  /** The person the tools may ask; absent: no one can be asked. */
  user?: UserChannel;
}

export class Session {
  private readonly parts: SessionParts;
  private readonly recorder: SessionRecorder;
  private readonly config: SessionConfig;
  /** The one emitter: the recorder hears each event first, then the subscribers. */
  private readonly stream: EventStream;
  private readonly hooks: HookRunner;
  private readonly queues: InputQueues;
  /** The conversation every input's loop works on (its `turns` count the session's model calls). */
  private readonly conversation: LoopContext;
  private readonly loop: LoopConfig;
  private readonly monitor: ContextMonitor;
  /** The current profile's subagent tools (none when this session may not spawn). */
  private subagentTools: Tool[] = [];
  /** MCP tools the tool search has loaded (their schemas go with every request from then on). */
  private readonly loadedMcpTools = new Set<string>();
  /** The current profile's skill tool, when there are skills. */
  private skillTools: Tool[] = [];
  /** The tools the next request offers; a new value whenever the profile, selection or MCP tools change. */
  private toolset!: Toolset;
  private readonly runningTools = new Set<AbortController>();
  /** Aborted when the user moves the running commands to the background; a fresh one follows for later calls. */
  private backgrounding = new AbortController();
  /** Aborted by abort() and close(): the session is over. */
  private readonly lifetime = new AbortController();
  /** Aborted by interrupt(): only the input running now stops. */
  private inputController: AbortController | null = null;
  private currentState: SessionState = "IDLE";
  private running: Promise<SubmitResult> | null = null;
  /** Set from interrupt() until the interrupted input has stopped. */
  private stopping: Promise<unknown> | null = null;
  private cachedPrompt: string | null = null;
  private started = false;
  private closing: Promise<void> | null = null;
  private mcpTools?: SessionMcpTools;
  /** MCP events from before session_start, told right after it. */
  private pendingMcp: McpServerEvent[] | null = [];
  private readonly children: SubagentManager;
  /** Usage of child agents' runs not yet counted in an input's totals. */
  private childUsage: Usage = zeroUsage();

  constructor(parts: SessionParts) {
    this.parts = parts;
    this.config = parts.config;
    // A write failing while the recorder opens (a child's copied history) comes before anyone can listen.
    this.recorder = parts.recorder((message) => this.stream?.emit("warning", { kind: "session_file", message }));
    // The recorder hears first: a message (a plan, a model change) is in the file before anyone else hears of it.
    this.stream = new EventStream(this.recorder.store.id, this.recorder.record);
    this.hooks = new HookRunner(parts.hooks, this.config, (report) => this.stream.emit("hook_error", { ...report }));
    this.queues = new InputQueues(() => this.interruptTools(new Error("Interrupted by a steering message")));
    this.conversation = {
      messages: parts.history,
      turns: 0,
      current: () => ({ profile: this.parts.profile, toolset: this.toolset, system: this.systemPrompt() }),
    };
    this.monitor = new ContextMonitor(
      {
        settings: this.config,
        client: parts.client,
        hooks: this.hooks,
        messages: parts.history,
        emit: this.stream.emit,
        current: this.conversation.current,
        signal: () => this.signal,
      },
      this.recorder,
    );
    this.loop = this.loopConfig(new LoopDetector(this.config));
    this.children = parts.subagents({
      parentId: () => this.id,
      forward: this.stream.forward,
      emit: this.stream.emit,
      addUsage: (usage) => (this.childUsage = addUsage(this.childUsage, usage)),
      // A background child's report: processed after the current input, or now when idle.
      notify: (text) => {
        if (this.currentState !== "CLOSED") this.followUp(text);
      },
      snapshot: () => this.snapshot(),
    });
    // A resumed conversation keeps the MCP tools it had called loaded (a search loaded them before).
    for (const message of parts.history) {
      if (message.role !== "assistant") continue;
      for (const part of Array.isArray(message.content) ? message.content : [])
        if (part.type === "tool_call" && part.name.startsWith("mcp__")) this.loadedMcpTools.add(part.name);
    }
    this.applyProfile(parts.profile);
    if (parts.mcp) {
      this.mcpTools = new SessionMcpTools(
        parts.mcp.manager,
        () => this.activateTools(),
        (event) => this.mcpChanged(event),
      );
      this.activateTools();
    }
  }

  /** The session's id; a fork gives the session the id of its new file. */
  get id(): string {
    return this.recorder.store.id;
  }

  get state(): SessionState {
    return this.currentState;
  }

  /** "provider/model-id" of the next model call. */
  get model(): string {
    return this.parts.profile.model;
  }

  /** Id of the profile the next request uses ("anthropic", "openai", "gemini", "default", …). */
  get profile(): string {
    return this.parts.profile.id;
  }

  /** "auto" when the profile follows the model, else the profile named. */
  get profileChoice(): string {
    return typeof this.parts.profileChoice === "string" ? this.parts.profileChoice : this.parts.profile.id;
  }

  /** The tool selection (a preset or names) each profile translates into its own tools. */
  get toolSelection(): ToolPreset | readonly string[] {
    return this.parts.toolSelection;
  }

  get reasoningEffort(): ReasoningEffort | null {
    return this.config.reasoningEffort;
  }

  /** Names of the active tools, in the order the model sees them. */
  get tools(): string[] {
    return [...this.toolset.names];
  }

  /** The conversation the next request carries (after compaction: the summary and what was kept). */
  get messages(): readonly Message[] {
    return this.parts.history;
  }

  /** The child agents this session has spawned, with their status and last answer. */
  get subagents(): ChildReport[] {
    return this.children.reports();
  }

  /** The task plan the model last wrote with the plan tool (kept across resume), or null. A copy: changing it changes nothing. */
  get plan(): Plan | null {
    const plan = this.recorder.plan;
    return plan && structuredClone(plan);
  }

  /** The MCP servers whose tools this session offers (status, `settled()`), when any are configured. */
  get mcp(): McpManager | undefined {
    return this.parts.mcp?.manager;
  }

  /** Path of the session file, when the session is stored. */
  get sessionFile(): string | undefined {
    return this.recorder.path;
  }

  // ---------------------------------------------------------------------------------- input

  /** Runs one input (and the follow-ups queued meanwhile) to the end. Rejects when the session is busy or closed. */
  async submit(text: string, options: SubmitOptions = {}): Promise<SubmitResult> {
    if (typeof text !== "string") throw new Error("submit() needs the input text as a string.");
    this.assertOpen("submit");
    // An input sent right behind interrupt() waits for the interrupted one to stop.
    if (this.stopping) await this.stopping;
    this.assertOpen("submit");
    if (this.running || this.currentState === "PROCESSING") {
      throw new Error(
        "Session is busy with another input; use steer() to redirect it or followUp() to queue a message for afterwards.",
      );
    }
    const images = (options.images ?? []).map((img) => ({
      type: "image" as const,
      mimeType: img.mimeType,
      data: img.data,
    }));
    return this.start({ text, images });
  }

  /**
   * Injects a message after the running tool call; the calls still pending are skipped. When idle,
   * it is sent with the next input. The running call is interrupted unless `interrupt` is false
   * (then it finishes first: a person typing while a command runs does not stop it).
   */
  steer(text: string, options: { interrupt?: boolean } = {}): void {
    this.assertOpen("steer");
    this.queues.steer(text, options.interrupt ?? true);
  }

  /**
   * Takes back the steering messages and follow-ups queued and not yet delivered (steering first,
   * each oldest first), as when the user edits them again; none is sent.
   */
  takeQueued(): string[] {
    return this.queues.takeAll();
  }

  /**
   * Moves the shell commands running in the foreground to the background (the shell's Ctrl-B):
   * each call answers at once with the output so far, and the command goes on as a background
   * task (`tasks()`). Returns whether any call was running.
   */
  moveToBackground(): boolean {
    const any = this.runningTools.size > 0;
    this.backgrounding.abort();
    this.backgrounding = new AbortController();
    return any;
  }

  /** The commands running in the background (started so by the model, or moved there by the user), and those finished but not yet read. */
  get tasks(): ProcessTable {
    return this.parts.registry.processes;
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

  /**
   * Stops the running input — the model's stream is closed, running commands are killed, partial
   * text is kept, the child agents it started stop too — and drops the queued steering and
   * follow-ups. The session stays open (IDLE)
   * with its history, so the next submit() continues the conversation. Resolves when the input
   * has stopped; does nothing when none runs.
   */
  async interrupt(): Promise<void> {
    this.assertOpen("interrupt");
    this.queues.clear();
    const running = this.running;
    if (!running) return;
    this.inputController?.abort(new Error("Interrupted"));
    // A spawn still in flight when the interrupt came is done once the input has stopped: a second pass catches its child.
    this.stopping ??= Promise.all([running.catch(() => {}), this.children.interruptInput()])
      .then(() => this.children.interruptInput())
      .finally(() => (this.stopping = null));
    await this.stopping;
  }

  /** Stops everything: the stream, running commands; the session ends CLOSED. Resolves when it has. */
  async abort(): Promise<void> {
    if (!this.lifetime.signal.aborted) this.lifetime.abort(new Error("Session aborted"));
    if (this.running) await this.running.catch(() => {});
    await this.shutdown("aborted");
  }

  /** Ends the session; a running input is aborted. */
  async close(): Promise<void> {
    if (this.running) return this.abort();
    await this.shutdown("closed");
  }

  /** close(), for `await using session = await createSession(…)`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  // ---------------------------------------------------------------------------------- settings

  /** Switches the model; the next model call uses it (and, when the profile follows the model, that family's profile). */
  setModel(ref: string): void {
    this.assertOpen("setModel");
    const info: ModelInfo = this.parts.client.model(ref);
    const before = this.parts.profile.id;
    this.applyProfile(factoryFor(this.parts.profileChoice, ref)({ model: ref, modelInfo: info }));
    this.parts.sources.environment.model = `${info.name} (${ref})`;
    this.parts.sources.environment.knowledgeCutoff = info.knowledgeCutoff;
    this.stream.emit("model_change", { model: ref, profile: this.parts.profile.id });
    if (this.parts.profile.id !== before)
      this.stream.emit("profile_change", { profile: this.parts.profile.id, previous: before, reason: "model" });
  }

  /** "auto" to follow the model, or a profile id (or factory): the next request carries its tools and prompt. */
  setProfile(profile: string | ProfileFactory): void {
    this.assertOpen("setProfile");
    const factory = factoryFor(profile, this.model);
    const before = this.parts.profile.id;
    this.parts.profileChoice = profile;
    this.applyProfile(factory({ model: this.model, modelInfo: this.parts.client.model(this.model) }));
    this.stream.emit("profile_change", { profile: this.parts.profile.id, previous: before, reason: "override" });
  }

  setReasoningEffort(effort: ReasoningEffort | null): void {
    this.assertOpen("setReasoningEffort");
    this.config.reasoningEffort = checkReasoningEffort(effort);
    this.recorder.thinkingLevelChange(effort);
  }

  /** Switches the active tools (a preset or tool names); the next request carries the new list. */
  setTools(presetOrNames: ToolPreset | readonly string[]): void {
    this.assertOpen("setTools");
    this.activateTools(presetOrNames);
    this.parts.toolSelection = presetOrNames;
  }

  /** The tool definitions the next request will carry, in order. */
  toolSpecs(): ToolSpec[] {
    return this.toolset.specs;
  }

  /** The full system prompt the next request will carry. */
  systemPrompt(): string {
    if (this.cachedPrompt !== null) return this.cachedPrompt;
    const { toolset } = this;
    const skills = toolset.skillToolName ? skillsBlock(this.parts.skills, toolset.skillToolName) : "";
    this.cachedPrompt = composeSystemPrompt(
      this.parts.profile,
      this.parts.sources,
      this.parts.overrides,
      toolset.specs,
      skills,
    );
    return this.cachedPrompt;
  }

  /**
   * Summarizes older messages now (beforeSessionOp("compact") may cancel). Resolves false when
   * nothing was compacted. `force`: only the last exchange is kept as it is, so even a short
   * conversation is summarised.
   */
  async compact(options: { force?: boolean } = {}): Promise<boolean> {
    this.assertOpen("compact");
    if (this.running) throw new Error("Session is busy; compact() runs between inputs.");
    return this.monitor.compact("manual", options.force ? 0 : undefined);
  }

  /**
   * Copies the conversation up to `entryId` (default: the last entry) into a new session file and
   * goes on there; the session takes the new file's id. beforeSessionOp("fork") may cancel.
   */
  async fork(entryId?: string): Promise<{ id: string; path?: string }> {
    const store = this.storeBetweenInputs("fork");
    const target = entryId ?? store.leafId;
    if (!target) throw new Error("Nothing to fork yet: the session is empty.");
    if (!store.has(target)) throw new Error(`No entry '${target}' in this session.`);
    await this.gate("fork", { entry_id: target, from: this.id });
    const forked = store.fork(target);
    this.stream.sessionId = forked.id;
    this.reloadHistory();
    return forked.path ? forked : { id: forked.id };
  }

  /**
   * Continues from an earlier entry of the same file (a branch); with a summary, the abandoned path
   * is described in a `branch_summary` entry. beforeSessionOp("branch") may cancel.
   */
  async branch(entryId: string, options: { summary?: string } = {}): Promise<void> {
    const store = this.storeBetweenInputs("branch");
    if (!store.has(entryId)) throw new Error(`No entry '${entryId}' in this session. Use /tree to see the entries.`);
    await this.gate("branch", { entry_id: entryId });
    store.branch(entryId, options.summary ? { summary: options.summary } : {});
    this.reloadHistory();
  }

  /** The checkpoints of this session's file (every branch), oldest first; empty when checkpoints are off. */
  checkpoints(): CheckpointInfo[] {
    return this.parts.checkpoints?.list(this.recorder.store) ?? [];
  }

  /** What rewinding the files to a checkpoint would change (and which of those files changed outside gong); touches nothing. */
  previewRewind(turnId: string | number): RewindPreview {
    const { target, changes, conflicts } = this.requireCheckpoints("previewRewind").preview(
      this.storeBetweenInputs("previewRewind"),
      turnId,
    );
    return { target, changes, conflicts };
  }

  /**
   * Puts the files and/or the conversation back to a checkpoint (a checkpoint id, the id of the
   * user message that followed it, or a turn number; see checkpoints()). Files changed outside
   * gong since it last saw them make it throw RewindConflictError unless `force`. The result's
   * `undoId` is a checkpoint of how things stood: rewinding to it undoes this rewind.
   */
  async rewind(turnId: string | number, options: RewindOptions = {}): Promise<RewindResult> {
    const checkpointer = this.requireCheckpoints("rewind");
    const result = checkpointer.rewind(this.storeBetweenInputs("rewind"), turnId, options);
    if (result.conversation) this.reloadHistory();
    this.stream.emit("rewind", {
      checkpoint_id: result.target.id,
      files: result.files,
      conversation: result.conversation,
      written: result.changes.filter((c) => c.action !== "remove").length,
      removed: result.changes.filter((c) => c.action === "remove").length,
      undo_id: result.undoId,
    });
    return result;
  }

  // ---------------------------------------------------------------------------------- events

  events(): AsyncIterableIterator<SessionEvent> {
    return this.stream.events();
  }

  subscribe(listener: EventListener): () => void {
    return this.stream.subscribe(listener);
  }

  // ---------------------------------------------------------------------------------- internals

  /** The running input's signal (interrupt() aborts it), else the session's (abort(), close()). */
  private get signal(): AbortSignal {
    return this.inputController?.signal ?? this.lifetime.signal;
  }

  /** What the loop is given: values, and the narrow callbacks into this session. Never handed to a script. */
  private loopConfig(loopDetector: LoopDetector): LoopConfig {
    const { parts } = this;
    return {
      settings: this.config,
      client: parts.client,
      hooks: this.hooks,
      loopDetector,
      isProfileTool: isProfileToolName,
      executeTools: toolRunner(() => this.toolContext()),
      takeSteering: () => this.queues.drainSteering(),
      takeFollowUp: () => this.queues.nextFollowUp(),
      maintainContext: this.monitor.maintain,
      childUsage: () => {
        const usage = this.childUsage;
        this.childUsage = zeroUsage();
        return usage;
      },
      beforeUserTurn: () => this.checkpointTurn(),
    };
  }

  private toolContext(): ToolExecutionContext {
    const { parts } = this;
    return {
      registry: parts.registry,
      toolset: this.toolset,
      hooks: this.hooks,
      observer: parts.observer,
      emit: this.stream.emit,
      parallel: parts.profile.supportsParallelToolCalls,
      signal: this.signal,
      queues: this.queues,
      running: this.runningTools,
      background: () => this.backgrounding.signal,
      commandTimeoutMs: parts.commandTimeoutMs ?? parts.profile.defaultCommandTimeoutMs,
      user: parts.user,
    };
  }

  /** What a child built now inherits: copies of the parts that change, so a later switch here leaves the child as it was built. */
  private snapshot(): ParentSnapshot {
    const { parts } = this;
    const selection = parts.toolSelection;
    return {
      model: this.model,
      profileChoice: parts.profileChoice,
      profile: parts.profile,
      toolSelection: typeof selection === "string" ? selection : [...selection],
      toolset: this.toolset,
      env: parts.env,
      client: parts.client,
      config: { ...this.config },
      hooks: [...parts.hooks],
      skills: parts.skills,
      agents: parts.agents,
      sources: structuredClone(parts.sources),
      messages: [...parts.history],
      mcp: parts.mcp?.manager,
    };
  }

  /** Makes `profile` current: its subagent and skill tools, and a Toolset for it and the selection. */
  private applyProfile(profile: ProviderProfile): void {
    // The subagent tools follow the profile (spawn_agent, Agent, invoke_agent…).
    const subagent = this.children.canSpawn
      ? profile.subagentTools(this.children, { parentModel: profile.model, agents: this.parts.agents })
      : [];
    // The skill tool follows the profile too (Skill, activate_skill, skill); a custom tool of that name wins.
    const custom = new Set(this.parts.customTools.map((t) => t.name));
    const offered = this.parts.skills.length > 0 ? profile.skillTool(this.parts.skills) : undefined;
    const skill = offered && !custom.has(offered.name) ? [offered] : [];
    const toolset = this.toolsetFor(this.parts.toolSelection, profile, subagent, skill);
    this.subagentTools = subagent;
    this.skillTools = skill;
    this.parts.profile = profile;
    this.useToolset(toolset);
  }

  /** Applies a tool selection to the current profile (throws on a bad selection, changing nothing); the next request carries the result. */
  private activateTools(selection: ToolPreset | readonly string[] = this.parts.toolSelection): void {
    this.useToolset(this.toolsetFor(selection, this.parts.profile, this.subagentTools, this.skillTools));
  }

  private useToolset(toolset: Toolset): void {
    this.toolset = toolset;
    this.cachedPrompt = null;
  }

  private toolsetFor(
    selection: ToolPreset | readonly string[],
    profile: ProviderProfile,
    subagent: readonly Tool[],
    skill: readonly Tool[],
  ): Toolset {
    return buildToolset({
      profile,
      selection,
      custom: this.parts.customTools,
      subagent,
      skill,
      mcp: this.mcpOffer(profile),
      limitOverrides: this.parts.limitOverrides,
      shell: this.parts.env.facts?.()?.shell,
    });
  }

  /**
   * The MCP tools the request carries: all of them, or — when their definitions would pass the
   * tool-search share of the context window — the search tool and the tools it has loaded.
   */
  private mcpOffer(profile: ProviderProfile): { tools: Tool[]; offered: string[] } {
    const tools = this.mcpTools?.tools() ?? [];
    const names = tools.map((t) => t.name);
    if (!this.config.mcpToolSearch || tools.length === 0) return { tools, offered: names };
    if (!shouldDefer(tools, this.parts.client.model(profile.model).contextWindow, this.config.mcpToolSearchPercent))
      return { tools, offered: names };
    const search = toolSearchTool(
      profile.toolSearchName,
      tools.filter((t) => !this.loadedMcpTools.has(t.name)),
      (found) => {
        for (const name of found) this.loadedMcpTools.add(name);
        this.activateTools();
      },
    );
    return { tools: [...tools, search], offered: [search.name, ...names.filter((n) => this.loadedMcpTools.has(n))] };
  }

  private storeBetweenInputs(method: string) {
    this.assertOpen(method);
    if (this.running)
      throw new Error(`Session is busy; ${method}() runs between inputs (interrupt() stops the running one).`);
    return this.recorder.store;
  }

  private requireCheckpoints(method: string): Checkpointer {
    this.assertOpen(method);
    if (!this.parts.checkpoints)
      throw new Error(
        `Checkpoints are off for this session, so ${method}() has nothing to work with (they are taken for sessions stored under GONG_HOME, or with the checkpoints option).`,
      );
    return this.parts.checkpoints;
  }

  /** Before a user message: checkpoint the workspace; a failure is a warning, never the end of the turn. */
  private checkpointTurn(): void {
    const checkpoints = this.parts.checkpoints;
    if (!checkpoints) return;
    const started = performance.now();
    try {
      const { entryId, record, snapshot } = checkpoints.take("turn", this.recorder.checkpoint);
      this.stream.emit("checkpoint_created", {
        checkpoint_id: entryId ?? null,
        reason: record.reason,
        files: record.files,
        bytes: record.bytes,
        hashed: snapshot.hashed,
        skipped: record.skipped,
        ignored: record.ignored,
        duration_ms: Math.round(performance.now() - started),
      });
    } catch (e) {
      this.stream.emit("warning", {
        kind: "checkpoint",
        message: `The workspace could not be checkpointed (${(e as Error).message}); this turn cannot be rewound.`,
      });
    }
  }

  /** After an input: what gong leaves in the workspace (later changes by others are "outside gong"). */
  private markSeen(): void {
    try {
      this.parts.checkpoints?.markSeen(this.id);
    } catch (e) {
      this.stream.emit("warning", {
        kind: "checkpoint",
        message: `The workspace could not be checkpointed after the input (${(e as Error).message}).`,
      });
    }
  }

  private async gate(op: "fork" | "branch", meta: Record<string, unknown>): Promise<void> {
    if (!(await this.hooks.beforeSessionOp(op, meta)))
      throw new Error(`The ${op} was cancelled by a beforeSessionOp hook.`);
  }

  /** The history is the store's active branch after the leaf moved. */
  private reloadHistory(): void {
    const { history } = this.parts;
    history.splice(0, history.length, ...this.recorder.store.buildContext().messages);
    // Another branch may have planned differently.
    this.recorder.reload();
  }

  private async start(input: PendingInput): Promise<SubmitResult> {
    if (!this.started) {
      this.started = true;
      this.stream.emit("session_start", {
        model: this.model,
        cwd: this.parts.env.workingDirectory(),
        profile: this.parts.profile.id,
      });
      for (const event of this.pendingMcp ?? []) this.stream.emit("mcp_server", { ...event });
      this.pendingMcp = null;
    }
    this.currentState = "PROCESSING";
    this.children.beginInput();
    const controller = new AbortController();
    const onEnd = () => controller.abort(this.lifetime.signal.reason);
    this.lifetime.signal.addEventListener("abort", onEnd, { once: true });
    this.inputController = controller;
    const run = (async () => {
      await this.monitor.idle();
      return runLoop(input, this.conversation, this.loop, this.signal, this.stream.emit);
    })();
    this.running = run;
    let result: SubmitResult;
    try {
      result = await run;
    } catch (e) {
      // A bug outside the guarded steps (e.g. a custom tool with an invalid schema): report it, stay usable.
      this.stream.emit("error", { kind: "internal", message: (e as Error).message, stack: (e as Error).stack });
      this.currentState = "IDLE";
      throw e;
    } finally {
      this.running = null;
      this.inputController = null;
      this.lifetime.signal.removeEventListener("abort", onEnd);
      this.markSeen();
    }
    if (this.lifetime.signal.aborted) await this.shutdown("aborted");
    else if (result.error?.kind === "auth") await this.shutdown("error");
    else
      this.currentState =
        result.stopReason === "completed" && result.text.trimEnd().endsWith("?") ? "AWAITING_INPUT" : "IDLE";
    return result;
  }

  /** A server connected (its tools are in the next request) or failed. */
  private mcpChanged(event: McpServerEvent): void {
    this.cachedPrompt = null;
    if (this.pendingMcp) this.pendingMcp.push(event);
    else if (this.currentState !== "CLOSED") this.stream.emit("mcp_server", { ...event });
  }

  /** Aborts the tool calls running right now (a long command is killed). */
  private interruptTools(reason: Error): void {
    for (const controller of this.runningTools) controller.abort(reason);
  }

  private assertOpen(method: string): void {
    if (this.currentState === "CLOSED")
      throw new Error(`Session is closed; ${method}() is not possible. Create or resume a session.`);
  }

  private shutdown(reason: "aborted" | "closed" | "error"): Promise<void> {
    this.closing ??= (async () => {
      this.currentState = "CLOSED";
      if (!this.lifetime.signal.aborted) this.lifetime.abort(new Error("Session closed"));
      // Children share this session's environment: they stop before it is cleaned up.
      await this.children.closeAll();
      this.mcpTools?.close();
      if (this.parts.mcp?.owned) await this.parts.mcp.manager.close().catch(() => {});
      await this.parts.registry.close().catch(() => {});
      if (this.parts.ownsEnv) await this.parts.env.cleanup().catch(() => {});
      this.recorder.close();
      // session_start and session_end bracket a session that ran; one closed unused announced nothing.
      if (this.started) this.stream.emit("session_end", { state: "CLOSED", reason, turns: this.conversation.turns });
      this.stream.close();
    })();
    return this.closing;
  }
}
