/**
 * The agent's vocabulary: what it tells (events), how a run ends (stop reasons, the sentence saying
 * why an answer is not complete, what the model is told after an unfinished turn, the result) and
 * what it asks of the code around it (hooks). A leaf: it imports nothing from the loop, so the
 * loop's modules, the hosts and the adapters of other formats (Claude Code's shell hooks) all take
 * their words from here, and no type ever runs in a circle. The model-level endings (`FinishReason`,
 * lib/llm/types.ts) reach here unchanged; `completed` is the run's word for a final turn that ended
 * with `end_turn`.
 *
 * Every step of the agent is an event `{ kind, timestamp, session_id, data }`
 * (docs/conformance.md: 004 §2.9, 003 §2.5). `EventMap` is the one list of kinds: each key is a
 * kind, its value the payload type, so `switch (event.kind)` narrows `event.data`. Payload fields
 * are snake_case throughout (`call_id`, `tool_name`, `turn_index`); domain objects inside them (a
 * `Message`, a `Usage`, a tool's envelope) keep their own shape. To add a kind, add one line here
 * and emit it.
 */
import type { ToolResponse } from "../envelope.ts";
import {
  FINISH_REASONS,
  type AssistantMessage,
  type FinishReason,
  type ImagePart,
  type LlmErrorKind,
  type Message,
  type Usage,
} from "../llm/types.ts";
import type { McpServerEvent } from "../mcp/manager.ts";
import type { InjectedOrigin } from "../store/format.ts";
import type { CallDescription } from "../../tools/metadata.ts";
import type { Plan } from "../../tools/plan.ts";
import type { PendingCall, ToolProgress } from "../../tools/types.ts";

// ---------------------------------------------------------------------------------- how a run ends

/** The model endings that finish a turn as it should: an answer, calls, or the call's own failure. */
const FINISHED = ["end_turn", "tool_use", "error", "aborted"] as const satisfies readonly FinishReason[];
/** Every other model ending leaves the answer unfinished; the run ends with the same name. */
export type UnfinishedStop = Exclude<FinishReason, (typeof FINISHED)[number]>;
const UNFINISHED: readonly string[] = FINISH_REASONS.filter((r) => !(FINISHED as readonly string[]).includes(r));

/** Every way a run ends; new reasons (a cost cap…) are added to this union. */
export type StopReason =
  | "completed"
  | "handled"
  | "tool_round_limit"
  | "turn_limit"
  | "max_cost"
  | "aborted"
  | "error"
  | UnfinishedStop;

/** True for a model ending (or a run's stop reason) that leaves the answer unfinished. */
export function isUnfinished(reason: FinishReason | undefined): reason is UnfinishedStop {
  return UNFINISHED.includes(reason ?? "");
}

/** One sentence saying why the answer stopped, with the provider's own words when it gave some. */
export function unfinishedSentence(
  reason: UnfinishedStop,
  message: Pick<AssistantMessage, "model" | "finishDetail"> | undefined,
): string {
  const provider = message?.model?.split("/")[0] ?? "the provider";
  const detail = message?.finishDetail ? ` (${provider}: ${message.finishDetail})` : "";
  switch (reason) {
    case "max_tokens":
      return `The answer is incomplete: the model reached its output limit (max_tokens) and was continued as often as allowed${detail}.`;
    case "refusal":
      return `The model refused to answer${detail}.`;
    case "content_filter":
      return `The answer was stopped by ${provider}'s content filter${detail}.`;
    case "malformed_call":
      return `The model produced a tool call ${provider} could not parse, again after being told${detail}.`;
    case "incomplete":
      return `The answer is incomplete: ${provider} ended the response before it was finished${detail}.`;
    case "pause_turn":
      return `The answer is incomplete: ${provider} paused a long server-side turn more often than it may be resumed${detail}.`;
  }
}

/** What the model is told so it can go on after an output-limit cut of its text answer. */
export const CONTINUE_PROMPT =
  "Your previous answer was cut off at the output limit. Continue exactly where it stopped, without repeating anything.";

/** What the model is told once when its tool call could not be parsed. */
export function malformedCallPrompt(message: AssistantMessage): string {
  const detail = message.finishDetail ? ` (${message.finishDetail})` : "";
  return `Your last tool call could not be parsed by the provider${detail}. Call the tool again with arguments that are valid JSON matching its schema.`;
}

/** What submit() resolves with: the answer and how the input ended. */
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

/** A model call that failed, as results and events carry it. */
export interface StreamError {
  kind: LlmErrorKind;
  message: string;
  status?: number;
}

// ---------------------------------------------------------------------------------- hooks

