/**
 * A batch's out directory. Results are files: a task is finished exactly when its last attempt's
 * `result.json` exists, so resume and collect need nothing but the directory.
 *
 *   OUT/batch.json                      which batch wrote here (its tasks source)
 *   OUT/tasks.jsonl                     the checked tasks, one a line: line i is array index i
 *   OUT/tasks/<id>/attempt-<n>/         session.jsonl, patch.diff, stderr.log, result.json (last)
 *   OUT/results.jsonl, OUT/summary.json
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomicSync } from "../temp-files.ts";
import type { AttemptResult } from "./result.ts";
import type { Task } from "./task.ts";

export const BATCH_FORMAT = "gong-batch/1";

export interface BatchMeta {
  format: string;
  /** The tasks file (absolute) or the SDK caller's batch name: a second batch may not share the directory. */
  source: string;
  created_at: string;
}

/** Writes a file whole or not at all: the shared atomic write, whose temp files the sweeper knows. */
export function writeFileAtomic(path: string, text: string): void {
  writeFileAtomicSync(path, text);
}

export const writeJsonAtomic = (path: string, value: unknown) =>
  writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);

export class OutDirError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OutDirError";
  }
}

/** Claims OUT for a batch from `source`; refuses a directory another batch wrote. */
export function claimOutDir(out: string, source: string): BatchMeta {
  mkdirSync(out, { recursive: true });
  const file = join(out, "batch.json");
  if (existsSync(file)) {
    let meta: BatchMeta;
    try {
      meta = JSON.parse(readFileSync(file, "utf8")) as BatchMeta;
    } catch {
      throw new OutDirError(`${out}: batch.json is unreadable; use another --out directory.`);
    }
    if (meta.source !== source)
      throw new OutDirError(`${out} holds the results of another batch (${meta.source}); use another --out directory.`);
    return meta;
  }
  if (readdirSync(out).length > 0)
    throw new OutDirError(`${out} is not empty and holds no batch; use an empty or new --out directory.`);
  const meta: BatchMeta = { format: BATCH_FORMAT, source, created_at: new Date().toISOString() };
  writeJsonAtomic(file, meta);
  return meta;
}

export const tasksSnapshot = (out: string) => join(out, "tasks.jsonl");

export function writeTasksSnapshot(out: string, tasks: Task[]): void {
  writeFileAtomic(tasksSnapshot(out), tasks.map((t) => JSON.stringify(t)).join("\n") + (tasks.length ? "\n" : ""));
}

export function readTasksSnapshot(file: string): Task[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Task);
}

export const taskDir = (out: string, id: string) => join(out, "tasks", id);
export const attemptDir = (out: string, id: string, attempt: number) => join(taskDir(out, id), `attempt-${attempt}`);

/** The task's attempt numbers, ascending. */
export function attemptNumbers(out: string, id: string): number[] {
  let names: string[];
  try {
    names = readdirSync(taskDir(out, id));
  } catch {
    return [];
  }
  return names.flatMap((n) => (/^attempt-(\d+)$/.test(n) ? [Number(n.slice(8))] : [])).sort((a, b) => a - b);
}

/** Makes the next attempt's directory; mkdir is the claim, so two processes never share one. */
export function claimAttempt(out: string, id: string): { attempt: number; dir: string } {
  mkdirSync(taskDir(out, id), { recursive: true });
  for (let attempt = (attemptNumbers(out, id).at(-1) ?? 0) + 1; ; attempt++) {
    const dir = attemptDir(out, id, attempt);
    try {
      mkdirSync(dir);
      return { attempt, dir };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
  }
}

export function readResult(dir: string): AttemptResult | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, "result.json"), "utf8")) as AttemptResult;
  } catch {
    return undefined;
  }
}

/** Every attempt of the task: its number, directory and result (undefined while unfinished). */
export function attemptsOf(out: string, id: string): Array<{ attempt: number; dir: string; result?: AttemptResult }> {
  return attemptNumbers(out, id).map((attempt) => {
    const dir = attemptDir(out, id, attempt);
    return { attempt, dir, result: readResult(dir) };
  });
}
