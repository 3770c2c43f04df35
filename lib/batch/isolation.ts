/**
 * Each task works in its own directory, so parallel tasks share nothing:
 *   worktree  a detached `git worktree` of the repo at `ref`, removed after (default in a git repo).
 *             `git worktree add`/`remove` on one repository are serialised by a lock file: run in
 *             parallel they fail now and then ("failed to read .git/worktrees/<n>/commondir").
 *   copy      a copy of the directory (default outside git).
 *   clone     `git clone` of `repo` (a URL or a path) — for engine nodes that do not share a disk.
 *   none      the directory itself (read-only tasks).
 * The patch is the diff against the ref the task started from, new files included.
 */
import {
  cpSync,
  existsSync,
  readdirSync,
  mkdirSync,
  openSync,
  closeSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { isInside } from "../paths.ts";
import { lastLine, run } from "./exec.ts";
import type { Isolation, Task } from "./task.ts";

/** The task's own fault (a repo that cannot be cloned, a ref that does not exist): it fails, it is not retried. */
export class TaskInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TaskInputError";
  }
}

export interface Workdir {
  dir: string;
  isolation: Isolation;
  /** The commit the task started from, when the workdir is a git checkout. */
  base?: string;
  /** Removes what prepare made (worktree, copy, clone); the patch must be taken before. */
  dispose(): Promise<void>;
}

