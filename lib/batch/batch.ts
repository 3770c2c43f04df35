/**
 * `runBatch(tasks, options)`: the batch around the runners. It claims the out directory, writes the
 * checked tasks (line i = array index i), records attempts a killed batch left without a result,
 * launches exactly the tasks still owed on the chosen runner, appends every finished attempt to
 * `results.jsonl` (this process is its only writer) and writes `summary.json`.
 */
import { appendFileSync, existsSync, readFileSync, rmdirSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  attemptsOf,
  claimOutDir,
  OutDirError,
  readTasksSnapshot,
  tasksSnapshot,
  writeJsonAtomic,
  writeTasksSnapshot,
} from "./layout.ts";
import { recordLostAttempts } from "./outcome.ts";
import { isOwed, summarize, type AttemptResult, type Summary, type TaskStatus } from "./result.ts";
import type { BatchEvent, Progress, RunnerHost } from "./runner-host.ts";
import { checkTasks, type Task, type TaskDefaults, type TaskProblem } from "./task.ts";

export type RunnerName = "local" | "slurm";

export interface BatchOptions {
  /** The out directory (results, sessions, patches). */
  out: string;
  runner?: RunnerName;
  /** Tasks running at once (the Slurm array's %K). Default 4. */
  workers?: number;
  /** Re-run tasks whose last attempt failed or timed out, not only the missing and errored. */
  retryFailed?: boolean;
  /** Stop launching once the batch's finished attempts cost this much (USD). */
  maxTotalCostUsd?: number;
  /** Fields every task gets unless it sets them. */
  defaults?: TaskDefaults;
  /** Where tasks with neither `repo` nor `workdir` work, and relative paths point from. Default: the process's cwd. */
  cwd?: string;
  /** Names the batch in `batch.json`: a second batch may not reuse the directory. Default: "sdk". */
  source?: string;
  /** The gong command runners launch (`[bun, cli.ts]` from a checkout, the binary itself when compiled). */
  command?: string[];
  /** Environment of the run-one processes. Default: this process's. */
  env?: NodeJS.ProcessEnv;
  /** Slurm: submit and return without waiting (collect later with `gong batch collect`). */
  detach?: boolean;
  /** Slurm: extra `sbatch` arguments (e.g. `--partition=…`). */
  sbatchArgs?: string[];
  /** Aborting stops launching; running tasks finish. */
  stop?: AbortSignal;
  /** Aborting cancels running tasks too (they end `cancelled`). */
  cancel?: AbortSignal;
  onEvent?(event: BatchEvent): void;
}

export interface BatchReport {
  out: string;
  summary: Summary;
  /** Each task's last attempt, in task order (undefined: never finished). */
  results: Array<AttemptResult | undefined>;
  problems: TaskProblem[];
  /** Submitted Slurm job ids. */
  jobs: string[];
}

export const DEFAULT_ATTEMPTS = 2;

/** The gong command for run-one: the checkout's cli.ts under this Bun, or the compiled binary itself. */
export function defaultCommand(): string[] {
  const cli = fileURLToPath(new URL("../../cli.ts", import.meta.url));
  if (existsSync(cli)) return [process.versions.bun ? process.execPath : "bun", cli];
  return [process.execPath];
}

/** Paths absolute (the runners' processes start elsewhere), a workdir for tasks that name none. */
function normalize(task: Task, cwd: string): Task {
  const abs = (p: string) =>
    isAbsolute(p) || /^[a-z][a-z0-9+.-]*:\/\//i.test(p) || /^[\w.-]+@[\w.-]+:/.test(p) ? p : resolve(cwd, p);
  const t = { ...task };
  if (t.repo !== undefined) t.repo = abs(t.repo);
  if (t.workdir !== undefined) t.workdir = abs(t.workdir);
  if (t.repo === undefined && t.workdir === undefined) t.workdir = cwd;
  return t;
}

