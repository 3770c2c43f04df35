/**
 * `gong batch run-one TASKS --index I --out DIR`: one task, the same under every runner. It claims
 * the next attempt directory, prepares the workdir, runs `setup`, runs the session under the task's
 * limits and writes `session.jsonl`, `patch.diff`, `stderr.log` and — last, atomically —
 * `result.json`. Exit 0 done, 1 failed or timed out, 75 an infrastructure error worth retrying.
 */
import { createWriteStream, existsSync, readFileSync, renameSync, writeFileSync, type WriteStream } from "node:fs";
import { hostname } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { SessionEvent } from "../agent/index.ts";
import { UsageError } from "../core/errors.ts";
import type { SessionFlags } from "../core/flags.ts";
import { resultRecord, resultUsage, runHeadless, type ResultRecord } from "../core/outcome.ts";
import { openSession, storeFor } from "../core/open.ts";
import { prepareSession, type SessionSetup } from "../core/prepare.ts";
import { lastLine, run } from "./exec.ts";
import { patchAgainst, prepareWorkdir, TaskInputError, type Workdir } from "./isolation.ts";
import { claimAttempt, writeJsonAtomic } from "./layout.ts";
import { RUN_ONE_EXIT, zeroUsage, type AttemptResult, type RunnerInfo, type TaskStatus } from "./result.ts";
import { parseTasks, type Task } from "./task.ts";

/** Where engines put the array index. */
const INDEX_VARIABLES = ["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"];

/** Model errors that are the provider's trouble, not the task's: retried as infrastructure errors. */
const INFRA_ERRORS = new Set(["rate_limit", "overloaded", "network", "timeout", "server"]);

export interface RunOneOptions {
  tasksFile: string;
  index?: number;
  out: string;
  env?: NodeJS.ProcessEnv;
}

export function taskIndex(flag: number | undefined, env: NodeJS.ProcessEnv): number {
  if (flag !== undefined) return flag;
  for (const name of INDEX_VARIABLES) {
    const value = env[name];
    if (value !== undefined && /^\d+$/.test(value)) return Number(value);
  }
  throw new UsageError(`run-one needs --index I (or ${INDEX_VARIABLES.join(", ")} in the environment).`);
}

export function runnerInfo(env: NodeJS.ProcessEnv): RunnerInfo {
  const base = { host: hostname(), pid: process.pid };
  // The local runner says so itself: a local batch inside a Slurm allocation is still local.
  if (env.GONG_BATCH_RUNNER === "local") return { name: "local", ...base };
  if (env.SLURM_ARRAY_JOB_ID || env.SLURM_JOB_ID) {
    return {
      name: "slurm",
      ...base,
      job_id: env.SLURM_ARRAY_JOB_ID ?? env.SLURM_JOB_ID,
      array_index: env.SLURM_ARRAY_TASK_ID ? Number(env.SLURM_ARRAY_TASK_ID) : undefined,
    };
  }
  if (env.JOB_COMPLETION_INDEX !== undefined)
    return { name: "k8s", ...base, job_id: env.GONG_BATCH_JOB, array_index: Number(env.JOB_COMPLETION_INDEX) };
  return { name: "direct", ...base };
}

export async function runOne(options: RunOneOptions): Promise<number> {
  const env = options.env ?? process.env;
  const tasksFile = resolve(options.tasksFile);
  const out = resolve(options.out);
  const index = taskIndex(options.index, env);
  let text: string;
  try {
    text = readFileSync(tasksFile, "utf8");
  } catch (e) {
    throw new UsageError(`Cannot read the tasks file ${tasksFile}: ${(e as Error).message}`);
  }
  const { tasks } = parseTasks(text);
  const task = tasks[index];
  if (!task) throw new UsageError(`${tasksFile} has no task at index ${index} (${tasks.length} valid tasks).`);
  const { attempt, dir } = claimAttempt(out, task.id);
  return await new Attempt(task, attempt, dir, out, dirname(tasksFile), runnerInfo(env)).run();
}

export function exitCodeFor(status: TaskStatus): number {
  if (status === "done") return RUN_ONE_EXIT.done;
  if (status === "error") return RUN_ONE_EXIT.error;
  if (status === "cancelled") return RUN_ONE_EXIT.cancelled;
  return RUN_ONE_EXIT.failed;
}

