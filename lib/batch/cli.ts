/**
 * `gong batch …`: run a tasks file, one task (`run-one`), rebuild results (`collect`), or write
 * SWE-bench predictions (`export`). Exit 0 when every task is done, 1 when any is not, 2 for usage.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { UsageError } from "../core/errors.ts";
import { runBatch, type collectReport, type RunnerName } from "./batch.ts";
import type { BatchEvent } from "./runner-host.ts";
import { exportSwebench, rebuildResults } from "./collect.ts";
import { OutDirError } from "./layout.ts";
import { runOne } from "./run-one.ts";
import { formatProblem, ISOLATIONS, parseDefaults, parseTasks, type Isolation, type TaskDefaults } from "./task.ts";
import { SANDBOX_MODES } from "../env/sandbox-profiles.ts";

export const BATCH_HELP = `gong batch — many tasks at once

Usage:
  gong batch TASKS.jsonl [--out DIR] [options]     run every task still owed (resume: run again)
  gong batch run-one TASKS.jsonl --index I --out DIR
                                                   one task (I from the flag, SLURM_ARRAY_TASK_ID,
                                                   JOB_COMPLETION_INDEX or AWS_BATCH_JOB_ARRAY_INDEX)
  gong batch collect DIR                           rebuild results.jsonl and summary.json
  gong batch export DIR --format swebench [-o F]   SWE-bench predictions (stdout by default)

Options:
      --out DIR                 results (default: TASKS without .jsonl, plus .out)
      --runner R                local (default) | slurm | k8s (writes an Indexed Job manifest)
      --workers K               tasks at once (Slurm: the array's %K; k8s: parallelism), default 4
      --defaults FILE           task fields every task gets unless it sets them (JSON object)
  -m, --model M / --profile P / --tools SET / --sandbox MODE / --isolation I   task defaults
      --max-turns N / --max-cost-usd X / --timeout S   per-task limits (defaults)
      --attempts N              launches per task per run that may end in an error (default 2)
      --max-total-cost-usd X    stop launching once the batch cost X US dollars
      --retry-failed            re-run failed and timed-out tasks too
      --detach                  slurm: submit and return (then: gong batch collect DIR)
      --sbatch-arg ARG          slurm: pass ARG to sbatch (repeatable)
      --image IMG               k8s: the container image holding gong
      --json                    print the summary as JSON on stdout
`;

/** The streams `gong batch` writes to (the command line's are one). */
export interface BatchIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

const RUN_OPTIONS = {
  out: { type: "string" },
  runner: { type: "string" },
  workers: { type: "string" },
  defaults: { type: "string" },
  model: { type: "string", short: "m" },
  profile: { type: "string" },
  tools: { type: "string" },
  sandbox: { type: "string" },
  isolation: { type: "string" },
  "max-turns": { type: "string" },
  "max-cost-usd": { type: "string" },
  timeout: { type: "string" },
  attempts: { type: "string" },
  "max-total-cost-usd": { type: "string" },
  "retry-failed": { type: "boolean" },
  detach: { type: "boolean" },
  "sbatch-arg": { type: "string", multiple: true },
  image: { type: "string" },
  namespace: { type: "string" },
  json: { type: "boolean" },
  index: { type: "string" },
  format: { type: "string" },
  output: { type: "string", short: "o" },
  help: { type: "boolean", short: "h" },
} as const;

function positive(name: string, value: string | undefined, integer = false): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n)))
    throw new UsageError(`--${name} must be a positive ${integer ? "integer" : "number"} (got '${value}').`);
  return n;
}

