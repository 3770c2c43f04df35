/**
 * `runBatch(tasks, options)`: the batch around the runners. It claims the out directory, writes the
 * checked tasks (line i = array index i), records attempts a killed batch left without a result,
 * launches exactly the tasks still owed on the chosen runner, appends every finished attempt to
 * `results.jsonl` (this process is its only writer) and writes `summary.json`.
 */
import { appendFileSync, existsSync, readFileSync, rmdirSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
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

/**
 * The gong command for run-one: the checkout's cli.ts under this Bun, the `gong` command of the npm
 * package this SDK was installed from (its code under dist/, the command in bin/), or the compiled
 * binary itself.
 */
export function defaultCommand(): string[] {
  const cli = fileURLToPath(new URL("../../cli.ts", import.meta.url));
  if (existsSync(cli)) return [process.versions.bun ? process.execPath : "bun", cli];
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    if (basename(dir) !== "dist") continue;
    const bin = join(dir, "..", "bin", "gong");
    if (existsSync(bin)) return [bin];
    break;
  }
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
  await claim(out, options);
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
  recoverResults(out, tasks, resultsFile, append);

  const last = new Map<string, AttemptResult | undefined>(
    tasks.map((t) => [t.id, attemptsOf(out, t.id).at(-1)?.result]),
  );
  const owed = tasks.flatMap((t, i) => (isOwed(last.get(t.id), Boolean(options.retryFailed)) ? [i] : []));
  emit({ type: "started", owed: owed.length, tasks: tasks.length });
  const host = new BatchHost(out, tasks, options, { owed, last, append, emit });
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

/** Takes the out directory for this batch; a Slurm job of it still queued or running is refused. */
async function claim(out: string, options: BatchOptions): Promise<void> {
  claimOutDir(out, options.source ?? "sdk");
  const stillQueued = existsSync(join(out, "slurm", "jobs"))
    ? await (await import("./slurm.ts")).jobsStillQueued(out, options.env ?? process.env)
    : [];
  if (stillQueued.length > 0)
    throw new OutDirError(
      `Slurm job ${stillQueued.join(", ")} of this batch is still running: wait for it (then 'gong batch collect ${out}') or cancel it with scancel.`,
    );
}

/** Results a killed batch never appended come first; attempts it left without a result are errors, owed again. */
function recoverResults(out: string, tasks: Task[], resultsFile: string, append: (r: AttemptResult) => void): void {
  const listed = new Set(readLines(resultsFile).map((r) => `${r.id}#${r.attempt}`));
  const unlisted = tasks.flatMap((t) =>
    attemptsOf(out, t.id).flatMap((a) => (a.result && !listed.has(`${t.id}#${a.attempt}`) ? [a.result] : [])),
  );
  for (const r of unlisted.sort((a, b) => a.finished_at.localeCompare(b.finished_at))) append(r);
  for (const task of tasks)
    for (const r of recordLostAttempts(out, task.id, 0, "its batch was stopped before it finished", "local", false))
      append(r);
}

interface Ledger {
  /** The indices of the tasks this run launches. */
  owed: number[];
  /** Each task's last attempt before this run. */
  last: Map<string, AttemptResult | undefined>;
  append(result: AttemptResult): void;
  emit(event: BatchEvent): void;
}

/** The batch as the runners see it: whether to launch, and the account of what runs, finished and cost. */
class BatchHost implements RunnerHost {
  readonly snapshot: string;
  readonly command: string[];
  readonly workers: number;
  readonly env: NodeJS.ProcessEnv;
  readonly stop: AbortSignal;
  readonly cancel: AbortSignal;
  readonly detach: boolean;
  readonly sbatchArgs: string[];
  readonly jobs: string[] = [];
  readonly emit: (event: BatchEvent) => void;
  private cost: number;
  private readonly usedThisRun = new Map<string, number>();
  private readonly counts: Record<TaskStatus, number> = {
    done: 0,
    failed: 0,
    error: 0,
    timeout: 0,
    cancelled: 0,
    skipped: 0,
  };
  private running = 0;
  private waiting: number | undefined;
  private readonly durations: number[] = [];
  private stoppedWhy: string | undefined;
  private readonly append: (result: AttemptResult) => void;

  constructor(
    readonly out: string,
    readonly tasks: Task[],
    private readonly options: BatchOptions,
    ledger: Ledger,
  ) {
    this.snapshot = tasksSnapshot(out);
    this.command = options.command ?? defaultCommand();
    this.workers = Math.max(1, options.workers ?? 4);
    this.env = options.env ?? process.env;
    this.stop = options.stop ?? new AbortController().signal;
    this.cancel = options.cancel ?? new AbortController().signal;
    this.detach = Boolean(options.detach);
    this.sbatchArgs = options.sbatchArgs ?? [];
    this.emit = ledger.emit;
    this.append = ledger.append;
    this.cost = tasks.reduce(
      (sum, t) => sum + attemptsOf(out, t.id).reduce((s, a) => s + (a.result?.cost_usd ?? 0), 0),
      0,
    );
    const owedIds = new Set(ledger.owed.map((i) => tasks[i].id));
    for (const [id, r] of ledger.last) if (r && !owedIds.has(id)) this.counts[r.status]++;
  }

  mayLaunch(): boolean {
    if (this.stoppedWhy) return false;
    const cap = this.options.maxTotalCostUsd;
    if (this.stop.aborted || this.cancel.aborted) this.stoppedWhy = "the batch was asked to stop";
    else if (cap !== undefined && this.cost >= cap) this.stoppedWhy = `the batch's cost cap ($${cap}) was reached`;
    if (this.stoppedWhy) this.emit({ type: "stopped_launching", reason: this.stoppedWhy });
    return !this.stoppedWhy;
  }

  launched(index: number): void {
    const id = this.tasks[index].id;
    this.usedThisRun.set(id, (this.usedThisRun.get(id) ?? 0) + 1);
    this.running++;
    this.emit({ type: "launched", id, index });
    this.emit({ type: "progress", progress: this.progress() });
  }

  observed(nowRunning: number, queued: number): void {
    if (nowRunning === this.running && queued === this.waiting) return;
    this.running = nowRunning;
    this.waiting = queued;
    this.emit({ type: "progress", progress: this.progress() });
  }

  finished(result: AttemptResult): boolean {
    this.append(result);
    this.running = Math.max(0, this.running - 1);
    this.cost += result.cost_usd ?? 0;
    this.durations.push(result.duration_ms);
    const task = this.tasks.find((t) => t.id === result.id)!;
    const retrying =
      result.status === "error" &&
      (this.usedThisRun.get(task.id) ?? 0) < (task.attempts ?? DEFAULT_ATTEMPTS) &&
      !this.cancel.aborted;
    if (!retrying) this.counts[result.status]++;
    this.emit({ type: "finished", result, retrying });
    this.emit({ type: "progress", progress: this.progress() });
    return retrying;
  }

  private progress(): Progress {
    const { counts, tasks, running } = this;
    const finishedNow = counts.done + counts.failed + counts.error + counts.timeout + counts.cancelled;
    const left = tasks.length - finishedNow - running;
    const mean = this.durations.length ? this.durations.reduce((a, b) => a + b, 0) / this.durations.length : undefined;
    return {
      tasks: tasks.length,
      done: counts.done,
      failed: counts.failed + counts.timeout,
      error: counts.error,
      running,
      queued: this.waiting ?? Math.max(0, left),
      cost_usd: Number(this.cost.toFixed(6)),
      eta_ms: mean === undefined ? undefined : Math.round((mean * (Math.max(0, left) + running)) / this.workers),
    };
  }
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
