/**
 * What a finished input means to the one who started it: gong's exit codes (the command line's,
 * and every headless host's) and one sentence for an input that did not complete. And the input
 * run to completion with no one to answer — print mode, a batch task, any headless host after
 * them: the warnings a run must not keep silent, stopping when the host says so, and the result
 * record the hosts print (`--output-format json`) or store (a batch task's result.json).
 */
import type { Session, SubmitResult } from "../agent/index.ts";
import { isUnfinished } from "../agent/vocabulary.ts";
import { formatWait } from "../llm/retry.ts";
import { addUsage } from "../llm/usage.ts";
import type { FinishReason, Usage } from "../llm/types.ts";
import { correctionPrompt, type AnswerSchema } from "./answer-schema.ts";

/** 4: the answer never matched the schema it had to follow (--json-schema, --output-schema). */
export const EXIT = { ok: 0, failed: 1, usage: 2, unfinished: 3, invalidOutput: 4, interrupted: 130 } as const;

/** The stop reason of an answer that never matched its schema (after one retry). */
export const INVALID_OUTPUT = "invalid_structured_output";

export function exitCodeOf(result: SubmitResult): number {
  switch (result.stopReason) {
    case "completed":
    case "handled":
      return EXIT.ok;
    case "aborted":
      return EXIT.interrupted;
    case "error":
      // A rejected key is a configuration problem, not a failed task.
      return result.error?.kind === "auth" ? EXIT.usage : EXIT.failed;
    default:
      // The model stopped before the answer was complete: a script must be able to tell.
      if (isUnfinished(result.stopReason as FinishReason)) return EXIT.unfinished;
      return EXIT.failed;
  }
}

/** One sentence for a failed input (stack traces only with --verbose). */
export function describeFailure(result: SubmitResult): string | undefined {
  switch (result.stopReason) {
    case "error":
      return result.error?.message ?? "The model call failed.";
    case "turn_limit":
      return "Stopped: the turn limit (--max-turns) was reached.";
    case "tool_round_limit":
      return "Stopped: the limit of tool rounds for one input was reached.";
    case "max_cost":
      return "Stopped: the cost cap (--max-cost-usd) was reached.";
    case "aborted":
      return "Interrupted.";
    default:
      return result.stopMessage;
  }
}

export interface HeadlessOptions {
  /** Any of these aborting stops the input (gong told to end, the reader gone); the run then ends "aborted". */
  stops: readonly (AbortSignal | undefined)[];
  /** The host shows warnings and retries as progress of its own: they are not said here too. */
  verbose: boolean;
  /** One diagnostics line ("gong: warning: …"). */
  warn(line: string): void;
  /** The final answer must be JSON matching this schema: checked, asked for once more when it does not. */
  schema?: AnswerSchema;
  /** Images sent with the prompt. */
  images?: { mimeType: string; data: string }[];
}

export interface HeadlessRun {
  result: SubmitResult;
  /** gong's exit code for the result (EXIT). */
  code: number;
  /** One sentence when the input did not complete. */
  failure?: string;
  /** Whether the session file holds the whole session (false once writing it failed). */
  saved: boolean;
  durationMs: number;
  /** The answer's JSON value, when a schema was given and the answer matched it. */
  structuredOutput?: unknown;
  /** Tool calls a rule, a hook or the approval mode refused (Claude Code's `permission_denials`). */
  denials: PermissionDenial[];
}

export interface PermissionDenial {
  tool_name: string;
  tool_use_id: string;
  tool_input: Record<string, unknown>;
}

/**
 * The result object of a headless run, as `gong -p --output-format json` prints it: gong's keys and,
 * beside them, Claude Code's (`type`, `subtype`, `result`, `num_turns`, `total_cost_usd`, Anthropic's
 * usage names inside `usage`…), so a script written for `claude -p` reads it unchanged.
 */
export interface ResultRecord {
  type: "result";
  /** Claude Code's outcome: success, or why the run stopped (error_max_turns, error_max_budget_usd, …). */
  subtype: string;
  /** Claude Code's name for the final answer. */
  result: string;
  num_turns: number;
  total_cost_usd: number;
  permission_denials: PermissionDenial[];
  /** A fresh id for this result message. */
  uuid: string;
  /** The answer's JSON value, with --json-schema / --output-schema. */
  structured_output?: unknown;
  /** Why a run that did not succeed stopped (Claude Code's error results carry it). */
  errors?: string[];
  kind: "result";
  session_id: string;
  model: string;
  profile: string;
  answer: string;
  stop_reason: string;
  is_error: boolean;
  error?: string;
  turns: number;
  usage: ResultUsage;
  cost_usd: number;
  duration_ms: number;
  session_file?: string;
  session_saved: boolean;
}

/** gong's token counts and, beside them, Anthropic's names for them, as Claude Code's result carries them. */
export type ResultUsage = Usage & {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
};

export function resultUsage(usage: Usage): ResultUsage {
  return {
    ...usage,
    input_tokens: usage.input,
    output_tokens: usage.output,
    cache_read_input_tokens: usage.cacheRead,
    cache_creation_input_tokens: usage.cacheWrite,
  };
}