export type GateResult = void | "ok" | { block: string };
/** The session operations a beforeSessionOp gate is asked about. */
export type SessionOp = "compact" | "fork" | "branch";
export type InputResult = void | "passthrough" | "handled" | { transform: string; images?: ImagePart[] };
export interface BeforeAgentResult {
  prompt?: string;
  system?: string;
  /** Extra messages placed right after the user's message. */
  messages?: Message[];
}
type MaybePromise<T> = T | Promise<T>;

export interface Hooks {
  /** Optional label used in hook_error events. */
  name?: string;
  /**
   * Milliseconds this hook's callbacks may take, instead of the session's hookTimeoutMs; 0 waits
   * as long as it takes (a gate that asks a person, as the ACP and interactive approvals do).
   */
  timeoutMs?: number;
  beforeToolCall?(tool: string, params: Record<string, unknown>, call?: PendingCall): MaybePromise<GateResult>;
  beforeSessionOp?(op: SessionOp, meta: Record<string, unknown>): MaybePromise<void | "ok" | "cancel">;
  /** May return a partial envelope: the fields it leaves out keep their value. `params` are the call's arguments. */
  onToolResult?(
    tool: string,
    result: ToolResponse,
    params: Record<string, unknown>,
  ): MaybePromise<Partial<ToolResponse> | void>;
  onContext?(messages: Message[]): MaybePromise<Message[] | void>;
  onInput?(text: string, images: ImagePart[]): MaybePromise<InputResult>;
  onBeforeAgent?(prompt: string, system: string): MaybePromise<BeforeAgentResult | void>;
  /** The agent is about to stop with `answer`: return a message to go on with it instead (the first hook that does wins). */
  onStop?(answer: string): MaybePromise<string | void>;
}

export type HookName = Exclude<keyof Hooks, "name" | "timeoutMs">;

export interface HookErrorReport {
  hook: string;
  callback: HookName;
  error: string;
  stack?: string;
  timed_out: boolean;
}

// ---------------------------------------------------------------------------------- events

export type CompactionReason = "threshold" | "overflow" | "manual";

export type ChildStatus = "running" | "completed" | "failed" | "closed";

/** A child agent as its parent sees it: status, answer, turns and usage. */
export interface ChildReport {
  agent_id: string;
  name: string;
  status: ChildStatus;
  /** The child's last answer (its final text once it has finished). */
  output: string;
  /** Model calls made by the child so far. */
  turns: number;
  usage: Usage;
  error?: string;
  session_file?: string;
}

/** A tool call as events name it. */
export interface EventToolCall {
  call_id: string;
  tool_name: string;
  arguments: Record<string, unknown>;
}

