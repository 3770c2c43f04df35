/**
 * The two-layer agent loop (docs/conformance.md: 003 §2.1, 004 §2.5) as one function, `runLoop`.
 * The inner loop calls the model, runs its tool calls and injects steering messages until the model
 * answers with text only (and nothing is queued), a limit is hit, an error ends the input or the
 * session is aborted. The outer loop then takes the next follow-up, if any, as a new input with the
 * same context. The loop holds no session: it gets the conversation (`LoopContext`), values and a
 * few narrow callbacks (`LoopConfig`), an abort signal and `emit`.
 */
import {
  textOf,
  type ImagePart,
  type LlmClient,
  type Message,
  type Request,
  type ToolCallPart,
  type Usage,
  type UserMessage,
} from "../llm/types.ts";
import { addUsage, zeroUsage } from "../llm/usage.ts";
import type { ProviderProfile } from "../profiles/types.ts";
import { streamAssistant, toolCallsOf } from "./assistant-stream.ts";
import type { Toolset } from "./toolset.ts";
import type { SessionConfig } from "./config.ts";
import type { InjectedOrigin } from "../store/format.ts";
import type { HookRunner } from "./hooks.ts";
import { loopWarning, type LoopDetector } from "./loop-detection.ts";
import { presentForeignCalls } from "./foreign-calls.ts";
import type { ExecutedCall } from "./tool-execution.ts";
import {
  CONTINUE_PROMPT,
  isUnfinished,
  malformedCallPrompt,
  unfinishedSentence,
  type Emit,
  type SubmitResult,
} from "./vocabulary.ts";

export interface PendingInput {
  text: string;
  images: ImagePart[];
}

/** The conversation a run works on. */
export interface LoopContext {
  /** The history: the loop appends to it (each message with its events); a compaction may replace its contents. */
  readonly messages: Message[];
  /** Model calls so far in the session (max_turns counts across inputs); the loop adds its own. */
  turns: number;
  /** The profile, tools and system prompt in force, read at every model call: a tool, model or profile switch shows at once. */
  current(): { profile: ProviderProfile; toolset: Toolset; system: string };
}

/** What a run is given: values, and the few callbacks that reach back into the session. */
export interface LoopConfig {
  readonly settings: SessionConfig;
  readonly client: LlmClient;
  readonly hooks: HookRunner;
  readonly loopDetector: LoopDetector;
  /** True for a tool name some profile defines (calls made under another profile are presented as text). */
  readonly isProfileTool?: (name: string) => boolean;
  /** Runs the tool calls of one assistant message; results in the calls' order. */
  executeTools(calls: ToolCallPart[]): Promise<ExecutedCall[]>;
  /** The steering messages queued since the last look, oldest first (taken off the queue). */
  takeSteering(): string[];
  /** The next queued follow-up, taken off the queue. */
  takeFollowUp(): string | undefined;
  /**
   * At a turn's end: the context warning and compaction when due. On a context overflow: compact so
   * the request can be retried once; false when that was impossible.
   */
  maintainContext(trigger: "turn_end" | "overflow"): Promise<boolean>;
  /** Usage of child agents that finished since the last call. */
  childUsage(): Usage;
  /** Right before a user message joins the history: checkpoint the workspace. */
  beforeUserTurn?(): void;
}

/**
 * Processes one input and the follow-ups queued meanwhile. Every message that joins
 * `context.messages` is told by message_start / message_end (the session file is written from
 * those events); nothing else is reported but through `emit`.
 */
export async function runLoop(
  input: PendingInput,
  context: LoopContext,
  config: LoopConfig,
  signal: AbortSignal,
  emit: Emit,
): Promise<SubmitResult> {
  const run: Run = { context, config, signal, emit, carriedSteering: [] };
  const started = performance.now();
  const total: SubmitResult = { text: "", usage: zeroUsage(), turns: 0, stopReason: "completed" };
  emit("agent_start", { prompt: input.text });
  let next: PendingInput | undefined = input;
  while (next) {
    await runCycle(run, next, total);
    if (total.stopReason === "aborted" || total.stopReason === "error") break;
    let text = config.takeFollowUp();
    // A Stop hook may keep the agent going: its reason is the next input.
    if (text === undefined && total.stopReason === "completed" && config.hooks.has("onStop"))
      text = await config.hooks.onStop(total.text);
    next = text === undefined ? undefined : { text, images: [] };
  }
  total.usage = addUsage(total.usage, config.childUsage());
  emit("agent_end", {
    duration_ms: Math.round(performance.now() - started),
    steps: total.turns,
    stop_reason: total.stopReason,
    usage: total.usage,
    ...(total.stopMessage ? { stop_message: total.stopMessage } : {}),
  });
  return total;
}

