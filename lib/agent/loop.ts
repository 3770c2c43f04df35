/**
 * The two-layer agent loop (003 §2.1, 004 §2.5). The inner loop calls the model, runs its tool
 * calls and injects steering messages until the model answers with text only (and nothing is
 * queued), a limit is hit, an error ends the input or the session is aborted. The outer loop then
 * takes the next follow-up, if any, as a new input with the same context.
 */
import type { ImagePart, LlmClient, Message, Request, Usage, UserMessage } from "../llm/types.ts";
import { addUsage, zeroUsage } from "../llm/usage.ts";
import type { ProviderProfile } from "../profiles/types.ts";
import { describeCall } from "../../tools/metadata.ts";
import { planOf, type Plan } from "../../tools/plan.ts";
import type { Toolset } from "./toolset.ts";
import { streamAssistant, textOf, toolCallsOf, type StreamError } from "./assistant-stream.ts";
import type { SessionConfig } from "./config.ts";
import type { InjectedOrigin } from "../store/format.ts";
import type { EventBus } from "./events.ts";
import type { HookRunner } from "./hooks.ts";
import { loopWarning, type LoopDetector } from "./loop-detection.ts";
import type { InputQueues } from "./queues.ts";
import { presentForeignCalls } from "./foreign-calls.ts";
import { executeToolCalls, type ToolExecutionContext } from "./tool-execution.ts";
import { CONTINUE_PROMPT, isUnfinished, malformedCallPrompt, unfinishedSentence, type StopReason } from "./stop-reasons.ts";

export type { StopReason } from "./stop-reasons.ts";

export interface SubmitResult {
  /** The final answer: text of the last assistant message. */
  text: string;
  /** Token and cost totals of every model call made for this input (follow-ups included). */
  usage: Usage;
  /** Model calls made for this input. */
  turns: number;
  stopReason: StopReason;
  /** Set when stopReason is "error". */
  error?: StreamError;
  /** One sentence saying why the answer is not complete (an output limit, a refusal, a filter…); set for those stop reasons. */
  stopMessage?: string;
}

export interface PendingInput {
  text: string;
  images: ImagePart[];
}

/** What the loop needs from the session. */
export interface LoopHost {
  readonly config: SessionConfig;
  readonly profile: ProviderProfile;
  readonly client: LlmClient;
  readonly bus: EventBus;
  readonly hooks: HookRunner;
  readonly queues: InputQueues;
  readonly history: Message[];
  readonly loopDetector: LoopDetector;
  /** The tools the next request offers. */
  readonly toolset: Toolset;
  /** Aborted by session.abort(). */
  readonly signal: AbortSignal;
  /** Model calls across the whole session (for max_turns). */
  turnCount: number;
  systemPrompt(): string;
  toolContext(): ToolExecutionContext;
  /** True for a tool name some profile defines (used to present calls made under another profile). */
  isProfileTool?(name: string): boolean;
  /** Adds a finished message to the history (and the session file), with message events; an injected one is stored as such. */
  append(message: Message, injected?: InjectedOrigin): void;
  /** Records a message the stream already placed in the history. */
  persist(message: Message): void;
  /** The plan tool set a new plan: keep it, write it to the session file, emit plan_update. */
  updatePlan(plan: Plan, source: { call_id: string; tool_name: string }): void;
  /** Turn boundary inside a tool loop: context warning, compaction when due. */
  afterTurn(): Promise<void>;
  /** Context overflow: compact so the request can be retried once; false when that is impossible. */
  compactForOverflow(): Promise<boolean>;
  /** Usage of child agents that finished since the last call. */
  takeChildUsage(): Usage;
  /** Right before a user message joins the history: checkpoint the workspace. */
  beforeUserTurn?(): void;
}

