/**
 * The Slurm runner: the tasks still owed go out as one job array (`sbatch --array=i,j,…%K`), each
 * element running `gong batch run-one` with its index from SLURM_ARRAY_TASK_ID and its own TMPDIR.
 * Progress comes from the result files and `squeue`; when the array has left the queue, elements
 * that ended without a result (killed: 137/143, node lost, never started) are infrastructure errors,
 * and those with attempts left go out again in a new array. Stopping cancels the job (`scancel`).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RunnerHost } from "./runner-host.ts";
import { lastLine, run } from "./exec.ts";
import { attemptNumbers, attemptsOf, writeFileAtomic } from "./layout.ts";
import { recordLostAttempts } from "./outcome.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The array job's script: run-one with the index Slurm gives, its exit code kept for the runner. */
export function jobScript(host: Pick<RunnerHost, "command" | "snapshot" | "out">): string {
  const dir = join(host.out, "slurm");
  const command = [...host.command, "batch", "run-one", host.snapshot, "--out", host.out].map(quote).join(" ");
  return `#!/bin/sh
# gong batch: one array element = one task (index \${SLURM_ARRAY_TASK_ID}).
export GONG_BATCH_RUNNER=slurm
export TMPDIR=${quote(join(host.out, "tmp"))}/"\${SLURM_ARRAY_JOB_ID}_\${SLURM_ARRAY_TASK_ID}"
mkdir -p "$TMPDIR"
${command}
code=$?
echo "$code" > ${quote(join(dir, "exit"))}/"\${SLURM_ARRAY_JOB_ID}_\${SLURM_ARRAY_TASK_ID}"
rm -rf "$TMPDIR"
exit "$code"
`;
}

async function submit(host: RunnerHost, indices: number[]): Promise<string> {
  const dir = join(host.out, "slurm");
  mkdirSync(join(dir, "exit"), { recursive: true });
  mkdirSync(join(dir, "logs"), { recursive: true });
  const script = join(dir, "job.sh");
  writeFileAtomic(script, jobScript(host));
  const args = [
    "--parsable",
    `--array=${indices.join(",")}%${host.workers}`,
    "--job-name=gong-batch",
    `--output=${join(dir, "logs", "%A_%a.log")}`,
    ...host.sbatchArgs,
    script,
  ];
  const r = await run("sbatch", args, { env: host.env });
  if (r.code !== 0) throw new Error(`sbatch failed: ${lastLine(r.stderr) || `exit ${r.code}`}`);
  const id = r.stdout.trim().split(";")[0];
  host.jobs.push(id);
  writeFileSync(join(dir, "jobs"), `${host.jobs.join("\n")}\n`);
  host.emit({ type: "submitted", job_id: id, indices });
  return id;
}

/** Jobs of an earlier `--detach` run of this batch still in the queue: a second run must not race them. */
export async function jobsStillQueued(out: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  let ids: string[];
  try {
    ids = readFileSync(join(out, "slurm", "jobs"), "utf8")
      .split("\n")
      .filter(Boolean);
  } catch {
    return [];
  }
  const queued: string[] = [];
  for (const id of ids) {
    const r = await run("squeue", ["-h", "-r", "-j", id, "-o", "%i"], { env });
    if (r.code === 0 && r.stdout.trim() !== "") queued.push(id);
  }
  return queued;
}

/** Array elements of the job still pending or running; 0 once it left the queue. */
async function inQueue(host: RunnerHost, id: string): Promise<{ running: number; queued: number }> {
  const r = await run("squeue", ["-h", "-r", "-j", id, "-o", "%t"], { env: host.env });
  if (r.code !== 0) return { running: 0, queued: 0 };
  const states = r.stdout
    .split("\n")
    .map((s) => s.trim())
    .filter(Boolean);
  return {
    running: states.filter((s) => s === "R" || s === "CG").length,
    queued: states.filter((s) => s === "PD").length,
  };
}

export async function runSlurm(host: RunnerHost, owed: number[]): Promise<void> {
  let round = owed.filter(() => host.mayLaunch());
  while (round.length > 0) {
    const before = new Map(round.map((i) => [i, attemptNumbers(host.out, host.tasks[i].id).at(-1) ?? 0]));
    const id = await submit(host, round);
    for (const i of round) host.launched(i);
    if (host.detach) return;
    const seen = new Set<string>();
    const again: number[] = [];
    const collect = () => {
      for (const i of round) {
        const task = host.tasks[i];
        for (const a of attemptsOf(host.out, task.id)) {
          const key = `${task.id}/${a.attempt}`;
          if (a.attempt <= before.get(i)! || !a.result || seen.has(key)) continue;
          seen.add(key);
          if (host.finished(a.result)) again.push(i);
        }
      }
    };
    let cancelled = false;
    for (;;) {
      if (!cancelled && (host.cancel.aborted || host.stop.aborted)) {
        // Slurm cannot stop launching alone: the pending elements go with the job.
        cancelled = true;
        await run("scancel", host.cancel.aborted ? [id] : ["--state=PENDING", id], { env: host.env });
      }
      collect();
      const q = await inQueue(host, id);
      if (q.running + q.queued === 0) break;
      host.observed(q.running, q.queued);
      await sleep(500);
    }
    collect();
    // Elements that left the queue without a result: killed, lost, or never started.
    for (const i of round) {
      const task = host.tasks[i];
      const exitFile = join(host.out, "slurm", "exit", `${id}_${i}`);
      let reason = "the Slurm job ended before the task wrote a result";
      try {
        const code = Number(readFileSync(exitFile, "utf8").trim());
        reason =
          code === 137 || code === 143 ? `killed (exit ${code})` : `run-one exited with ${code} without a result`;
      } catch {
        // no exit file: the element never ran or its node was lost
      }
      const started = attemptNumbers(host.out, task.id).some((n) => n > before.get(i)!);
      // An element the stop cancelled before it started was never launched: it stays owed, not failed.
      if (!started && (host.cancel.aborted || host.stop.aborted)) continue;
      for (const r of recordLostAttempts(host.out, task.id, before.get(i)!, reason, "slurm", true)) {
        seen.add(`${task.id}/${r.attempt}`);
        if (host.finished(r)) again.push(i);
      }
    }
    round = [...new Set(again)].filter(() => host.mayLaunch());
  }
}
