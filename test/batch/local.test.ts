/**
 * `gong batch` on the local runner, end to end: real `gong` processes (bun cli.ts) running the
 * scripted model, real git, real signals.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { CLI, useWorkspace } from "../cli/helpers.ts";
import {
  alive,
  attemptCount,
  bashTurn,
  fakeModel,
  gitRepo,
  readResults,
  readSummary,
  resultOf,
  THREE_TURNS,
  waitFor,
  writeTasks,
} from "./helpers.ts";

const ws = useWorkspace();

function project(): string {
  const dir = join(ws.dir, "project");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "README"), "a project\n");
  return dir;
}

describe("gong batch (local runner)", () => {
  test("16 tasks on the local runner: each done in its own copy, one result line each, summary counts", async () => {
    project();
    const model = fakeModel(ws.dir, "three", THREE_TURNS);
    const ids = Array.from({ length: 16 }, (_, i) => `task-${String(i).padStart(2, "0")}`);
    writeTasks(
      join(ws.dir, "tasks.jsonl"),
      ids.map((id) => ({ id, prompt: `do ${id}`, workdir: "project" })),
    );
    const r = await ws.run(["batch", "tasks.jsonl", "--out", "out", "--workers", "4", "--model", model]);
    expect(r.stderr).not.toContain("task-");
    expect(r.code).toBe(0);
    const out = join(ws.dir, "out");
    const results = readResults(out);
    expect(results.map((x) => x.id).sort()).toEqual(ids);
    for (const result of results) {
      expect(result.status).toBe("done");
      expect(result.attempt).toBe(1);
      expect(result.turns).toBe(3);
      expect(result.runner.name).toBe("local");
      // Each task wrote only its own file, in its own copy: the shared project is untouched.
      const session = readFileSync(result.session_file!, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(session.length).toBeGreaterThan(3);
    }
    expect(existsSync(join(ws.dir, "project", "out-task-00.txt"))).toBe(false);
    const summary = readSummary(out);
    expect(summary.counts).toEqual({ done: 16, failed: 0, error: 0, timeout: 0, cancelled: 0, skipped: 0 });
    expect(summary.attempts).toBe(16);
    expect(summary.retries).toBe(0);
    expect(r.stdout).toContain("16 tasks: 16 done");
  });

  test("issue 37 defect 11: outside a git repository, with the default out folder inside the folder copied, every task is done in its own copy", async () => {
    // The tasks file and its default out folder (tasks.out) sit in the folder the tasks work on.
    writeFileSync(join(ws.dir, "README"), "a project\n");
    mkdirSync(join(ws.dir, "sub"));
    writeFileSync(join(ws.dir, "sub", "notes.txt"), "kept\n");
    const model = fakeModel(ws.home, "three", THREE_TURNS);
    writeTasks(join(ws.dir, "tasks.jsonl"), [
      { id: "a", prompt: "do a" },
      { id: "b", prompt: "do b" },
    ]);
    const r = await ws.run(["batch", "tasks.jsonl", "--workers", "2", "--model", model]);
    expect(r.code).toBe(0);
    const out = join(ws.dir, "tasks.out");
    const results = readResults(out);
    expect(results.map((x) => [x.id, x.status]).sort()).toEqual([
      ["a", "done"],
      ["b", "done"],
    ]);
    expect(readSummary(out).counts.done).toBe(2);
    // The tasks worked in copies: the folder itself is untouched.
    expect(existsSync(join(ws.dir, "out-a.txt"))).toBe(false);
  });

  test("worktree isolation: parallel tasks on one repo each get a detached worktree; the patch holds the new file; worktrees are removed", async () => {
    const repo = join(ws.dir, "repo");
    mkdirSync(repo);
    gitRepo(repo, { "a.txt": "a\n" });
    const model = fakeModel(ws.dir, "three", THREE_TURNS);
    const ids = Array.from({ length: 8 }, (_, i) => `w${i}`);
    writeTasks(
      join(ws.dir, "tasks.jsonl"),
      ids.map((id) => ({ id, prompt: "go", repo: "repo" })),
    );
    const r = await ws.run(["batch", "tasks.jsonl", "--out", "out", "--workers", "8", "--model", model]);
    expect(r.code).toBe(0);
    for (const id of ids) {
      const result = resultOf(join(ws.dir, "out"), id, 1)!;
      expect(result.status).toBe("done");
      const patch = readFileSync(result.patch_file!, "utf8");
      expect(patch).toContain(`+++ b/out-${id}.txt`);
      expect(patch).toContain(`+${id}`);
    }
    const list = spawnSync("git", ["worktree", "list"], { cwd: repo, encoding: "utf8" }).stdout.trim().split("\n");
    expect(list).toHaveLength(1);
    expect(existsSync(join(repo, "out-w0.txt"))).toBe(false);
  });

  test("a task killed mid-run is retried and its first attempt recorded as an error", async () => {
    project();
    // The first attempt's command kills its own run-one process (as an engine would: SIGKILL); the second runs through.
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
    writeTasks(join(ws.dir, "tasks.jsonl"), [
      { id: "victim", prompt: "go", workdir: "project" },
      { id: "bystander", prompt: "go", workdir: "project", model: fakeModel(ws.dir, "three", THREE_TURNS) },
    ]);
    const r = await ws.run(["batch", "tasks.jsonl", "--out", "out", "--model", model]);
    expect(r.code).toBe(0);
    const out = join(ws.dir, "out");
    const first = resultOf(out, "victim", 1)!;
    expect(first.status).toBe("error");
    expect(first.error).toContain("killed by SIGKILL");
    expect(resultOf(out, "victim", 2)!.status).toBe("done");
    expect(r.stderr).toContain("task victim (attempt 1): error");
    expect(r.stderr).toContain("retrying");
    const results = readResults(out);
    expect(results.filter((x) => x.id === "victim").map((x) => [x.attempt, x.status])).toEqual([
      [1, "error"],
      [2, "done"],
    ]);
    const summary = readSummary(out);
    expect(summary.counts.done).toBe(2);
    expect(summary.attempts).toBe(3);
    expect(summary.retries).toBe(1);
  });

  test("issue 37 at scale: a SIGKILLed run-one worker takes the command it was running with it", async () => {
    project();
    const marks = join(ws.dir, "marks");
    mkdirSync(marks);
    // The first attempt's command starts a child, records both pids, then kills its own worker.
    const model = fakeModel(ws.dir, "orphan", [
      bashTurn(
        `if [ "$GONG_BATCH_ATTEMPT" = 1 ]; then echo $$ > ${marks}/shell.pid; sleep 300 & echo $! > ${marks}/child.pid; kill -KILL "$GONG_BATCH_PID"; wait; fi; echo survived`,
      ),
      { text: "Done." },
    ]);
    writeTasks(join(ws.dir, "tasks.jsonl"), [{ id: "victim", prompt: "go", workdir: "project" }]);
    const r = await ws.run(["batch", "tasks.jsonl", "--out", "out", "--model", model]);
    expect(r.code).toBe(0);
    expect(resultOf(join(ws.dir, "out"), "victim", 1)!.error).toContain("killed by SIGKILL");
    const pids = ["shell", "child"].map((name) => Number(readFileSync(join(marks, `${name}.pid`), "utf8").trim()));
    await waitFor("the killed worker's command to end", () => pids.every((pid) => !alive(pid)));
  }, 60_000);

  test("resume after killing the whole batch re-runs exactly the unfinished tasks; killing the batch ends its run-one children", async () => {
    project();
    const quick = fakeModel(ws.dir, "quick", THREE_TURNS);
    const marks = join(ws.dir, "marks");
    mkdirSync(marks);
    // Blocking tasks say they started (with their run-one pid), then wait for a release file.
    const blocking = fakeModel(ws.dir, "blocking", [
      {
        toolCalls: [
          {
            name: "bash",
            arguments: {
              command: `echo "$GONG_BATCH_PID" > ${marks}/$GONG_BATCH_TASK_ID.pid; while [ ! -f ${marks}/release ]; do sleep 0.1; done; echo released`,
            },
          },
        ],
      },
      { text: "Done." },
    ]);
    writeTasks(join(ws.dir, "tasks.jsonl"), [
      { id: "q1", prompt: "go", workdir: "project", model: quick },
      { id: "b1", prompt: "go", workdir: "project", model: blocking },
      { id: "b2", prompt: "go", workdir: "project", model: blocking },
      { id: "later", prompt: "go", workdir: "project", model: quick },
    ]);
    const out = join(ws.dir, "out");
    // Two at once: q1 and b1 first, b2 once q1 is done; "later" waits behind the blocked pair.
    const batch = Bun.spawn([process.execPath, CLI, "batch", "tasks.jsonl", "--out", "out", "--workers", "2"], {
      cwd: ws.dir,
      env: ws.env,
      stdout: "ignore",
      stderr: "ignore",
    });
    const pidFile = (id: string) => join(marks, `${id}.pid`);
    await waitFor(
      "both blocking tasks to start",
      () => existsSync(pidFile("b1")) && existsSync(pidFile("b2")) && readFileSync(pidFile("b2"), "utf8").trim() !== "",
    );
    expect(resultOf(out, "q1", 1)!.status).toBe("done");
    const children = ["b1", "b2"].map((id) => Number(readFileSync(pidFile(id), "utf8").trim()));
    batch.kill("SIGKILL");
    await batch.exited;
    await waitFor("the run-one children to end", () => children.every((pid) => !alive(pid)));
    for (const id of ["b1", "b2"]) expect(resultOf(out, id, 1)!.status).toBe("cancelled");
    expect(attemptCount(out, "later")).toBe(0);

    writeFileSync(join(marks, "release"), "");
    const before = readResults(out).length;
    const r = await ws.run(["batch", "tasks.jsonl", "--out", "out", "--workers", "2"]);
    expect(r.code).toBe(0);
    // Exactly the unfinished tasks ran again: the done one was left alone.
    // The killed batch's cancelled attempts are listed first, then exactly the unfinished tasks ran again.
    const added = readResults(out)
      .slice(before)
      .map((x) => `${x.id}#${x.attempt}:${x.status}`);
    expect(added.slice(0, 2).sort()).toEqual(["b1#1:cancelled", "b2#1:cancelled"]);
    expect(added.slice(2).sort()).toEqual(["b1#2:done", "b2#2:done", "later#1:done"]);
    expect(attemptCount(out, "q1")).toBe(1);
    for (const id of ["b1", "b2"]) expect(resultOf(out, id, 2)!.status).toBe("done");
    expect(resultOf(out, "later", 1)!.status).toBe("done");
    const summary = readSummary(out);
    expect(summary.counts.done).toBe(4);
    expect(summary.attempts).toBe(6);
  });

  test("a timeout stops the task and leaves a valid session file", async () => {
    project();
    const model = fakeModel(ws.dir, "slow", [
      { toolCalls: [{ name: "bash", arguments: { command: "while [ ! -f never ]; do sleep 0.1; done" } }] },
      { text: "Done." },
    ]);
    writeTasks(join(ws.dir, "tasks.jsonl"), [
      { id: "slow", prompt: "go", workdir: "project", limits: { timeout_s: 1 } },
    ]);
    const r = await ws.run(["batch", "tasks.jsonl", "--out", "out", "--model", model]);
    expect(r.code).toBe(1);
    const result = resultOf(join(ws.dir, "out"), "slow", 1)!;
    expect(result.status).toBe("timeout");
    expect(result.session_saved).toBe(true);
    const lines = readFileSync(result.session_file!, "utf8").split("\n").filter(Boolean);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(lines.some((l) => l.includes("while [ ! -f never ]"))).toBe(true);
    expect(r.stderr).toContain("task slow (attempt 1): timeout");
  });

  test("Ctrl-C stops launching and lets running tasks finish; a second Ctrl-C cancels them cleanly", async () => {
    project();
    const quick = fakeModel(ws.dir, "quick", THREE_TURNS);
    const marks = join(ws.dir, "marks");
    mkdirSync(marks);
    const blocking = fakeModel(ws.dir, "blocking", [
      {
        toolCalls: [
          {
            name: "bash",
            arguments: {
              command: `touch ${marks}/$GONG_BATCH_TASK_ID.started; while [ ! -f ${marks}/release ]; do sleep 0.1; done; echo released`,
            },
          },
        ],
      },
      { text: "Done." },
    ]);
    writeTasks(join(ws.dir, "tasks.jsonl"), [
      { id: "b1", prompt: "go", workdir: "project", model: blocking },
      { id: "b2", prompt: "go", workdir: "project", model: blocking },
      { id: "later", prompt: "go", workdir: "project", model: quick },
    ]);
    const started = () => existsSync(join(marks, "b1.started")) && existsSync(join(marks, "b2.started"));
    const spawnBatch = (out: string) => {
      const proc = Bun.spawn([process.execPath, CLI, "batch", "tasks.jsonl", "--out", out, "--workers", "2"], {
        cwd: ws.dir,
        env: ws.env,
        stdout: "pipe",
        stderr: "pipe",
      });
      let stderr = "";
      void (async () => {
        const reader = proc.stderr.getReader();
        for (let r = await reader.read(); !r.done; r = await reader.read()) stderr += new TextDecoder().decode(r.value);
      })();
      return { proc, stderr: () => stderr };
    };

    // Once: no new task starts, the running ones finish.
    const first = spawnBatch("once");
    await waitFor("both blocking tasks to start", started);
    first.proc.kill("SIGINT");
    await waitFor("the batch to say it stops launching", () => first.stderr().includes("no new tasks start"));
    writeFileSync(join(marks, "release"), "");
    expect(await first.proc.exited).toBe(1);
    const once = join(ws.dir, "once");
    expect(resultOf(once, "b1", 1)!.status).toBe("done");
    expect(resultOf(once, "b2", 1)!.status).toBe("done");
    expect(attemptCount(once, "later")).toBe(0);
    expect(readSummary(once).counts).toMatchObject({ done: 2, skipped: 1 });

    // Twice: the running tasks are cancelled, their session files closed.
    for (const f of ["b1.started", "b2.started", "release"]) rmSync(join(marks, f));
    const second = spawnBatch("twice");
    await waitFor("both blocking tasks to start", started);
    second.proc.kill("SIGINT");
    await waitFor("the batch to say it stops launching", () => second.stderr().includes("no new tasks start"));
    second.proc.kill("SIGINT");
    expect(await second.proc.exited).toBe(1);
    const twice = join(ws.dir, "twice");
    for (const id of ["b1", "b2"]) {
      const result = resultOf(twice, id, 1)!;
      expect(result.status).toBe("cancelled");
      expect(result.session_saved).toBe(true);
      for (const line of readFileSync(result.session_file!, "utf8").split("\n").filter(Boolean))
        expect(() => JSON.parse(line)).not.toThrow();
    }
    expect(readSummary(twice).counts).toMatchObject({ cancelled: 2, skipped: 1 });
  });
});
