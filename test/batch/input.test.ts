/**
 * Bad input gets one line naming the task and the problem, and never stops the other tasks;
 * SWE-bench rows in, predictions out; `batch` is a subcommand (collect, export, usage).
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { useWorkspace } from "../cli/helpers.ts";
import { sandboxUnavailable } from "../helpers/sandbox.ts";
import { fakeModel, gitRepo, readResults, readSummary, resultOf, THREE_TURNS, writeTasks } from "./helpers.ts";

const ws = useWorkspace();

describe("gong batch input and output", () => {
  test("bad input: duplicate id, a line not JSON, a missing prompt, an unknown field, an uncloneable repo, a failing setup — one line each, the good tasks run", async () => {
    mkdirSync(join(ws.dir, "project"));
    const model = fakeModel(ws.dir, "three", THREE_TURNS);
    writeTasks(join(ws.dir, "tasks.jsonl"), [
      { id: "good", prompt: "go", workdir: "project" },
      { id: "good", prompt: "again", workdir: "project" },
      "{this is not json",
      { id: "no-prompt", workdir: "project" },
      { id: "extra", prompt: "go", workdir: "project", colour: "blue" },
      { id: "no-clone", prompt: "go", repo: "file:///nonexistent/repo.git", isolation: "clone" },
      { id: "bad-setup", prompt: "go", workdir: "project", setup: "echo cannot prepare >&2; exit 3" },
      { id: "also-good", prompt: "go", workdir: "project" },
    ]);
    const r = await ws.run(["batch", "tasks.jsonl", "--out", "out", "--model", model]);
    expect(r.code).toBe(1);
    const lines = r.stderr.split("\n").filter((l) => l.startsWith("gong: ") && !l.includes("batch: "));
    expect(lines).toEqual([
      "gong: tasks.jsonl line 2 (task good): duplicate id (first on line 1); this line is skipped",
      expect.stringMatching(/^gong: tasks\.jsonl line 3: not JSON \(.+\)$/),
      "gong: tasks.jsonl line 4 (task no-prompt): missing 'prompt' (a non-empty string)",
      expect.stringMatching(/^gong: tasks\.jsonl line 5 \(task extra\): unknown field 'colour' \(known: id, prompt, /),
      expect.stringMatching(/^gong: task (no-clone|bad-setup) \(attempt 1\): failed: /),
      expect.stringMatching(/^gong: task (no-clone|bad-setup) \(attempt 1\): failed: /),
    ]);
    expect(r.stderr).toContain(
      "task no-clone (attempt 1): failed: cannot prepare the workdir: cannot clone file:///nonexistent/repo.git",
    );
    expect(r.stderr).toContain("task bad-setup (attempt 1): failed: setup exited with 3: cannot prepare");
    const out = join(ws.dir, "out");
    expect(resultOf(out, "good", 1)!.status).toBe("done");
    expect(resultOf(out, "also-good", 1)!.status).toBe("done");
    expect(readFileSync(join(out, "tasks", "bad-setup", "attempt-1", "stderr.log"), "utf8")).toContain(
      "cannot prepare",
    );
    // A task's own failure is not retried.
    expect(readResults(out).filter((x) => x.id === "no-clone")).toHaveLength(1);
    expect(readSummary(out).counts).toMatchObject({ done: 2, failed: 2 });
  });

  test("an out dir written by another batch is refused in one line (exit 2), nothing in it touched", async () => {
    mkdirSync(join(ws.dir, "project"));
    const model = fakeModel(ws.dir, "three", THREE_TURNS);
    writeTasks(join(ws.dir, "first.jsonl"), [{ id: "one", prompt: "go", workdir: "project" }]);
    writeTasks(join(ws.dir, "second.jsonl"), [{ id: "two", prompt: "go", workdir: "project" }]);
    expect((await ws.run(["batch", "first.jsonl", "--out", "out", "--model", model])).code).toBe(0);
    const before = readFileSync(join(ws.dir, "out", "results.jsonl"), "utf8");
    const r = await ws.run(["batch", "second.jsonl", "--out", "out", "--model", model]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `gong: ${join(ws.dir, "out")} holds the results of another batch (${join(ws.dir, "first.jsonl")}); use another --out directory.`,
    );
    expect(readFileSync(join(ws.dir, "out", "results.jsonl"), "utf8")).toBe(before);
  });

  test("SWE-bench rows in, predictions out: each patch is the diff against base_commit, new files included", async () => {
    const repo = join(ws.dir, "repo");
    mkdirSync(repo);
    const base = gitRepo(repo, { "calc.py": "def add(a, b):\n    return a - b\n" });
    // A later commit: the task must start from base_commit, not HEAD.
    writeFileSync(join(repo, "later.txt"), "later\n");
    spawnSync("git", ["add", "-A"], { cwd: repo });
    spawnSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "later"], {
      cwd: repo,
    });
    const model = fakeModel(ws.dir, "fix", [
      {
        toolCalls: [
          {
            name: "bash",
            arguments: {
              command:
                "sed -i 's/a - b/a + b/' calc.py && printf 'assert True\\n' > test_calc.py && test ! -e later.txt",
            },
          },
        ],
      },
      { text: "Fixed add()." },
    ]);
    const row = (id: string) => ({
      instance_id: id,
      problem_statement: "add() subtracts",
      repo,
      base_commit: base,
      patch: "",
      test_patch: "",
      FAIL_TO_PASS: "[]",
      PASS_TO_PASS: "[]",
      version: "1.0",
      created_at: "2024-01-01",
    });
    writeTasks(join(ws.dir, "swe.jsonl"), [row("demo__calc-1"), row("demo__calc-2")]);
    const r = await ws.run(["batch", "swe.jsonl", "--out", "out", "--model", model]);
    expect(r.code).toBe(0);
    const exported = await ws.run(["batch", "export", "out", "--format", "swebench"]);
    expect(exported.code).toBe(0);
    const predictions = exported.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(predictions.map((p) => p.instance_id)).toEqual(["demo__calc-1", "demo__calc-2"]);
    for (const p of predictions) {
      expect(Object.keys(p).sort()).toEqual(["instance_id", "model_name_or_path", "model_patch"]);
      expect(p.model_patch).toContain("-    return a - b");
      expect(p.model_patch).toContain("+    return a + b");
      expect(p.model_patch).toContain("+++ b/test_calc.py");
      expect(p.model_patch).not.toContain("later.txt");
    }
    // The patch applies to base_commit.
    spawnSync("git", ["checkout", "-q", base], { cwd: repo });
    expect(
      spawnSync("git", ["apply", "--check", "-"], { cwd: repo, input: predictions[0].model_patch, encoding: "utf8" })
        .status,
    ).toBe(0);
    const file = join(ws.dir, "preds.jsonl");
    expect((await ws.run(["batch", "export", "out", "--format", "swebench", "-o", file])).code).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(exported.stdout);
  });

  test("batch is a subcommand: collect rebuilds results.jsonl and summary.json from the result files; bare 'gong batch' is a usage error", async () => {
    mkdirSync(join(ws.dir, "project"));
    const model = fakeModel(ws.dir, "three", THREE_TURNS);
    writeTasks(
      join(ws.dir, "tasks.jsonl"),
      ["a", "b", "c"].map((id) => ({ id, prompt: "go", workdir: "project" })),
    );
    expect((await ws.run(["batch", "tasks.jsonl", "--out", "out", "--model", model])).code).toBe(0);
    const out = join(ws.dir, "out");
    const results = readResults(out);
    const summary = readSummary(out);
    rmSync(join(out, "results.jsonl"));
    rmSync(join(out, "summary.json"));
    const r = await ws.run(["batch", "collect", "out"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("3 tasks: 3 done");
    expect(
      readResults(out)
        .map((x) => x.id)
        .sort(),
    ).toEqual(results.map((x) => x.id).sort());
    expect(readSummary(out).counts).toEqual(summary.counts);
    const bare = await ws.run(["batch"]);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toContain("gong batch TASKS.jsonl");
    const missing = await ws.run(["batch", "collect", "nowhere"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("nowhere holds no batch");
  });

  test("--retry-failed re-runs failed tasks that a plain resume leaves alone", async () => {
    mkdirSync(join(ws.dir, "project"));
    const model = fakeModel(ws.dir, "three", THREE_TURNS);
    const gate = join(ws.dir, "gate");
    writeTasks(join(ws.dir, "tasks.jsonl"), [
      { id: "gated", prompt: "go", workdir: "project", setup: `test -f ${gate}` },
      { id: "free", prompt: "go", workdir: "project" },
    ]);
    const run = (...extra: string[]) => ws.run(["batch", "tasks.jsonl", "--out", "out", "--model", model, ...extra]);
    expect((await run()).code).toBe(1);
    const out = join(ws.dir, "out");
    expect(resultOf(out, "gated", 1)!.status).toBe("failed");
    writeFileSync(gate, "");
    expect((await run()).code).toBe(1);
    expect(resultOf(out, "gated", 2)).toBeUndefined();
    expect((await run("--retry-failed")).code).toBe(0);
    expect(resultOf(out, "gated", 2)!.status).toBe("done");
    expect(resultOf(out, "free", 2)).toBeUndefined();
    expect(readSummary(out)).toMatchObject({ counts: { done: 2, failed: 0 }, attempts: 3, retries: 1 });
  });

  test.skipIf(sandboxUnavailable() !== undefined)(
    "worktree isolation combines with --sandbox workspace-write: the task writes its own worktree",
    async () => {
      const repo = join(ws.dir, "repo");
      mkdirSync(repo);
      gitRepo(repo, { "a.txt": "a\n" });
      const model = fakeModel(ws.dir, "three", THREE_TURNS);
      writeTasks(join(ws.dir, "tasks.jsonl"), [{ id: "boxed", prompt: "go", repo: "repo" }]);
      const r = await ws.run([
        "batch",
        "tasks.jsonl",
        "--out",
        "out",
        "--model",
        model,
        "--sandbox",
        "workspace-write",
      ]);
      expect(r.code).toBe(0);
      const result = resultOf(join(ws.dir, "out"), "boxed", 1)!;
      expect(readFileSync(result.patch_file!, "utf8")).toContain("+++ b/out-boxed.txt");
    },
  );
});
