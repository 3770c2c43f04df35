/**
 * The Session (004 §2.1): holds the conversation, runs one input at a time through the loop,
 * takes steering and follow-ups while it runs, and owns the lifecycle
 * IDLE → PROCESSING → IDLE | AWAITING_INPUT, and CLOSED on close(), abort() or an auth error.
 */
import type { ExecutionEnvironment } from "../env/types.ts";
import type { Observer } from "../observe.ts";
import type { ImagePart, LlmClient, Message, ModelInfo, ReasoningEffort } from "../llm/types.ts";
import { AUTO_PROFILE, getProfileFactory, isProfileToolName, profileForModel } from "../profiles/index.ts";
import type { ProfileFactory, ProviderProfile } from "../profiles/types.ts";
import type { ToolLimits } from "../observe.ts";
import { kindOf } from "../../tools/metadata.ts";
import type { Plan } from "../../tools/plan.ts";
import { TOOL_PRESETS, type ToolPreset, type ToolRegistry } from "../../tools/registry.ts";
import { checkReasoningEffort, type SessionConfig } from "./config.ts";
import { EventBus, type EventListener, type SessionEvent } from "./events.ts";
import { HookRunner, type Hooks } from "./hooks.ts";
import { LoopDetector } from "./loop-detection.ts";
import { runInput, type LoopHost, type PendingInput, type SubmitResult } from "./loop.ts";
import { InputQueues } from "./queues.ts";
import type { SessionRecorder } from "./recorder.ts";
import { ContextMonitor } from "./context-monitor.ts";
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
  /** "auto" (chosen from the model), a profile id, or a factory. */
  profileChoice: string | ProfileFactory;
  profile: ProviderProfile;
  /** The tool selection the session was given (a preset or names), translated per profile. */
  toolSelection: ToolPreset | readonly string[];
  /** Names of the caller's own tools: always active, and never replaced by a profile's tool of the same name. */
  customToolNames: readonly string[];
  /** The observer's per-tool limits, rewritten when the profile changes… */
  toolLimits: Record<string, ToolLimits>;
  /** …with these (from the session config and observer options) always on top. */
  limitOverrides: Record<string, ToolLimits>;
  /** The command timeout the session config set explicitly, if it did. */
  commandTimeoutMs?: number;
  observer: Observer;
  hooks: Hooks[];
  sources: PromptSources;
  overrides: PromptOverrides;
  history: Message[];
  recorder: SessionRecorder;
  /** The plan stored in the session file (on resume), if any. */
  plan?: Plan;
}

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
  private currentPlan: Plan | null;

  constructor(parts: SessionParts) {
    this.parts = parts;
    this.id = parts.id;
    this.config = parts.config;
    this.client = parts.client;
    this.env = parts.env;
    this.registry = parts.registry;
    this.currentProfile = parts.profile;
    this.history = parts.history;
    this.currentPlan = parts.plan ?? null;
    this.bus = new EventBus(parts.id);
    this.hooks = new HookRunner(parts.hooks, () => this.config.hookTimeoutMs, (report) => this.bus.emit("hook_error", { ...report }));
    this.queues = new InputQueues(() => this.interruptTools());
    this.loopDetector = new LoopDetector(() => this.config.loopDetectionWindow);
    this.monitor = new ContextMonitor(this, parts.recorder);
    this.applyProfile(parts.profile);
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

  /** The task plan the model last wrote with the plan tool (kept across resume), or null. A copy: changing it changes nothing. */
  get plan(): Plan | null {
    return this.currentPlan && structuredClone(this.currentPlan);
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

  /** Switches the model; the next model call uses it (and, when the profile follows the model, that family's profile). */
  setModel(ref: string): void {
    this.assertOpen("setModel");
    const info: ModelInfo = this.client.model(ref);
    const before = this.currentProfile.id;
    this.applyProfile(factoryFor(this.parts.profileChoice, ref)({ model: ref, modelInfo: info, registry: this.registry }));
    this.parts.sources.environment.model = `${info.name} (${ref})`;
    this.parts.sources.environment.knowledgeCutoff = info.knowledgeCutoff;
    this.parts.recorder.modelChange(ref);
    this.bus.emit("model_change", { model: ref, profile: this.currentProfile.id });
    if (this.currentProfile.id !== before) this.bus.emit("profile_change", { profile: this.currentProfile.id, previous: before, reason: "model" });
  }

  /** "auto" to follow the model, or a profile id (or factory): the next request carries its tools and prompt. */
  setProfile(profile: string | ProfileFactory): void {
    this.assertOpen("setProfile");
    const factory = factoryFor(profile, this.model);
    const before = this.currentProfile.id;
    this.parts.profileChoice = profile;
    this.applyProfile(factory({ model: this.model, modelInfo: this.client.model(this.model), registry: this.registry }));
    this.bus.emit("profile_change", { profile: this.currentProfile.id, previous: before, reason: "override", choice: typeof profile === "string" ? profile : "custom" });
  }

  /** The tool selection (a preset or names) each profile translates into its own tools. */
  get toolSelection(): ToolPreset | readonly string[] {
    return this.parts.toolSelection;
  }

  /** "auto" when the profile follows the model, else the profile named. */
  get profileChoice(): string {
    return typeof this.parts.profileChoice === "string" ? this.parts.profileChoice : this.currentProfile.id;
  }

  setReasoningEffort(effort: ReasoningEffort | null): void {
    this.assertOpen("setReasoningEffort");
    this.config.reasoningEffort = checkReasoningEffort(effort);
    this.parts.recorder.thinkingLevelChange(effort);
  }

  /** Switches the active tools (a preset or tool names); the next request carries the new list. */
  setTools(presetOrNames: ToolPreset | readonly string[]): void {
    this.assertOpen("setTools");
    this.registry.setActive(activeToolNames(this.currentProfile, presetOrNames, this.registry, []));
    this.parts.toolSelection = presetOrNames;
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
    return {
      registry: this.registry,
      hooks: this.hooks,
      observer: this.parts.observer,
      bus: this.bus,
      parallel: this.currentProfile.supportsParallelToolCalls,
      signal: this.signal,
      steeringPending: () => this.queues.hasSteering,
      running: this.runningTools,
      hasSubagentTool: this.registry.names().some((n) => kindOf(this.registry.get(n)) === "agent"),
      commandTimeoutMs: this.parts.commandTimeoutMs ?? this.currentProfile.defaultCommandTimeoutMs,
      readToolName: this.currentProfile.capabilityTools.read[0],
      grepToolName: this.currentProfile.capabilityTools.grep[0],
    };
  }

  isProfileTool(name: string): boolean {
    return isProfileToolName(name);
  }

  append(message: Message): void {
    this.history.push(message);
    this.bus.emit("message_start", { message });
    this.bus.emit("message_end", { message });
    this.parts.recorder.message(message);
  }

  updatePlan(plan: Plan, source: { call_id: string; tool_name: string }): void {
    this.currentPlan = plan;
    this.parts.recorder.plan(plan);
    this.bus.emit("plan_update", { ...structuredClone(plan), ...source });
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

  /** Makes `profile` current: its tools registered and active (custom tools kept), its limits in force. */
  private applyProfile(profile: ProviderProfile): void {
    const custom = new Set(this.parts.customToolNames);
    // Custom tools active now stay active under the new profile; one dropped by setTools stays dropped.
    const keep = this.registry.names().filter((n) => custom.has(n));
    for (const tool of profile.ownTools) if (!custom.has(tool.name)) this.registry.register(tool);
    this.registry.setActive(activeToolNames(profile, this.parts.toolSelection, this.registry, keep));
    const limits = this.parts.toolLimits;
    for (const key of Object.keys(limits)) delete limits[key];
    for (const [name, l] of Object.entries(profile.toolLimits)) limits[name] = { ...l };
    for (const [name, l] of Object.entries(this.parts.limitOverrides)) limits[name] = { ...limits[name], ...l };
    this.currentProfile = profile;
    this.cachedPrompt = null;
  }

  private async start(input: PendingInput): Promise<SubmitResult> {
    if (!this.started) {
      this.started = true;
      this.bus.emit("session_start", { model: this.model, cwd: this.env.workingDirectory(), profile: this.currentProfile.id });
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
      await this.registry.close().catch(() => {});
      if (this.parts.ownsEnv) await this.env.cleanup().catch(() => {});
      this.parts.recorder.close();
      // session_start and session_end bracket a session that ran; one closed unused announced nothing.
      if (this.started) this.bus.emit("session_end", { state: "CLOSED", reason, turns: this.turnCount });
      this.bus.close();
    })();
    return this.closing;
  }
}

/** The profile factory for a choice: "auto" picks by the model's family. */
export function factoryFor(choice: string | ProfileFactory, model: string): ProfileFactory {
  if (typeof choice === "function") return choice;
  return getProfileFactory(choice === AUTO_PROFILE ? profileForModel(model) : choice);
}

/**
 * The tool names a profile activates for a selection: a preset's capabilities become the profile's
 * own tools (the full preset adds its extras), core tool names in a list are translated the same
 * way, other names stay; `keep` (the caller's custom tools) are added. Names not registered are left out, except
 * ones listed explicitly (the registry then reports them).
 */
export function activeToolNames(profile: ProviderProfile, selection: ToolPreset | readonly string[], registry: ToolRegistry, keep: readonly string[]): string[] {
  const presets: Record<string, readonly string[]> = TOOL_PRESETS;
  const caps = profile.capabilityTools as Record<string, readonly string[]>;
  const names: string[] = [];
  const expand = (preset: string) => {
    for (const c of presets[preset]) names.push(...caps[c].filter((n) => registry.get(n)));
    if (preset === "default") names.push(...profile.extraTools.filter((n) => registry.get(n)));
  };
  if (typeof selection === "string") {
    if (!Object.hasOwn(presets, selection)) throw new Error(`Unknown tool preset '${selection}'. Presets: ${Object.keys(presets).join(", ")}.`);
    expand(selection);
  } else {
    for (const n of selection) {
      if (Object.hasOwn(presets, n) && !registry.get(n)) expand(n);
      else names.push(...(Object.hasOwn(caps, n) ? caps[n].filter((m) => registry.get(m)) : [n]));
    }
  }
  names.push(...keep);
  return [...new Set(names)];
}
