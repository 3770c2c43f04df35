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
import type { FinishReason, Usage } from "../llm/types.ts";

export const EXIT = { ok: 0, failed: 1, usage: 2, unfinished: 3, interrupted: 130 } as const;

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
}

/** The result object of a headless run, as `gong -p --output-format json` prints it. */
export interface ResultRecord {
  kind: "result";
  session_id: string;
  model: string;
  profile: string;
  answer: string;
  stop_reason: string;
  is_error: boolean;
  error?: string;
  turns: number;
  usage: Usage;
  cost_usd: number;
  duration_ms: number;
  session_file?: string;
  session_saved: boolean;
}

export async function runHeadless(session: Session, prompt: string, options: HeadlessOptions): Promise<HeadlessRun> {
  const started = Date.now();
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
  });

  let stopped = false;
  const onStop = () => {
    stopped = true;
    void session.abort();
  };
  for (const stop of options.stops) stop?.addEventListener("abort", onStop, { once: true });
  let result: SubmitResult;
  try {
    result = await session.submit(prompt);
  } finally {
    for (const stop of options.stops) stop?.removeEventListener("abort", onStop);
    unsubscribe();
  }
  if (stopped && result.stopReason !== "aborted") result = { ...result, stopReason: "aborted" };
  const code = exitCodeOf(result);
  return {
    result,
    code,
    failure: code !== EXIT.ok ? describeFailure(result) : undefined,
    saved,
    durationMs: Date.now() - started,
  };
}

export function resultRecord(session: Session, run: HeadlessRun): ResultRecord {
  const { result } = run;
  return {
    kind: "result",
    session_id: session.id,
    model: session.model,
    profile: session.profile,
    answer: result.text,
    stop_reason: result.stopReason,
    is_error: run.code !== EXIT.ok,
    error: run.failure,
    turns: result.turns,
    usage: result.usage,
    cost_usd: result.usage.cost,
    duration_ms: run.durationMs,
    // Only a file that holds the whole session is named; otherwise the result says it was not saved.
    session_file: run.saved ? session.sessionFile : undefined,
    session_saved: run.saved && session.sessionFile !== undefined,
  };
}
