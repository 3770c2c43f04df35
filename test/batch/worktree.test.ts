/** `gong -p --worktree`: a single run gets a batch task's isolation — a detached worktree of HEAD, removed after, its diff kept. */
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { useWorkspace } from "../cli/helpers.ts";
import { fakeModel, gitRepo } from "./helpers.ts";

const ws = useWorkspace();

test("--worktree runs in a detached worktree of HEAD: the checkout is untouched, the diff (new files included) is kept, the worktree is removed", async () => {
  const repo = join(ws.dir, "repo");
  mkdirSync(repo);
  gitRepo(repo, { "a.txt": "old\n" });
  const model = fakeModel(ws.dir, "edit", [
    { toolCalls: [{ name: "bash", arguments: { command: "echo new > a.txt && echo added > b.txt && pwd" } }] },
    { text: "Edited." },
  ]);
  const r = await ws.run(["-p", "--worktree", "--cwd", "repo", "--model", model, "edit the files"]);
  expect(r.code).toBe(0);
  expect(r.stdout.trim()).toBe("Edited.");
  expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("old\n");
  expect(existsSync(join(repo, "b.txt"))).toBe(false);
  const file = /the worktree's changes: (\S+)/.exec(r.stderr)?.[1];
  expect(file).toBeDefined();
  const diff = readFileSync(file!, "utf8");
  expect(diff).toContain("-old\n+new");
  expect(diff).toContain("+++ b/b.txt");
  expect(
    spawnSync("git", ["worktree", "list"], { cwd: repo, encoding: "utf8" }).stdout.trim().split("\n"),
  ).toHaveLength(1);
});

test("--worktree outside a git repository is a usage error naming the directory", async () => {
  const model = fakeModel(ws.dir, "none", [{ text: "never" }]);
  const r = await ws.run(["-p", "--worktree", "--model", model, "hello"]);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("--worktree: isolation 'worktree' needs a git repository");
});