const isUrl = (s: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(s) || /^[\w.-]+@[\w.-]+:/.test(s);

async function gitRoot(dir: string): Promise<string | undefined> {
  const r = await run("git", ["-C", dir, "rev-parse", "--show-toplevel"]);
  return r.code === 0 ? r.stdout.trim() : undefined;
}

async function resolveCommit(dir: string, ref: string): Promise<string> {
  const r = await run("git", ["-C", dir, "rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
  if (r.code !== 0) throw new TaskInputError(`ref '${ref}' is not a commit in ${dir}`);
  return r.stdout.trim();
}

/**
 * Prepares the task's workdir under `workRoot`. `base` is where relative `repo`/`workdir` paths
 * point from, and the directory a task with neither works on.
 */
export async function prepareWorkdir(
  task: Task,
  base: string,
  workRoot: string,
  fallback: Isolation | undefined,
  exclude?: string,
): Promise<Workdir> {
  const source = task.repo ?? task.workdir ?? base;
  const url = isUrl(source);
  const path = url ? source : isAbsolute(source) ? source : resolve(base, source);
  if (!url && !existsSync(path))
    throw new TaskInputError(`${task.repo !== undefined ? "repo" : "workdir"} ${path} does not exist`);
  const root = url ? undefined : await gitRoot(path);
  const isolation = task.isolation ?? fallback ?? (url ? "clone" : root ? "worktree" : "copy");
  mkdirSync(workRoot, { recursive: true });
  const dir = join(workRoot, "repo");

  if (isolation === "none") {
    if (url) throw new TaskInputError(`isolation 'none' needs a local directory, not ${source}`);
    return {
      dir: path,
      isolation,
      base: root ? await resolveCommit(path, task.ref ?? "HEAD") : undefined,
      dispose: async () => {},
    };
  }
  if (isolation === "copy") {
    if (url) throw new TaskInputError(`isolation 'copy' needs a local directory, not ${source}`);
    // The batch's own out directory (where this copy goes) may sit inside the directory copied: it is left out.
    copyTree(path, dir, exclude ? resolve(exclude) : undefined);
    if (root && task.ref) {
      const co = await run("git", ["-C", dir, "checkout", "--quiet", "--detach", task.ref]);
      if (co.code !== 0) throw new TaskInputError(`cannot check out '${task.ref}': ${lastLine(co.stderr)}`);
    }
    const base = root ? await resolveCommit(dir, "HEAD").catch(() => undefined) : undefined;
    return { dir, isolation, base, dispose: async () => rmSync(workRoot, { recursive: true, force: true }) };
  }
  if (isolation === "clone") {
    const cloned = await run("git", ["clone", "--quiet", "--no-hardlinks", url ? source : path, dir]);
    if (cloned.code !== 0) throw new TaskInputError(`cannot clone ${source}: ${lastLine(cloned.stderr)}`);
    if (task.ref) {
      const co = await run("git", ["-C", dir, "checkout", "--quiet", "--detach", task.ref]);
      if (co.code !== 0)
        throw new TaskInputError(`cannot check out '${task.ref}' in the clone of ${source}: ${lastLine(co.stderr)}`);
    }
    return {
      dir,
      isolation,
      base: await resolveCommit(dir, "HEAD"),
      dispose: async () => rmSync(workRoot, { recursive: true, force: true }),
    };
  }
  // worktree
  if (!root) throw new TaskInputError(`isolation 'worktree' needs a git repository, and ${path} is not in one`);
  const commit = await resolveCommit(root, task.ref ?? "HEAD");
  const added = await withRepoLock(root, () =>
    run("git", ["-C", root, "worktree", "add", "--quiet", "--detach", dir, commit]),
  );
  if (added.code !== 0) throw new Error(`git worktree add failed: ${lastLine(added.stderr)}`);
  // A task in a subfolder of the repo works in the same subfolder of the worktree.
  const sub = path.slice(root.length);
  return {
    dir: join(dir, sub),
    isolation,
    base: commit,
    dispose: async () => {
      await withRepoLock(root, () => run("git", ["-C", root, "worktree", "remove", "--force", dir]));
      rmSync(workRoot, { recursive: true, force: true });
    },
  };
}

/**
 * Copies `from` to `to` without `skip`. Node's copy refuses a destination inside its source before
 * any filter runs, so the folders on the way to `skip` are walked here and only subtrees that hold
 * neither `skip` nor the destination are handed to it whole.
 */
function copyTree(from: string, to: string, skip: string | undefined): void {
  if (skip === undefined || !isInside(skip, from)) {
    cpSync(from, to, { recursive: true, verbatimSymlinks: true });
    return;
  }
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    if (source === skip) continue;
    if (entry.isDirectory() && isInside(skip, source)) copyTree(source, join(to, entry.name), skip);
    else cpSync(source, join(to, entry.name), { recursive: true, verbatimSymlinks: true });
  }
}

/** The diff of `dir` against `base`, new and deleted files included, through a throwaway index (the worktree's own is untouched). */
export async function patchAgainst(dir: string, base: string, scratch: string): Promise<string> {
  const env = { ...process.env, GIT_INDEX_FILE: scratch };
  try {
    const top = (await run("git", ["-C", dir, "rev-parse", "--show-toplevel"])).stdout.trim() || dir;
    const added = await run("git", ["-C", top, "add", "-A", "."], { env });
    if (added.code !== 0) throw new Error(`git add failed: ${lastLine(added.stderr)}`);
    const diff = await run("git", ["-C", top, "diff", "--cached", "--binary", base], { env });
    if (diff.code !== 0) throw new Error(`git diff failed: ${lastLine(diff.stderr)}`);
    return diff.stdout;
  } finally {
    rmSync(scratch, { force: true });
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `fn` holding the repository's worktree lock (`<git dir>/gong-worktree.lock`, created
 * exclusively, holding the owner's pid). A lock whose owner is gone is taken over.
 */
export async function withRepoLock<T>(root: string, fn: () => Promise<T>): Promise<T> {
  const common =
    (await run("git", ["-C", root, "rev-parse", "--path-format=absolute", "--git-common-dir"])).stdout.trim() ||
    join(root, ".git");
  const lock = join(common, "gong-worktree.lock");
  for (let waited = 0; ; waited++) {
    try {
      const fd = openSync(lock, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const owner = Number(readFileSafe(lock));
      if (owner > 0 && !alive(owner)) {
        rmSync(lock, { force: true });
        continue;
      }
      await sleep(Math.min(50 + waited * 10, 250));
    }
  }
  try {
    return await fn();
  } finally {
    try {
      unlinkSync(lock);
    } catch {
      // already gone
    }
  }
}

function readFileSafe(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
