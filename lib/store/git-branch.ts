/**
 * The git branch a directory is on, read from `.git/HEAD` (no git process: a session header is
 * written as the session starts). A worktree's `.git` file points at its own HEAD. Undefined
 * outside a repository, on a detached HEAD, or when the files cannot be read.
 */
import { readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";

export function gitBranchOf(cwd: string): string | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const dotGit = join(dir, ".git");
    const kind = statSync(dotGit, { throwIfNoEntry: false });
    if (kind) return branchIn(kind.isDirectory() ? dotGit : linkedGitDir(dotGit, dir));
    if (dirname(dir) === dir) return undefined;
  }
}

/** A worktree's or submodule's `.git` file: "gitdir: <path>". */
function linkedGitDir(file: string, dir: string): string | undefined {
  try {
    const target = /^gitdir:\s*(.+)$/m.exec(readFileSync(file, "utf8"))?.[1]?.trim();
    return target ? (isAbsolute(target) ? target : join(dir, target)) : undefined;
  } catch {
    return undefined;
  }
}

function branchIn(gitDir: string | undefined): string | undefined {
  if (!gitDir) return undefined;
  try {
    return /^ref:\s*refs\/heads\/(.+)$/m.exec(readFileSync(join(gitDir, "HEAD"), "utf8"))?.[1]?.trim();
  } catch {
    return undefined;
  }
}