/** One run's parts, passed between its steps. */
interface Run {
  readonly context: LoopContext;
  readonly config: LoopConfig;
  readonly signal: AbortSignal;
  readonly emit: Emit;
  /** Steering taken while deciding whether an answer ends the input: it goes into the next request. */
  carriedSteering: string[];
}

/** Adds a finished message to the history, told by its events; an injected one says where it came from. */
function append(run: Run, message: Message, injected?: InjectedOrigin): void {
  run.context.messages.push(message);
  run.emit("message_start", { message });
  run.emit("message_end", injected ? { message, injected } : { message });
}

async function runCycle(run: Run, input: PendingInput, total: SubmitResult): Promise<void> {
  const { context, config, signal, emit } = run;
  const { hooks, settings } = config;
  const transformed = await hooks.onInput(input.text, input.images);
  if (transformed.handled) {
    total.stopReason = "handled";
    return;
  }
  const baseSystem = context.current().system;
  const prepared = await hooks.onBeforeAgent(transformed.text, baseSystem);
  // Only a hook's change pins the prompt for this input; otherwise tool or model switches show up at once.
  const systemOverride = prepared.system !== baseSystem ? prepared.system : undefined;
  const userMessage: UserMessage = {
    role: "user",
    content: transformed.images.length
      ? [{ type: "text", text: prepared.prompt }, ...transformed.images]
      : prepared.prompt,
    timestamp: Date.now(),
  };
  config.beforeUserTurn?.();
  append(run, userMessage);
  emit("user_input", { content: prepared.prompt, images: transformed.images.length });
  for (const message of prepared.messages) append(run, message);

  let rounds = 0;
  let overflowRetried = false;
  /** Text of answers cut at the output limit and continued: the parts of one answer. */
  let continued: string[] = [];
  let continuations = 0;
  let resumes = 0;
  let malformedTold = false;
  for (;;) {
    if (rounds >= settings.maxToolRoundsPerInput) {
      emit("turn_limit", { kind: "tool_rounds", limit: settings.maxToolRoundsPerInput, count: rounds });
      total.stopReason = "tool_round_limit";
      return;
    }
    if (settings.maxTurns > 0 && context.turns >= settings.maxTurns) {
      emit("turn_limit", { kind: "turns", limit: settings.maxTurns, count: context.turns });
      total.stopReason = "turn_limit";
      return;
    }
    // The cost cap is checked before every call: the call that would pass it is never made.
    if (settings.maxCostUsd > 0 && total.usage.cost >= settings.maxCostUsd) {
      emit("turn_limit", { kind: "cost", limit: settings.maxCostUsd, count: total.usage.cost });
      total.stopReason = "max_cost";
      return;
    }
    if (signal.aborted) {
      total.stopReason = "aborted";
      return;
    }

    // Steering queued before the first call, during tools or during a compaction goes into this request.
    injectSteering(run);
    const turnIndex = context.turns++;
    total.turns++;
    emit("turn_start", { turn_index: turnIndex });
    const { profile, toolset, system } = context.current();
    const request = await buildRequest(run, profile, toolset, systemOverride ?? system);
    const outcome = await streamAssistant(config.client, request, signal, emit, context.messages, toolset);
    // A call that broke off (interrupted, cut by the network) was billed too: its estimated usage counts.
    const used = outcome.response?.usage ?? outcome.usage;
    if (used) total.usage = addUsage(total.usage, used);

    if (outcome.error) {
      emit("turn_end", { turn_index: turnIndex, tool_calls: [], error: outcome.error });
      if (outcome.error.kind === "aborted" || signal.aborted) {
        total.stopReason = "aborted";
        total.text = outcome.message ? textOf(outcome.message.content) : "";
        return;
      }
      // With autoCompact off an overflow only warns (docs/conformance.md: 004 §9.11.4): the host
      // decides when to compact.
      if (outcome.error.kind === "context_overflow" && settings.autoCompact && !overflowRetried && !outcome.message) {
        overflowRetried = true;
        if (await config.maintainContext("overflow")) continue;
      }
      emit("error", { ...outcome.error, turn_index: turnIndex, ...(outcome.stack ? { stack: outcome.stack } : {}) });
      if (outcome.error.kind === "context_overflow") {
        emit("warning", {
          kind: "context_overflow",
          message: "The conversation no longer fits the model's context window; compact it or start a new session.",
        });
      }
      total.stopReason = "error";
      total.error = outcome.error;
      return;
    }

    const message = outcome.message!;
    const calls = toolCallsOf(message);
    total.text = [...continued, textOf(message.content)].join("");
    if (calls.length === 0) {
      emit("turn_end", { turn_index: turnIndex, tool_calls: [] });
      await config.maintainContext("turn_end");
      const finish = message.finishReason;
      if (finish === "max_tokens" && continuations < settings.maxOutputContinuations) {
        // The answer was cut: ask for the rest and join the parts.
        continuations++;
        continued.push(textOf(message.content));
        append(run, { role: "user", content: CONTINUE_PROMPT, timestamp: Date.now() });
        continue;
      }
      if (finish === "pause_turn" && resumes < settings.maxOutputContinuations) {
        // A paused server-side turn goes on when its history is sent back as it is.
        resumes++;
        continued.push(textOf(message.content));
        continue;
      }
      if (finish === "malformed_call" && !malformedTold) {
        malformedTold = true;
        append(run, { role: "user", content: malformedCallPrompt(message), timestamp: Date.now() });
        continue;
      }
      if (isUnfinished(finish)) {
        total.stopReason = finish;
        total.stopMessage = unfinishedSentence(finish, message);
        return;
      }
      // Steering that came in during the answer gets its own turn.
      run.carriedSteering.push(...config.takeSteering());
      if (run.carriedSteering.length > 0) continue;
      total.stopReason = "completed";
      return;
    }
    continued = [];

    rounds++;
    const executed = await config.executeTools(calls);
    for (const result of executed) {
      append(run, result.message);
      config.loopDetector.record(result.call.name, result.call.arguments);
    }
    emit("turn_end", {
      turn_index: turnIndex,
      tool_calls: calls.map((c) => ({ call_id: c.id, tool_name: c.name, arguments: c.arguments })),
      tool_results: executed.map((r) => ({ call_id: r.call.id, tool_name: r.call.name, is_error: r.message.isError })),
    });
    if (signal.aborted) {
      total.stopReason = "aborted";
      return;
    }
    if (settings.enableLoopDetection && config.loopDetector.check()) {
      const warning = loopWarning(settings.loopDetectionWindow);
      append(run, { role: "user", content: warning, timestamp: Date.now() }, "loop_detection");
      emit("loop_detection", { message: warning, window: settings.loopDetectionWindow });
    }
    await config.maintainContext("turn_end");
  }
}