/** Processes one input and the follow-ups queued meanwhile. */
export async function runInput(host: LoopHost, first: PendingInput): Promise<SubmitResult> {
  const started = performance.now();
  const total: SubmitResult = { text: "", usage: zeroUsage(), turns: 0, stopReason: "completed" };
  host.bus.emit("agent_start", { prompt: first.text });
  let input: PendingInput | undefined = first;
  while (input) {
    await runCycle(host, input, total);
    if (total.stopReason === "aborted" || total.stopReason === "error") break;
    let next = host.queues.nextFollowUp();
    // A Stop hook may keep the agent going: its reason is the next input.
    if (next === undefined && total.stopReason === "completed" && host.hooks.has("onStop")) next = await host.hooks.onStop(total.text);
    input = next === undefined ? undefined : { text: next, images: [] };
  }
  total.usage = addUsage(total.usage, host.takeChildUsage());
  host.bus.emit("agent_end", {
    duration_ms: Math.round(performance.now() - started),
    steps: total.turns,
    stop_reason: total.stopReason,
    usage: total.usage,
    ...(total.stopMessage ? { stop_message: total.stopMessage } : {}),
  });
  return total;
}

async function runCycle(host: LoopHost, input: PendingInput, total: SubmitResult): Promise<void> {
  const { bus, config, hooks } = host;
  const transformed = await hooks.onInput(input.text, input.images);
  if (transformed.handled) {
    total.stopReason = "handled";
    return;
  }
  const baseSystem = host.systemPrompt();
  const prepared = await hooks.onBeforeAgent(transformed.text, baseSystem);
  // Only a hook's change pins the prompt for this input; otherwise tool or model switches show up at once.
  const systemOverride = prepared.system !== baseSystem ? prepared.system : undefined;
  const userMessage: UserMessage = {
    role: "user",
    content: transformed.images.length ? [{ type: "text", text: prepared.prompt }, ...transformed.images] : prepared.prompt,
    timestamp: Date.now(),
  };
  host.beforeUserTurn?.();
  host.append(userMessage);
  bus.emit("user_input", { content: prepared.prompt, images: transformed.images.length });
  for (const message of prepared.messages) host.append(message);

  let rounds = 0;
  let overflowRetried = false;
  /** Text of answers cut at the output limit and continued: the parts of one answer. */
  let continued: string[] = [];
  let continuations = 0;
  let resumes = 0;
  let malformedTold = false;
  for (;;) {
    if (rounds >= config.maxToolRoundsPerInput) {
      bus.emit("turn_limit", { kind: "tool_rounds", limit: config.maxToolRoundsPerInput, count: rounds });
      total.stopReason = "tool_round_limit";
      return;
    }
    if (config.maxTurns > 0 && host.turnCount >= config.maxTurns) {
      bus.emit("turn_limit", { kind: "turns", limit: config.maxTurns, count: host.turnCount });
      total.stopReason = "turn_limit";
      return;
    }
    // The cost cap is checked before every call: the call that would pass it is never made.
    if (config.maxCostUsd > 0 && total.usage.cost >= config.maxCostUsd) {
      bus.emit("turn_limit", { kind: "cost", limit: config.maxCostUsd, count: total.usage.cost });
      total.stopReason = "max_cost";
      return;
    }
    if (host.signal.aborted) {
      total.stopReason = "aborted";
      return;
    }

    // Steering queued before the first call, during tools or during a compaction goes into this request.
    drainSteering(host);
    const turnIndex = host.turnCount++;
    total.turns++;
    bus.emit("turn_start", { turn_index: turnIndex });
    const request = await buildRequest(host, systemOverride ?? host.systemPrompt());
    const outcome = await streamAssistant(host.client, request, host.signal, bus, host.history, (name, args) => describeCall(host.toolset.known(name), args));
    if (outcome.message) host.persist(outcome.message);
    if (outcome.response) total.usage = addUsage(total.usage, outcome.response.usage);

    if (outcome.error) {
      bus.emit("turn_end", { turn_index: turnIndex, tool_calls: [], error: outcome.error });
      if (outcome.error.kind === "aborted" || host.signal.aborted) {
        total.stopReason = "aborted";
        total.text = outcome.message ? textOf(outcome.message) : "";
        return;
      }
      // With autoCompact off an overflow only warns (004 §9.11.4): the host decides when to compact.
      if (outcome.error.kind === "context_overflow" && host.config.autoCompact && !overflowRetried && !outcome.message) {
        overflowRetried = true;
        if (await host.compactForOverflow()) continue;
      }
      bus.emit("error", { ...outcome.error, turn_index: turnIndex, ...(outcome.stack ? { stack: outcome.stack } : {}) });
      if (outcome.error.kind === "context_overflow") {
        bus.emit("warning", { kind: "context_overflow", message: "The conversation no longer fits the model's context window; compact it or start a new session." });
      }
      total.stopReason = "error";
      total.error = outcome.error;
      return;
    }

    const message = outcome.message!;
    const calls = toolCallsOf(message);
    total.text = [...continued, textOf(message)].join("");
    if (calls.length === 0) {
      bus.emit("turn_end", { turn_index: turnIndex, tool_calls: [] });
      await host.afterTurn();
      const finish = message.finishReason;
      if (finish === "max_tokens" && continuations < config.maxOutputContinuations) {
        // The answer was cut: ask for the rest and join the parts.
        continuations++;
        continued.push(textOf(message));
        host.append({ role: "user", content: CONTINUE_PROMPT, timestamp: Date.now() });
        continue;
      }
      if (finish === "pause_turn" && resumes < config.maxOutputContinuations) {
        // A paused server-side turn goes on when its history is sent back as it is.
        resumes++;
        continued.push(textOf(message));
        continue;
      }
      if (finish === "malformed_call" && !malformedTold) {
        malformedTold = true;
        host.append({ role: "user", content: malformedCallPrompt(message), timestamp: Date.now() });
        continue;
      }
      if (isUnfinished(finish)) {
        total.stopReason = finish;
        total.stopMessage = unfinishedSentence(finish, message);
        return;
      }
      if (host.queues.hasSteering) continue;
      total.stopReason = "completed";
      return;
    }
    continued = [];

    rounds++;
    const executed = await executeToolCalls(host.toolContext(), calls);
    for (const result of executed) {
      host.append(result.message);
      host.loopDetector.record(result.call.name, result.call.arguments);
      // A plan tool (of whatever name) says what it is through its kind and returns the plan in data.
      const plan = result.message.kind === "plan" && result.response.status !== "error" ? planOf(result.response.data.plan) : undefined;
      if (plan) host.updatePlan(plan, { call_id: result.call.id, tool_name: result.call.name });
    }
    bus.emit("turn_end", {
      turn_index: turnIndex,
      tool_calls: calls.map((c) => ({ call_id: c.id, tool_name: c.name, arguments: c.arguments })),
      tool_results: executed.map((r) => ({ call_id: r.call.id, tool_name: r.call.name, is_error: r.message.isError })),
    });
    if (host.signal.aborted) {
      total.stopReason = "aborted";
      return;
    }
    if (config.enableLoopDetection && host.loopDetector.check()) {
      const warning = loopWarning(config.loopDetectionWindow);
      host.append({ role: "user", content: warning, timestamp: Date.now() }, "loop_detection");
      bus.emit("loop_detection", { message: warning, window: config.loopDetectionWindow });
    }
    await host.afterTurn();
  }
}

async function buildRequest(host: LoopHost, system: string): Promise<Request> {
  const history = host.hooks.has("onContext") ? await host.hooks.onContext([...host.history]) : [...host.history];
  const tools = host.toolset.specs;
  const messages = host.isProfileTool ? presentForeignCalls(history, new Set(tools.map((t) => t.name)), host.isProfileTool) : history;
  const request: Request = { model: host.profile.model, system, messages };
  if (tools.length > 0) {
    request.tools = tools;
    request.toolChoice = "auto";
  }
  if (host.config.reasoningEffort) request.reasoningEffort = host.config.reasoningEffort;
  if (host.config.webSearch) request.webSearch = true;
  const providerOptions = host.profile.providerOptions({ reasoningEffort: host.config.reasoningEffort });
  if (providerOptions) request.providerOptions = providerOptions;
  return request;
}

function drainSteering(host: LoopHost): void {
  for (const text of host.queues.drainSteering()) {
    host.append({ role: "user", content: text, timestamp: Date.now() }, "steering");
    host.bus.emit("steering_injected", { content: text });
  }
}
