/**
 * What the batch and its runners say to each other: the host a runner launches tasks through and
 * reports back to, and the events the batch tells its caller. Its own module, so the runners
 * (local.ts, slurm.ts), which batch.ts loads on demand, do not import batch.ts back.
 */
import type { AttemptResult } from "./result.ts";
import type { Task, TaskProblem } from "./task.ts";

export type BatchEvent =
  | { type: "problem"; problem: TaskProblem }
  | { type: "started"; owed: number; tasks: number }
  | { type: "launched"; id: string; index: number }
  | { type: "finished"; result: AttemptResult; retrying: boolean }
  | { type: "progress"; progress: Progress }
  | { type: "stopped_launching"; reason: string }
  | { type: "submitted"; job_id: string; indices: number[] };

export interface Progress {
  tasks: number;
  done: number;
  failed: number;
  error: number;
  running: number;
  queued: number;
  cost_usd: number;
  /** Estimated milliseconds left, from the mean duration so far and the workers; undefined before a task finished. */
  eta_ms?: number;
}

/** How the runners report back. */
export interface RunnerHost {
  out: string;
  snapshot: string;
  tasks: Task[];
  command: string[];
  workers: number;
  env: NodeJS.ProcessEnv;
  stop: AbortSignal;
  cancel: AbortSignal;
  /** False once launching must stop (stop signal, the total cost cap). */
  mayLaunch(): boolean;
  launched(index: number): void;
  /** What the engine says is running and waiting (Slurm: squeue), when it knows better than the launches. */
  observed(running: number, queued: number): void;
  /** Records a finished attempt; true when the task should run again (an error with attempts left). */
  finished(result: AttemptResult): boolean;
  emit(event: BatchEvent): void;
  detach: boolean;
  sbatchArgs: string[];
  jobs: string[];
}