export async function runHeadless(session: Session, prompt: string, options: HeadlessOptions): Promise<HeadlessRun> {
  const started = Date.now();
  const denials: PermissionDenial[] = [];
  const calls = new Map<string, PermissionDenial>();
  // A session file that cannot be written is said once, whatever the host prints.
  let saved = true;
  const unsubscribe = session.subscribe((event) => {
    if (event.kind === "warning" && event.data.kind === "session_file" && saved) {
      saved = false;
      if (!options.verbose) options.warn(`gong: warning: ${String(event.data.message)}`);
    }
    // A wait the server asked for (rate limits) is said, so a pause is never silent.
    if (event.kind === "retry" && !options.verbose) {
      const error = event.data.error as { message?: string; retryAfterMs?: number } | undefined;
      if (error?.retryAfterMs !== undefined)
        options.warn(
          `gong: ${error.message}; retrying in ${formatWait(Number(event.data.delay_ms))} (attempt ${String(event.data.attempt)})`,
        );
    }
    // A failing MCP server is told once, in one line, verbose or not.
    if (event.kind === "mcp_server" && event.data.state === "failed")
      options.warn(`gong: warning: ${event.data.message}`);
    if (event.kind === "tool_call_start" && event.agent_id === undefined)
      calls.set(event.data.call_id, {
        tool_name: event.data.tool_name,
        tool_use_id: event.data.call_id,
        tool_input: event.data.arguments,
      });
    if (
      event.kind === "tool_call_end" &&
      event.agent_id === undefined &&
      event.data.output.error?.code === "PERMISSION_DENIED"
    ) {
      const call = calls.get(event.data.call_id);
      if (call) denials.push(call);
    }
  });

  let stopped = false;
  const onStop = () => {
    stopped = true;
    void session.abort();
  };
  for (const stop of options.stops) stop?.addEventListener("abort", onStop, { once: true });
  let result: SubmitResult;
  let answer: { value: unknown } | { problem: string } | undefined;
  try {
    result = await session.submit(prompt, { images: options.images });
    answer = options.schema && result.stopReason === "completed" ? options.schema.check(result.text) : undefined;
    // An answer that does not match its schema gets one more turn, told why.
    if (answer && "problem" in answer && !stopped) {
      const retry = await session.submit(correctionPrompt(options.schema!, answer.problem));
      result = { ...retry, usage: addUsage(result.usage, retry.usage), turns: result.turns + retry.turns };
      answer = retry.stopReason === "completed" ? options.schema!.check(retry.text) : undefined;
    }
  } finally {
    for (const stop of options.stops) stop?.removeEventListener("abort", onStop);
    unsubscribe();
  }
  if (stopped && result.stopReason !== "aborted") result = { ...result, stopReason: "aborted" };
  const invalid = !stopped && answer !== undefined && "problem" in answer ? answer.problem : undefined;
  const code = invalid ? EXIT.invalidOutput : exitCodeOf(result);
  return {
    result,
    code,
    failure: invalid
      ? `The answer did not match ${options.schema!.source} after one retry: ${invalid}.`
      : code !== EXIT.ok
        ? describeFailure(result)
        : undefined,
    saved,
    durationMs: Date.now() - started,
    structuredOutput: answer && "value" in answer ? answer.value : undefined,
    denials,
  };
}

/** Claude Code's subtype for how a run ended. */
function claudeSubtype(run: HeadlessRun): string {
  if (run.code === EXIT.ok) return "success";
  if (run.code === EXIT.invalidOutput) return "error_max_structured_output_retries";
  if (run.result.stopReason === "turn_limit") return "error_max_turns";
  if (run.result.stopReason === "max_cost") return "error_max_budget_usd";
  return "error_during_execution";
}

export function resultRecord(session: Session, run: HeadlessRun): ResultRecord {
  const { result } = run;
  const { usage } = result;
  const subtype = claudeSubtype(run);
  return {
    type: "result",
    subtype,
    ...(subtype === "success" ? {} : { errors: [run.failure ?? `the run stopped: ${result.stopReason}`] }),
    result: result.text,
    num_turns: result.turns,
    total_cost_usd: usage.cost,
    permission_denials: run.denials,
    uuid: crypto.randomUUID(),
    ...(run.structuredOutput !== undefined ? { structured_output: run.structuredOutput } : {}),
    kind: "result",
    session_id: session.id,
    model: session.model,
    profile: session.profile,
    answer: result.text,
    stop_reason: run.code === EXIT.invalidOutput ? INVALID_OUTPUT : result.stopReason,
    is_error: run.code !== EXIT.ok,
    error: run.failure,
    turns: result.turns,
    usage: resultUsage(usage),
    cost_usd: usage.cost,
    duration_ms: run.durationMs,
    // Only a file that holds the whole session is named; otherwise the result says it was not saved.
    session_file: run.saved ? session.sessionFile : undefined,
    session_saved: run.saved && session.sessionFile !== undefined,
  };
}