export interface EventMap {
  /** The first input of a session starts; one per session. */
  session_start: { model: string; cwd: string; profile: string };
  /** The session closed (close(), abort() or an auth error). */
  session_end: { state: "CLOSED"; reason: "aborted" | "closed" | "error"; turns: number };
  /** One input (and its follow-ups) starts … */
  agent_start: { prompt: string };
  /** … and ends; `steps` counts its model calls. */
  /** `stop_message`: why the answer is not complete, for the unfinished stop reasons (max_tokens, refusal…). */
  agent_end: { duration_ms: number; steps: number; stop_reason: StopReason; usage: Usage; stop_message?: string };
  /** The user's message as sent (after the onInput / onBeforeAgent hooks). */
  user_input: { content: string; images: number };
  turn_start: { turn_index: number };
  /** The turn's tool calls and how they ended; `error` when the model call failed. */
  turn_end: {
    turn_index: number;
    tool_calls: EventToolCall[];
    tool_results?: { call_id: string; tool_name: string; is_error: boolean }[];
    error?: StreamError;
  };
  /** Every message added to the history: user, assistant, tool result. */
  message_start: { message: Message };
  /** The assistant's message as it streams. */
  message_update: { message: AssistantMessage; kind: "text" | "thinking"; delta: string };
  /** `injected`: a user-role message the loop injected (steering, a loop warning), stored as its own entry kind. */
  message_end: { message: Message; injected?: InjectedOrigin };
  assistant_text_start: Record<string, never>;
  assistant_text_delta: { delta: string };
  assistant_text_end: { text: string; reasoning: string | null };
  assistant_thinking_delta: { delta: string };
  /**
   * A call's arguments as the model streams them: `delta` is the next piece of the argument text
   * (concatenated, the pieces are the arguments' JSON); `arguments` (a lenient parse, for display)
   * with the call's `kind` and `call_summary` comes with the first update and then at most a few
   * times a second, so the events stay proportional to what the model sent. The last update has
   * `complete`, the final arguments, and `invalid_arguments` when they did not parse (the call is
   * cut off and will not run).
   */
  tool_call_update: {
    call_id: string;
    tool_name: string;
    delta: string;
    complete?: boolean;
    invalid_arguments?: string;
  } & Partial<{ arguments: Record<string, unknown> } & CallDescription>;
  /** With the tool's kind and a one-line summary of the call, so consumers need no list of tool names. */
  tool_call_start: EventToolCall & CallDescription;
  /** A running tool's output as it arrives (a command's stdout and stderr). */
  tool_call_output_delta: { call_id: string; tool_name: string; delta: string };
  /** How far a long call has got (an MCP server's progress notifications). */
  tool_call_progress: { call_id: string; tool_name: string } & ToolProgress;
  /**
   * `output` is the tool's complete envelope up to the event limit (past it `output.text` holds the
   * first and last parts and `output_complete` is false); `truncated` says the model's copy was cut;
   * `full_output_path` (relative to the project) holds the complete output whenever either was.
   */
  tool_call_end: {
    call_id: string;
    tool_name: string;
    output: ToolResponse;
    is_error: boolean;
    truncated: boolean;
    output_complete: boolean;
    full_output_path: string | null;
    result_summary: string;
  } & CallDescription;
  steering_injected: { content: string };
  /** The plan tool set a new plan (kept in the session and its file). */
  plan_update: Plan & { call_id: string; tool_name: string };
  /**
   * The workspace was checkpointed before a user turn (`checkpoint_id` is the session entry rewind
   * takes); `skipped` lists paths left out other than ignored ones, `ignored` counts those.
   */
  checkpoint_created: {
    checkpoint_id: string | null;
    reason: "turn" | "rewind";
    files: number;
    bytes: number;
    hashed: number;
    skipped: { path: string; reason: string }[];
    ignored: number;
    duration_ms: number;
  };
  /** Files and/or the conversation went back to a checkpoint; rewinding to `undo_id` undoes it. */
  rewind: {
    checkpoint_id: string;
    files: boolean;
    conversation: boolean;
    written: number;
    removed: number;
    undo_id: string;
  };
  /** A limit stopped the input: `count` of `limit` tool rounds (this input) or turns (the session). */
  turn_limit: { kind: "tool_rounds" | "turns" | "cost"; limit: number; count: number };
  loop_detection: { message: string; window: number };
  /** `context_usage` (past the warning ratio), `context_overflow`, `session_file` (a write failed). */
  warning: {
    kind: "context_usage" | "context_overflow" | "session_file" | (string & {});
    message: string;
    tokens?: number;
    context_window?: number;
    percent?: number;
  };
  /** `error.retryAfterMs`: the wait the server asked for (retry-after), when it asked. */
  retry: {
    attempt: number;
    delay_ms: number;
    error: { kind: LlmErrorKind; message: string; status?: number; retryAfterMs?: number };
  };
  compaction_start: { reason: CompactionReason; tokens_before: number };
  /**
   * `compacted` false with `cancelled` (a beforeSessionOp hook), `why` (nothing to compact) or
   * `error` (it failed); true with the strategy and the token counts before and after.
   */
  compaction_end: {
    reason: CompactionReason;
    compacted: boolean;
    cancelled?: boolean;
    why?: string;
    error?: string;
    strategy?: string;
    tokens_before?: number;
    tokens_after?: number;
    summary_error?: string;
  };
  /** `profile`: the profile the new model's requests use. */
  model_change: { model: string; profile: string };
  /** The profile changed: by an override (setProfile) or with the model's family. */
  profile_change: { profile: string; previous: string; reason: "override" | "model" };
  hook_error: HookErrorReport;
  /** An MCP server connected (its tools join the next request) or failed (one line, once). */
  mcp_server: McpServerEvent;
  /** A child agent started on its task (its own events follow, tagged with its agent_id). */
  subagent_start: {
    agent_id: string;
    name: string;
    task: string;
    model?: string;
    session_file?: string;
    call_id?: string;
  };
  /** A child agent's run ended: its status, answer, turns and usage. */
  subagent_end: ChildReport;
  /** A model call failed (`kind` from the LLM layer) or, `internal`, a bug outside the guarded steps. */
  error: { kind: LlmErrorKind | "internal"; message: string; status?: number; stack?: string; turn_index?: number };
}

export type EventKind = keyof EventMap;

/** Emits one event: what the loop and its steps are given instead of the bus itself. */
export type Emit = <K extends EventKind>(kind: K, data: EventMap[K]) => void;

/** One event; `SessionEvent` alone is the union of every kind, so a check of `kind` narrows `data`. */
export type SessionEvent<K extends EventKind = EventKind> = {
  [P in K]: {
    kind: P;
    /** Milliseconds since the epoch. */
    timestamp: number;
    session_id: string;
    data: EventMap[P];
    /** Set on a child agent's event forwarded to its parent's stream: the child's agent id. */
    agent_id?: string;
    /** With agent_id: the id of the session that spawned the child. */
    parent_id?: string;
  };
}[K];

export type EventListener = (event: SessionEvent) => void;