/** One attempt of one task, from the claimed directory to its result file. */
class Attempt {
  private readonly stop = new AbortController();
  private why: "timeout" | "cancelled" | undefined;
  private readonly log: WriteStream;
  private readonly started = new Date();

  constructor(
    private readonly task: Task,
    private readonly attempt: number,
    private readonly dir: string,
    private readonly out: string,
    private readonly base: string,
    private readonly runner: RunnerInfo,
  ) {
    this.log = createWriteStream(join(dir, "stderr.log"));
  }

  private end(why: "timeout" | "cancelled", line: string): void {
    if (this.why) return;
    this.why = why;
    this.log.write(`gong: ${line}\n`);
    this.stop.abort(new Error(line));
  }

  async run(): Promise<number> {
    const onSignal = (signal: string) => this.end("cancelled", `received ${signal}: the attempt is cancelled`);
    const signals = ["SIGTERM", "SIGINT", "SIGHUP"] as const;
    for (const s of signals) process.on(s, onSignal);
    // The local runner holds our stdin open: when it closes, the batch is gone (even by SIGKILL), so stop too.
    const watchParent = process.env.GONG_BATCH_RUNNER === "local";
    const onParentGone = () =>
      this.end("cancelled", "the batch that launched this task ended: the attempt is cancelled");
    if (watchParent) {
      process.stdin.on("end", onParentGone).on("close", onParentGone).on("error", onParentGone);
      process.stdin.resume();
    }
    const timeoutS = this.task.limits?.timeout_s;
    const timer = timeoutS
      ? setTimeout(
          () => this.end("timeout", `the task's timeout (${timeoutS} s) passed: the session is stopped`),
          timeoutS * 1000,
        )
      : undefined;
    let result: AttemptResult;
    try {
      result = await this.attemptResult();
    } finally {
      clearTimeout(timer);
      for (const s of signals) process.off(s, onSignal);
      if (watchParent)
        process.stdin.off("end", onParentGone).off("close", onParentGone).off("error", onParentGone).pause();
    }
    await new Promise<void>((r) => this.log.end(r));
    writeJsonAtomic(join(this.dir, "result.json"), result);
    return result.exit_code;
  }

  private blank(status: TaskStatus, error: string): AttemptResult {
    return {
      kind: "result",
      id: this.task.id,
      attempt: this.attempt,
      status,
      is_error: true,
      error,
      turns: 0,
      usage: resultUsage(zeroUsage()),
      cost_usd: 0,
      duration_ms: Date.now() - this.started.getTime(),
      session_saved: false,
      exit_code: exitCodeFor(status),
      runner: this.runner,
      started_at: this.started.toISOString(),
      finished_at: new Date().toISOString(),
    };
  }

  private async attemptResult(): Promise<AttemptResult> {
    let workdir: Workdir;
    try {
      workdir = await prepareWorkdir(
        this.task,
        this.base,
        join(this.out, "work", `${this.task.id}.${this.attempt}`),
        undefined,
        this.out,
      );
    } catch (e) {
      const message = `cannot prepare the workdir: ${(e as Error).message}`;
      this.log.write(`gong: ${message}\n`);
      return this.blank(e instanceof TaskInputError ? "failed" : "error", message);
    }
    try {
      const result = await this.inWorkdir(workdir);
      if (workdir.base && (result.status === "done" || result.status === "failed" || result.status === "timeout")) {
        try {
          const patch = await patchAgainst(workdir.dir, workdir.base, join(this.dir, ".patch-index"));
          writeFileSync(join(this.dir, "patch.diff"), patch);
          result.patch_file = join(this.dir, "patch.diff");
        } catch (e) {
          this.log.write(`gong: the patch could not be taken: ${(e as Error).message}\n`);
        }
      }
      // The attempt's whole time (workdir, setup, session, patch), not the session's alone.
      const finished = new Date();
      result.finished_at = finished.toISOString();
      result.duration_ms = finished.getTime() - this.started.getTime();
      return result;
    } finally {
      await workdir
        .dispose()
        .catch((e) => this.log.write(`gong: the workdir could not be removed: ${(e as Error).message}\n`));
    }
  }