async function buildRequest(
  { context, config }: Run,
  profile: ProviderProfile,
  toolset: Toolset,
  system: string,
): Promise<Request> {
  const { hooks, settings, isProfileTool } = config;
  const history = hooks.has("onContext") ? await hooks.onContext([...context.messages]) : [...context.messages];
  const tools = toolset.specs;
  const messages = isProfileTool
    ? presentForeignCalls(history, new Set(tools.map((t) => t.name)), isProfileTool)
    : history;
  const request: Request = { model: profile.model, system, messages };
  if (tools.length > 0) {
    request.tools = tools;
    request.toolChoice = "auto";
  }
  if (settings.reasoningEffort) request.reasoningEffort = settings.reasoningEffort;
  if (settings.webSearch) request.webSearch = true;
  if (settings.outputSchema) request.outputSchema = settings.outputSchema;
  const providerOptions = profile.providerOptions({ reasoningEffort: settings.reasoningEffort });
  if (providerOptions) request.providerOptions = providerOptions;
  return request;
}

function injectSteering(run: Run): void {
  const texts = [...run.carriedSteering, ...run.config.takeSteering()];
  run.carriedSteering = [];
  for (const text of texts) {
    append(run, { role: "user", content: text, timestamp: Date.now() }, "steering");
    run.emit("steering_injected", { content: text });
  }
}