export async function runBatch(
  input: readonly unknown[],
  options: BatchOptions,
  problemsSoFar: TaskProblem[] = [],
): Promise<BatchReport> {
  const out = resolve(options.out);
  const cwd = resolve(options.cwd ?? process.cwd());
  const emit = (e: BatchEvent) => options.onEvent?.(e);
  claimOutDir(out, options.source ?? "sdk");
  const stillQueued = existsSync(join(out, "slurm", "jobs"))
    ? await (await import("./slurm.ts")).jobsStillQueued(out, options.env ?? process.env)
    : [];
  if (stillQueued.length > 0)
    throw new OutDirError(
      `Slurm job ${stillQueued.join(", ")} of this batch is still running: wait for it (then 'gong batch collect ${out}') or cancel it with scancel.`,
    );
  const checked = checkTasks(
    input.map((value, i) => ({ line: i + 1, value })),
    options.defaults,
  );
  const problems = [...problemsSoFar, ...checked.problems];
  for (const problem of problems) emit({ type: "problem", problem });
  const tasks = checked.tasks.map((t) => normalize(t, cwd));
  writeTasksSnapshot(out, tasks);
  const resultsFile = join(out, "results.jsonl");
  const append = (r: AttemptResult) => appendFileSync(resultsFile, `${JSON.stringify(r)}\n`);

  // Results a killed batch never appended come first; attempts it left without a result are errors, owed again.
  const listed = new Set(readLines(resultsFile).map((r) => `${r.id}#${r.attempt}`));
  const unlisted = tasks.flatMap((t) =>
    attemptsOf(out, t.id).flatMap((a) => (a.result && !listed.has(`${t.id}#${a.attempt}`) ? [a.result] : [])),
  );
  for (const r of unlisted.sort((a, b) => a.finished_at.localeCompare(b.finished_at))) append(r);
  for (const task of tasks)
    for (const r of recordLostAttempts(out, task.id, 0, "its batch was stopped before it finished", "local", false))
      append(r);

  const last = new Map<string, AttemptResult | undefined>(
    tasks.map((t) => [t.id, attemptsOf(out, t.id).at(-1)?.result]),
  );
  const owed = tasks.flatMap((t, i) => (isOwed(last.get(t.id), Boolean(options.retryFailed)) ? [i] : []));
  emit({ type: "started", owed: owed.length, tasks: tasks.length });

  let cost = tasks.reduce(
    (sum, t) => sum + attemptsOf(out, t.id).reduce((s, a) => s + (a.result?.cost_usd ?? 0), 0),
    0,
  );
  const usedThisRun = new Map<string, number>();
  const counts: Record<TaskStatus, number> = { done: 0, failed: 0, error: 0, timeout: 0, cancelled: 0, skipped: 0 };
  const owedIds = new Set(owed.map((i) => tasks[i].id));
  for (const [id, r] of last) if (r && !owedIds.has(id)) counts[r.status]++;
  let running = 0;
  let waiting: number | undefined;
  const durations: number[] = [];
  let stoppedWhy: string | undefined;
  const stop = options.stop ?? new AbortController().signal;
  const cancel = options.cancel ?? new AbortController().signal;
  const workers = Math.max(1, options.workers ?? 4);

  const progress = (): Progress => {
    const finishedNow = counts.done + counts.failed + counts.error + counts.timeout + counts.cancelled;
    const left = tasks.length - finishedNow - running;
    const mean = durations.length ? durations.reduce((a, b) => a + b, 0) / durations.length : undefined;
    return {
      tasks: tasks.length,
      done: counts.done,
      failed: counts.failed + counts.timeout,
      error: counts.error,
      running,
      queued: waiting ?? Math.max(0, left),
      cost_usd: Number(cost.toFixed(6)),
      eta_ms: mean === undefined ? undefined : Math.round((mean * (Math.max(0, left) + running)) / workers),
    };
  };

  const host: RunnerHost = {
    out,
    snapshot: tasksSnapshot(out),
    tasks,
    command: options.command ?? defaultCommand(),
    workers,
    env: options.env ?? process.env,
    stop,
    cancel,
    detach: Boolean(options.detach),
    sbatchArgs: options.sbatchArgs ?? [],
    jobs: [],
    mayLaunch() {
      if (stoppedWhy) return false;
      if (stop.aborted || cancel.aborted) stoppedWhy = "the batch was asked to stop";
      else if (options.maxTotalCostUsd !== undefined && cost >= options.maxTotalCostUsd)
        stoppedWhy = `the batch's cost cap ($${options.maxTotalCostUsd}) was reached`;
      if (stoppedWhy) emit({ type: "stopped_launching", reason: stoppedWhy });
      return !stoppedWhy;
    },
    launched(index) {
      const id = tasks[index].id;
      usedThisRun.set(id, (usedThisRun.get(id) ?? 0) + 1);
      running++;
      emit({ type: "launched", id, index });
      emit({ type: "progress", progress: progress() });
    },
    observed(nowRunning, queued) {
      if (nowRunning === running && queued === waiting) return;
      running = nowRunning;
      waiting = queued;
      emit({ type: "progress", progress: progress() });
    },
    finished(result) {
      append(result);
      running = Math.max(0, running - 1);
      cost += result.cost_usd ?? 0;
      durations.push(result.duration_ms);
      const task = tasks.find((t) => t.id === result.id)!;
      const retrying =
        result.status === "error" &&
        (usedThisRun.get(task.id) ?? 0) < (task.attempts ?? DEFAULT_ATTEMPTS) &&
        !cancel.aborted;
      if (!retrying) counts[result.status]++;
      emit({ type: "finished", result, retrying });
      emit({ type: "progress", progress: progress() });
      return retrying;
    },
    emit,
  };

  const runner = options.runner ?? "local";
  if (owed.length > 0) {
    if (runner === "local") await (await import("./local.ts")).runLocal(host, owed);
    else await (await import("./slurm.ts")).runSlurm(host, owed);
  }
  // The tasks' workdirs are gone (each removed its own); their parent goes too once empty.
  try {
    rmdirSync(join(out, "work"));
  } catch {
    // still in use by a detached job, or never made
  }
  const report = collectReport(out, problems);
  report.jobs = host.jobs;
  if (!(runner === "slurm" && options.detach)) writeJsonAtomic(join(out, "summary.json"), report.summary);
  return report;
}

function readLines(file: string): AttemptResult[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .flatMap((line) => {
      try {
        return line.trim() ? [JSON.parse(line) as AttemptResult] : [];
      } catch {
        return [];
      }
    });
}

/** Each task's attempts (with results) from the files, and the summary over them. */
export function collectReport(out: string, problems: TaskProblem[] = []): BatchReport {
  const tasks = readTasksSnapshot(tasksSnapshot(out));
  const attempts = new Map(
    tasks.map((t) => [t.id, attemptsOf(out, t.id).flatMap((a) => (a.result ? [a.result] : []))]),
  );
  return {
    out,
    summary: summarize(
      tasks.map((t) => t.id),
      attempts,
    ),
    results: tasks.map((t) => attemptsOf(out, t.id).at(-1)?.result),
    problems,
    jobs: [],
  };
}
