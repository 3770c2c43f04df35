/**
 * The git snapshot taken once at session start (docs/conformance.md: 004 §6.4): branch, short
 * status counts and the last commit subjects. The model can always run git itself; this only
 * orients it. No git, no repository or a slow git all give "not a repository" rather than an error.
 */
import { execFile } from "node:child_process";
import { commandEnv, type SecretPolicy } from "../env/env-vars.ts";
import type { GitSummary } from "../profiles/types.ts";

/** Branch, change counts and recent commit subjects; the prompt layers render it (profiles/types.ts). */
export type GitSnapshot = GitSummary;

const GIT_TIMEOUT_MS = 3_000;
const COMMITS = 5;

/**
 * git runs in a repository nobody vetted yet: without gong's keys in its environment, and without
 * the repository's `core.fsmonitor`, a command `git status` would otherwise start.
 */
function git(cwd: string, args: string[], secrets?: SecretPolicy): Promise<string | null> {
  const env = commandEnv("filtered", process.env, { GIT_OPTIONAL_LOCKS: "0" }, [], secrets);
  return new Promise((resolve) => {
    try {
      execFile(
        "git",
        ["-c", "core.fsmonitor=false", ...args],
        { cwd, timeout: GIT_TIMEOUT_MS, maxBuffer: 1 << 20, env },
        (error, stdout) => resolve(error ? null : stdout),
      );
    } catch {
      resolve(null);
    }
  });
}

/** `secrets`: the variables gong reads keys from, kept out of git's environment like secret names. */
export async function gitSnapshot(cwd: string, secrets?: SecretPolicy): Promise<GitSnapshot> {
  const [root, status, log] = await Promise.all([
    git(cwd, ["rev-parse", "--show-toplevel"], secrets),
    git(cwd, ["status", "--porcelain=v2", "--branch", "--untracked-files=normal"], secrets),
    git(cwd, ["log", `-${COMMITS}`, "--format=%s"], secrets),
  ]);
  if (root === null || status === null) return { isRepo: false, modified: 0, untracked: 0, recentCommits: [] };
  let branch: string | undefined;
  let modified = 0;
  let untracked = 0;
  for (const line of status.split("\n")) {
    if (line.startsWith("# branch.head ")) branch = line.slice("# branch.head ".length).trim();
    else if (line.startsWith("? ")) untracked++;
    else if (/^[12u] /.test(line)) modified++;
  }
  return {
    isRepo: true,
    root: root.trim(),
    branch: branch === "(detached)" ? "HEAD (detached)" : branch,
    modified,
    untracked,
    recentCommits: (log ?? "").split("\n").filter((s) => s.trim() !== ""),
  };
}
