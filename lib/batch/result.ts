/**
 * One attempt's result (`result.json`, a line of `results.jsonl`) and the batch summary. A result is
 * print mode's `--output-format json` object plus the task's id, attempt, status, patch file, runner
 * and timestamps. Statuses: done, failed (the task's own failure: the model gave up, a limit, a
 * failing setup), error (infrastructure: killed, node lost, provider outage — worth retrying),
 * timeout, cancelled (the batch was stopped), skipped (never launched: the batch cost cap).
 */
import type { ResultRecord } from "../core/outcome.ts";
import type { Usage } from "../llm/types.ts";

export type TaskStatus = "done" | "failed" | "error" | "timeout" | "cancelled" | "skipped";
export const STATUSES: readonly TaskStatus[] = ["done", "failed", "error", "timeout", "cancelled", "skipped"];

/** run-one's exit codes: 0 done, 1 failed (or timeout), 75 (EX_TEMPFAIL) an error worth retrying. */
export const RUN_ONE_EXIT = { done: 0, failed: 1, error: 75, cancelled: 143 } as const;

/** Exit codes of a process the engine killed: 128 + SIGKILL / SIGTERM. */
export const KILLED_EXITS = new Set([137, 143]);

export interface RunnerInfo {
  name: "local" | "slurm" | "k8s" | "direct";
  host: string;
  pid: number;
  job_id?: string;
  array_index?: number;
}

/** The fields of the run's record a result lacks when no session ran (a workdir that could not be prepared, a failing setup). */
type SessionFields =
  | "session_id"
  | "model"
  | "profile"
  | "answer"
  | "stop_reason"
  | "error"
  | "session_file"
  // Claude Code's names for the run's outcome, present when a session ran.
  | "type"
  | "subtype"
  | "result"
  | "num_turns"
  | "total_cost_usd"
  | "permission_denials"
  | "uuid";

export interface AttemptResult extends Partial<Pick<ResultRecord, SessionFields>>, Omit<ResultRecord, SessionFields> {
  id: string;
  attempt: number;
  status: TaskStatus;
  /** The diff against the task's ref, new files included; absent when the workdir is not a git checkout. */
  patch_file?: string;
  exit_code: number;
  runner: RunnerInfo;
  started_at: string;
  finished_at: string;
}

export const zeroUsage = (): Usage => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, cost: 0 });

/** Whether a re-run launches the task again: never finished, or its last attempt says try again. */
export function isOwed(last: AttemptResult | undefined, retryFailed: boolean): boolean {
  if (!last) return true;
  if (last.status === "error" || last.status === "cancelled" || last.status === "skipped") return true;
  return retryFailed && last.status !== "done";
}

export interface Summary {
  tasks: number;
  counts: Record<TaskStatus, number>;
  attempts: number;
  retries: number;
  cost_usd: number;
  tokens: { input: number; output: number; cache_read: number; cache_write: number; reasoning: number };
  wall_ms: number;
  tasks_per_minute: number;
  duration_ms: { p50: number; p90: number };
  started_at?: string;
  finished_at?: string;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * The summary over every task of the batch: each task counted once by its last attempt (no result:
 * skipped), cost and tokens over all attempts, wall time from the first start to the last finish.
 */
export function summarize(ids: string[], attempts: Map<string, AttemptResult[]>): Summary {
  const counts = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<TaskStatus, number>;
  const tokens = { input: 0, output: 0, cache_read: 0, cache_write: 0, reasoning: 0 };
  let cost = 0;
  let total = 0;
  const durations: number[] = [];
  let first = Infinity;
  let last = -Infinity;
  for (const id of ids) {
    const results = attempts.get(id) ?? [];
    const final = results.at(-1);
    counts[final?.status ?? "skipped"]++;
    if (final) durations.push(final.duration_ms);
    for (const r of results) {
      total++;
      cost += r.cost_usd ?? 0;
      tokens.input += r.usage?.input ?? 0;
      tokens.output += r.usage?.output ?? 0;
      tokens.cache_read += r.usage?.cacheRead ?? 0;
      tokens.cache_write += r.usage?.cacheWrite ?? 0;
      tokens.reasoning += r.usage?.reasoning ?? 0;
      first = Math.min(first, Date.parse(r.started_at));
      last = Math.max(last, Date.parse(r.finished_at));
    }
  }
  const wall = total > 0 ? Math.max(0, last - first) : 0;
  const finished = ids.length - counts.skipped;
  durations.sort((a, b) => a - b);
  return {
    tasks: ids.length,
    counts,
    attempts: total,
    retries: total - finished,
    cost_usd: Number(cost.toFixed(6)),
    tokens,
    wall_ms: wall,
    tasks_per_minute: wall > 0 ? Number(((counts.done * 60_000) / wall).toFixed(2)) : 0,
    duration_ms: { p50: percentile(durations, 50), p90: percentile(durations, 90) },
    ...(total > 0 ? { started_at: new Date(first).toISOString(), finished_at: new Date(last).toISOString() } : {}),
  };
}