export async function runBatchCli(argv: string[], io: BatchIo): Promise<number> {
  let parsed: ReturnType<
    typeof parseArgs<{ args: string[]; options: typeof RUN_OPTIONS; allowPositionals: true; strict: true }>
  >;
  try {
    parsed = parseArgs({ args: argv, options: RUN_OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(
      `${(e as Error).message.replace(/\. To specify.*$/s, "")}. Run 'gong batch --help' for usage.`,
    );
  }
  const v = parsed.values;
  const [first, ...rest] = parsed.positionals;
  if (v.help || first === undefined) {
    io.stdout.write(BATCH_HELP);
    return first === undefined && !v.help ? 2 : 0;
  }
  try {
    if (first === "run-one") {
      if (rest.length !== 1 || !v.out)
        throw new UsageError("Usage: gong batch run-one TASKS.jsonl --index I --out DIR");
      if (v.index !== undefined && !/^\d+$/.test(v.index))
        throw new UsageError(`--index must be a task index 0, 1, … (got '${v.index}').`);
      return await runOne({
        tasksFile: rest[0],
        index: v.index === undefined ? undefined : Number(v.index),
        out: v.out,
      });
    }
    if (first === "collect") {
      if (rest.length !== 1) throw new UsageError("Usage: gong batch collect DIR");
      const report = rebuildResults(outDir(rest[0]));
      writeSummary(report.summary, Boolean(v.json), io);
      return report.summary.counts.done === report.summary.tasks ? 0 : 1;
    }
    if (first === "export") {
      if (rest.length !== 1) throw new UsageError("Usage: gong batch export DIR --format swebench [-o FILE]");
      if (v.format !== "swebench") throw new UsageError(`--format must be swebench (got '${v.format ?? ""}').`);
      const lines = exportSwebench(outDir(rest[0]));
      if (v.output) writeFileSync(v.output, lines);
      else io.stdout.write(lines);
      return 0;
    }
    if (rest.length > 0) throw new UsageError(`gong batch takes one tasks file (got ${[first, ...rest].join(" ")}).`);
    return await runTasksFile(first, v, io);
  } catch (e) {
    if (e instanceof OutDirError) throw new UsageError(e.message);
    throw e;
  }
}

function outDir(dir: string): string {
  const out = resolve(dir);
  if (!existsSync(join(out, "tasks.jsonl"))) throw new UsageError(`${dir} holds no batch (no tasks.jsonl).`);
  return out;
}

type Values = ReturnType<typeof parseArgs<{ options: typeof RUN_OPTIONS; allowPositionals: true }>>["values"];

function defaultsFrom(v: Values): TaskDefaults {
  const defaults: TaskDefaults = v.defaults ? readDefaults(v.defaults) : {};
  if (v.isolation !== undefined && !ISOLATIONS.includes(v.isolation as Isolation))
    throw new UsageError(`--isolation must be ${ISOLATIONS.join(", ")} (got '${v.isolation}').`);
  if (v.sandbox !== undefined && !(SANDBOX_MODES as readonly string[]).includes(v.sandbox))
    throw new UsageError(`--sandbox must be ${SANDBOX_MODES.join(", ")} (got '${v.sandbox}').`);
  const set = <K extends keyof TaskDefaults>(key: K, value: TaskDefaults[K] | undefined) => {
    if (value !== undefined) defaults[key] = value;
  };
  set("model", v.model);
  set("profile", v.profile);
  set("tools", v.tools);
  set("sandbox", v.sandbox);
  set("isolation", v.isolation as Isolation | undefined);
  set("attempts", positive("attempts", v.attempts, true));
  const limits = {
    ...defaults.limits,
    ...(v["max-turns"] !== undefined ? { max_turns: positive("max-turns", v["max-turns"], true) } : {}),
    ...(v["max-cost-usd"] !== undefined ? { max_cost_usd: positive("max-cost-usd", v["max-cost-usd"]) } : {}),
    ...(v.timeout !== undefined ? { timeout_s: positive("timeout", v.timeout) } : {}),
  };
  if (Object.keys(limits).length > 0) defaults.limits = limits;
  return defaults;
}

function readDefaults(file: string): TaskDefaults {
  try {
    return parseDefaults(readFileSync(file, "utf8"), file);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

async function runTasksFile(file: string, v: Values, io: BatchIo): Promise<number> {
  const path = resolve(file);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new UsageError(`Cannot read the tasks file ${file}: ${(e as Error).message}`);
  }
  const runner = (v.runner ?? "local") as RunnerName | "k8s";
  if (!["local", "slurm", "k8s"].includes(runner))
    throw new UsageError(`--runner must be local, slurm or k8s (got '${v.runner}').`);
  const workers = positive("workers", v.workers, true) ?? 4;
  const defaults = defaultsFrom(v);
  const parsed = parseTasks(text);
  const out = resolve(v.out ?? join(dirname(path), `${basename(path).replace(/\.jsonl?$/, "")}.out`));
  const say = (line: string) => io.stderr.write(`gong: ${line}\n`);
  for (const p of parsed.problems) say(formatProblem(p, file));
  if (runner === "k8s") {
    await writeManifest(path, parsed.tasks, defaults, workers, v, io);
    return parsed.problems.length > 0 ? 1 : 0;
  }
  const signals = stopSignals(say);
  const progress = progressLines(io, say);
  try {
    const report = await runBatch(parsed.tasks, {
      out,
      runner,
      workers,
      retryFailed: Boolean(v["retry-failed"]),
      maxTotalCostUsd: positive("max-total-cost-usd", v["max-total-cost-usd"]),
      defaults,
      source: path,
      detach: Boolean(v.detach),
      sbatchArgs: v["sbatch-arg"] ?? [],
      stop: signals.stop,
      cancel: signals.cancel,
      onEvent: progress.onEvent,
    });
    progress.end();
    if (runner === "slurm" && v.detach) {
      io.stdout.write(`${report.jobs.join("\n")}\n`);
      return 0;
    }
    writeSummary(report.summary, Boolean(v.json), io);
    return report.summary.counts.done === report.summary.tasks && parsed.problems.length === 0 ? 0 : 1;
  } finally {
    signals.release();
  }
}

/** `--runner k8s`: the Indexed Job manifest for the tasks, on stdout or to -o FILE. */
async function writeManifest(
  path: string,
  input: readonly unknown[],
  defaults: TaskDefaults,
  workers: number,
  v: Values,
  io: BatchIo,
): Promise<void> {
  if (!v.image) throw new UsageError("--runner k8s needs --image IMAGE (a container image with gong in it).");
  const { k8sManifest } = await import("./k8s.ts");
  const { checkTasks } = await import("./task.ts");
  const tasks = checkTasks(
    input.map((value, i) => ({ line: i + 1, value })),
    defaults,
  ).tasks;
  const manifest = k8sManifest(tasks, {
    name: basename(path).replace(/\.jsonl?$/, ""),
    image: v.image,
    workers,
    namespace: v.namespace,
  });
  if (v.output) writeFileSync(v.output, manifest);
  else io.stdout.write(manifest);
}

/** Ctrl-C stops launching (a second one cancels the running tasks); SIGTERM and SIGHUP do both at once. */
function stopSignals(say: (line: string) => void): { stop: AbortSignal; cancel: AbortSignal; release(): void } {
  const stop = new AbortController();
  const cancel = new AbortController();
  const onInterrupt = () => {
    if (!stop.signal.aborted) {
      say("stopping: no new tasks start, running ones finish (Ctrl-C again cancels them)");
      stop.abort();
    } else cancel.abort();
  };
  const onTerminate = () => {
    stop.abort();
    cancel.abort();
  };
  process.on("SIGINT", onInterrupt);
  process.on("SIGTERM", onTerminate);
  process.on("SIGHUP", onTerminate);
  return {
    stop: stop.signal,
    cancel: cancel.signal,
    release() {
      process.off("SIGINT", onInterrupt);
      process.off("SIGTERM", onTerminate);
      process.off("SIGHUP", onTerminate);
    },
  };
}

/** What the batch tells while it runs: a task that did not finish done, and one progress line (redrawn on a terminal). */
function progressLines(io: BatchIo, say: (line: string) => void): { onEvent(e: BatchEvent): void; end(): void } {
  const tty = Boolean(io.stderr.isTTY);
  let lastProgress = "";
  const onEvent = (e: BatchEvent) => {
    if (e.type === "finished" && e.result.status !== "done") {
      if (tty && lastProgress) io.stderr.write("\r\x1b[K");
      say(
        `task ${e.result.id} (attempt ${e.result.attempt}): ${e.result.status}${e.result.error ? `: ${e.result.error}` : ""}${e.retrying ? " — retrying" : ""}`,
      );
    } else if (e.type === "stopped_launching") say(`no new tasks start: ${e.reason}`);
    else if (e.type === "submitted") say(`submitted Slurm job ${e.job_id} (${e.indices.length} tasks)`);
    else if (e.type === "progress") {
      const p = e.progress;
      const eta = p.eta_ms === undefined ? "" : ` · ETA ${Math.ceil(p.eta_ms / 1000)} s`;
      const line = `batch: ${p.done + p.failed + p.error}/${p.tasks} · done ${p.done} · running ${p.running} · failed ${p.failed} · error ${p.error} · $${p.cost_usd.toFixed(4)}${eta}`;
      if (line === lastProgress) return;
      lastProgress = line;
      if (tty) io.stderr.write(`\r\x1b[K${line}`);
    }
  };
  return {
    onEvent,
    end() {
      if (tty && lastProgress) io.stderr.write("\n");
      else if (lastProgress) say(lastProgress);
    },
  };
}

function writeSummary(summary: ReturnType<typeof collectReport>["summary"], json: boolean, io: BatchIo): void {
  if (json) {
    io.stdout.write(`${JSON.stringify(summary)}\n`);
    return;
  }
  const c = summary.counts;
  io.stdout.write(
    `${summary.tasks} tasks: ${c.done} done, ${c.failed} failed, ${c.error} error, ${c.timeout} timeout, ${c.cancelled} cancelled, ${c.skipped} skipped · ` +
      `${summary.attempts} attempts · $${summary.cost_usd.toFixed(4)} · ${(summary.wall_ms / 1000).toFixed(1)} s\n`,
  );
}