  private taskEnv(): NodeJS.ProcessEnv {
    return {
      ...this.task.env,
      GONG_BATCH_TASK_ID: this.task.id,
      GONG_BATCH_ATTEMPT: String(this.attempt),
      GONG_BATCH_PID: String(process.pid),
    };
  }

  private async inWorkdir(workdir: Workdir): Promise<AttemptResult> {
    // The session's commands see the task's variables: this process runs this one task.
    Object.assign(process.env, this.taskEnv());
    if (this.task.setup) {
      const setup = await run("sh", ["-c", this.task.setup], { cwd: workdir.dir, signal: this.stop.signal });
      this.log.write(setup.stdout + setup.stderr);
      if (this.why) return this.blank(this.why, `stopped during setup (${this.why})`);
      if (setup.code !== 0)
        return this.blank(
          "failed",
          `setup exited with ${setup.code}${lastLine(setup.stderr) ? `: ${lastLine(setup.stderr)}` : ""}`,
        );
    }
    if (this.why) return this.blank(this.why, `stopped before the session (${this.why})`);
    return await this.session(workdir.dir);
  }

  /** The task's fields as session flags: the value gong's own command line maps its flags onto. */
  private flags(): SessionFlags {
    const t = this.task;
    return {
      model: t.model,
      profile: t.profile,
      tools: t.tools,
      sandbox: t.sandbox as SessionFlags["sandbox"],
      maxTurns: t.limits?.max_turns,
      maxCostUsd: t.limits?.max_cost_usd,
      // Written in the attempt's directory, then kept as its session.jsonl.
      session: { kind: "new", dir: this.dir },
    };
  }

  /** The task's prompt run headless, as `gong -p --output-format json` runs one, in the workdir. */
  private async session(cwd: string): Promise<AttemptResult> {
    const write = (line: string) => void this.log.write(`${line}\n`);
    let setup: SessionSetup;
    try {
      setup = await prepareSession({ cwd, flags: this.flags(), env: process.env, warn: write });
    } catch (e) {
      return this.blank("failed", (e as Error).message);
    }
    const onStop = () => setup.terminate(String(this.stop.signal.reason?.message ?? "stopped"));
    this.stop.signal.addEventListener("abort", onStop, { once: true });
    let errorKind: string | undefined;
    let record: ResultRecord;
    let sessionFile: string | undefined;
    try {
      const store = storeFor(setup);
      const session = await openSession(setup, store);
      sessionFile = store.path;
      const unsubscribe = session.subscribe((event: SessionEvent) => {
        if (event.kind === "error" && event.agent_id === undefined)
          errorKind = String((event.data as { kind?: string }).kind);
      });
      try {
        const done = await runHeadless(session, this.task.prompt, {
          stops: [setup.terminated],
          verbose: false,
          warn: write,
        });
        record = resultRecord(session, done);
        if (done.failure) write(`gong: ${done.failure}`);
      } finally {
        unsubscribe();
        await session.close();
        store.close();
      }
    } catch (e) {
      return this.blank("error", `the session could not run: ${(e as Error).message}`);
    } finally {
      this.stop.signal.removeEventListener("abort", onStop);
      await setup.dispose();
    }
    return this.settled(record, errorKind, sessionFile);
  }

  /** The attempt's result from the run's record: its status, the session file kept beside it. */
  private settled(record: ResultRecord, errorKind: string | undefined, sessionFile: string | undefined): AttemptResult {
    const saved = join(this.dir, "session.jsonl");
    if (sessionFile && existsSync(sessionFile)) renameSync(sessionFile, saved);
    const status: TaskStatus =
      this.why ??
      (!record.is_error
        ? "done"
        : record.stop_reason === "error" && errorKind && INFRA_ERRORS.has(errorKind)
          ? "error"
          : "failed");
    return {
      ...this.blank(status, ""),
      ...record,
      kind: "result",
      id: this.task.id,
      attempt: this.attempt,
      status,
      is_error: status !== "done",
      error:
        status === "timeout"
          ? `timed out after ${this.task.limits?.timeout_s} s`
          : status === "cancelled"
            ? "cancelled"
            : record.error,
      session_file: existsSync(saved) ? saved : undefined,
      session_saved: existsSync(saved),
      exit_code: exitCodeFor(status),
    };
  }
}
