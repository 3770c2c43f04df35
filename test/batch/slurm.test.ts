/**
 * `gong batch --runner slurm` on a private one-node Slurm (test/batch/slurm/start.sh: munged,
 * slurmctld, slurmd under a temp dir, stopped after). Skipped, with the reason, where Slurm is not
 * installed or cannot start.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { useWorkspace } from "../cli/helpers.ts";
import { tempDir } from "../helpers/temp.ts";
import { fakeModel, readResults, readSummary, resultOf, THREE_TURNS, waitFor, writeTasks } from "./helpers.ts";

const SCRIPTS = join(import.meta.dir, "slurm");
const cluster = tempDir("gong-slurm-");
const started = spawnSync(join(SCRIPTS, "start.sh"), [cluster.dir, "8"], { encoding: "utf8" });
const slurmConf = started.status === 0 ? started.stdout.trim() : undefined;
const reason = started.stderr?.trim() || started.error?.message || "start.sh failed";
// CI installs Slurm and sets GONG_REQUIRE_SLURM: there a Slurm that cannot start is a failure, not a skip.
if (!slurmConf && process.env.GONG_REQUIRE_SLURM) throw new Error(`Slurm could not start: ${reason}`);
if (!slurmConf) console.warn(`slurm tests skipped: ${reason}`);

afterAll(() => {
  spawnSync(join(SCRIPTS, "stop.sh"), [cluster.dir]);
  cluster.cleanup();
});

const ws = useWorkspace();

describe.skipIf(!slurmConf)("gong batch --runner slurm", () => {
  test("16 tasks on the local runner and on Slurm give the same results", async () => {
    mkdirSync(join(ws.dir, "project"));
    const model = fakeModel(ws.dir, "three", THREE_TURNS);
    const ids = Array.from({ length: 16 }, (_, i) => `t${String(i).padStart(2, "0")}`);
    writeTasks(
      join(ws.dir, "tasks.jsonl"),
      ids.map((id) => ({ id, prompt: `do ${id}`, workdir: "project" })),
    );
    const env = { SLURM_CONF: slurmConf! };
    const local = await ws.run(["batch", "tasks.jsonl", "--out", "local", "--workers", "8", "--model", model], { env });
    expect(local.code).toBe(0);
    // Another out dir of the same tasks file: the same batch.
    const slurm = await ws.run(
      ["batch", "tasks.jsonl", "--out", "slurm", "--runner", "slurm", "--workers", "8", "--model", model],
      { env },
    );
    expect(slurm.stderr).toMatch(/submitted Slurm job \d+ \(16 tasks\)/);
    expect(slurm.code).toBe(0);
    const view = (out: string) =>
      ids.map((id) => {
        const r = resultOf(join(ws.dir, out), id, 1)!;
        return {
          id,
          status: r.status,
          turns: r.turns,
          answer: r.answer,
          stop_reason: r.stop_reason,
          patch: readFileSync(r.patch_file ?? "/dev/null", "utf8"),
        };
      });
    expect(view("slurm")).toEqual(view("local"));
    for (const r of readResults(join(ws.dir, "slurm"))) {
      expect(r.runner.name).toBe("slurm");
      expect(r.runner.job_id).toMatch(/^\d+$/);
    }
    expect(readSummary(join(ws.dir, "slurm")).counts).toEqual(readSummary(join(ws.dir, "local")).counts);
  });

  test("on Slurm a task killed mid-run is retried in a new array of exactly the owed index", async () => {
    mkdirSync(join(ws.dir, "project"));
    const model = fakeModel(ws.dir, "killed", [
      {
        toolCalls: [
          {
            name: "bash",
            arguments: {
              command:
                'if [ "$GONG_BATCH_ATTEMPT" = 1 ]; then kill -KILL "$GONG_BATCH_PID"; sleep 30; fi; echo survived',
            },
          },
        ],
      },
      { text: "Done." },
    ]);
    const quick = fakeModel(ws.dir, "three", THREE_TURNS);
    writeTasks(join(ws.dir, "tasks.jsonl"), [
      { id: "ok", prompt: "go", workdir: "project", model: quick },
      { id: "victim", prompt: "go", workdir: "project", model },
    ]);
    const r = await ws.run(["batch", "tasks.jsonl", "--out", "out", "--runner", "slurm"], {
      env: { SLURM_CONF: slurmConf! },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/submitted Slurm job \d+ \(2 tasks\)/);
    expect(r.stderr).toMatch(/submitted Slurm job \d+ \(1 tasks\)/);
    const first = resultOf(join(ws.dir, "out"), "victim", 1)!;
    expect(first.status).toBe("error");
    expect(first.error).toContain("killed (exit 137)");
    expect(resultOf(join(ws.dir, "out"), "victim", 2)!.status).toBe("done");
    expect(resultOf(join(ws.dir, "out"), "ok", 2)).toBeUndefined();
  });

  test("--detach submits and returns; a second run waits for the job; collect gathers the results after", async () => {
    mkdirSync(join(ws.dir, "project"));
    const marks = join(ws.dir, "marks");
    mkdirSync(marks);
    const model = fakeModel(ws.dir, "blocking", [
      {
        toolCalls: [
          {
            name: "bash",
            arguments: {
              command: `touch ${marks}/$GONG_BATCH_TASK_ID.started; while [ ! -f ${marks}/release ]; do sleep 0.1; done`,
            },
          },
        ],
      },
      { text: "Done." },
    ]);
    writeTasks(join(ws.dir, "tasks.jsonl"), [
      { id: "a", prompt: "go", workdir: "project" },
      { id: "b", prompt: "go", workdir: "project" },
    ]);
    const env = { SLURM_CONF: slurmConf! };
    const r = await ws.run(
      ["batch", "tasks.jsonl", "--out", "out", "--runner", "slurm", "--detach", "--model", model],
      { env },
    );
    expect(r.code).toBe(0);
    const job = r.stdout.trim();
    expect(job).toMatch(/^\d+$/);
    await waitFor(
      "the array's tasks to start",
      () => existsSync(join(marks, "a.started")) && existsSync(join(marks, "b.started")),
    );
    const again = await ws.run(["batch", "tasks.jsonl", "--out", "out", "--runner", "slurm", "--model", model], {
      env,
    });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`Slurm job ${job} of this batch is still running`);
    writeFileSync(join(marks, "release"), "");
    await waitFor(
      "the job to leave the queue",
      () =>
        spawnSync("squeue", ["-h", "-j", job], { env: { ...process.env, ...env }, encoding: "utf8" }).stdout.trim() ===
        "",
      60_000,
    );
    const collected = await ws.run(["batch", "collect", "out"]);
    expect(collected.code).toBe(0);
    expect(collected.stdout).toContain("2 tasks: 2 done");
    expect(readResults(join(ws.dir, "out")).map((x) => x.runner.job_id)).toEqual([job, job]);
  });
});
