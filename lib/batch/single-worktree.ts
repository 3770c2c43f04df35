/**
 * `gong --worktree`: one run in a detached git worktree of HEAD (the same isolation a batch task
 * gets), removed after; its changes are kept as a diff under `$GONG_HOME/worktrees/`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { UsageError } from "../core/errors.ts";
import { gongHome } from "../store/paths.ts";
import { patchAgainst, prepareWorkdir, TaskInputError } from "./isolation.ts";

export interface SingleWorktree {
  /** Where the session works: the same subfolder of the worktree as the cwd is of the repository. */
  dir: string;
  /** Takes the diff (saved when not empty; its path is returned), then removes the worktree. */
  finish(): Promise<string | undefined>;
}

export async function openSingleWorktree(cwd: string): Promise<SingleWorktree> {
  const root = mkdtempSync(join(tmpdir(), "gong-worktree-"));
  let workdir: Awaited<ReturnType<typeof prepareWorkdir>>;
  try {
    workdir = await prepareWorkdir({ id: "run", prompt: "", isolation: "worktree" }, cwd, root, "worktree");
  } catch (e) {
    rmSync(root, { recursive: true, force: true });
    if (e instanceof TaskInputError) throw new UsageError(`--worktree: ${e.message}.`);
    throw e;
  }
  return {
    dir: workdir.dir,
    async finish() {
      try {
        const patch = await patchAgainst(workdir.dir, workdir.base!, join(root, ".patch-index"));
        if (patch === "") return undefined;
        const dir = join(gongHome(), "worktrees");
        mkdirSync(dir, { recursive: true });
        const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, "-")}-${process.pid}.diff`);
        writeFileSync(file, patch);
        return file;
      } finally {
        await workdir.dispose();
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
