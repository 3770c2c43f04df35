/**
 * What the runner records for an attempt that ended without writing its own result: the process was
 * killed (by the engine, by a lost node, by a batch that died) — an infrastructure error.
 */
import { hostname } from "node:os";
import { attemptsOf, claimAttempt, writeJsonAtomic } from "./layout.ts";
import { KILLED_EXITS, zeroUsage, type AttemptResult, type RunnerInfo } from "./result.ts";
import { resultUsage } from "../core/outcome.ts";
import { join } from "node:path";
import { readdirSync, statSync } from "node:fs";

/** Why a run-one process ended without a result, in one phrase. */
export function describeExit(code: number | null, signal: string | null): string {
  if (signal) return `killed by ${signal}`;
  if (code !== null && KILLED_EXITS.has(code)) return `killed (exit ${code})`;
  return `exited with ${code} without a result`;
}

/**
 * Writes an `error` result into the task's attempts that have none, newer than `after` (or claims one
 * when the process never got to claim its own). Returns the results written.
 */
export function recordLostAttempts(
  out: string,
  id: string,
  after: number,
  reason: string,
  runner: RunnerInfo["name"],
  claimIfNone: boolean,
): AttemptResult[] {
  const written: AttemptResult[] = [];
  let lost = attemptsOf(out, id).filter((a) => a.attempt > after && !a.result);
  if (lost.length === 0 && claimIfNone && !attemptsOf(out, id).some((a) => a.attempt > after))
    lost = [{ ...claimAttempt(out, id) }];
  for (const a of lost) {
    const started = startedAt(a.dir);
    const result: AttemptResult = {
      kind: "result",
      id,
      attempt: a.attempt,
      status: "error",
      is_error: true,
      error: `the attempt ended without a result: ${reason}`,
      turns: 0,
      usage: resultUsage(zeroUsage()),
      cost_usd: 0,
      duration_ms: Date.now() - started.getTime(),
      session_file: sessionLeft(a.dir),
      session_saved: sessionLeft(a.dir) !== undefined,
      exit_code: 75,
      runner: { name: runner, host: hostname(), pid: process.pid },
      started_at: started.toISOString(),
      finished_at: new Date().toISOString(),
    };
    writeJsonAtomic(join(a.dir, "result.json"), result);
    written.push(result);
  }
  return written;
}

function startedAt(dir: string): Date {
  try {
    return statSync(dir).birthtime.getTime() > 0 ? statSync(dir).birthtime : statSync(dir).mtime;
  } catch {
    return new Date();
  }
}

/** The session file a killed attempt left (still under its generated name). */
function sessionLeft(dir: string): string | undefined {
  try {
    const file = readdirSync(dir).find((n) => n.endsWith(".jsonl"));
    return file ? join(dir, file) : undefined;
  } catch {
    return undefined;
  }
}
