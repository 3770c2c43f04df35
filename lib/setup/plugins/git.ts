/**
 * The git commands plugins and extensions are fetched with: a clone (a branch or tag when one is
 * named, the commit checked out when one is pinned), the commit a folder is at, and an update to
 * the remote's newest commit. git never asks for a password here (GIT_TERMINAL_PROMPT=0): a
 * repository that needs one fails with git's own message. Every failure is a GitError carrying one
 * sentence: git missing, or the command and git's last line.
 */
import { execFile } from "node:child_process";

export class GitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GitError";
  }
}

/** A clone of a large repository over a slow line takes minutes; a hung one is stopped. */
const GIT_TIMEOUT_MS = 10 * 60_000;

/** Runs git; resolves to its stdout. */
export function git(args: string[], cwd?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      args,
      {
        cwd,
        timeout: GIT_TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
        env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_ASKPASS: "", SSH_ASKPASS: "" },
      },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT")
          return reject(new GitError("git is not installed (or not on PATH), and gong needs it to fetch plugins"));
        const last = `${stderr}`.trim().split("\n").filter(Boolean).at(-1) ?? error.message;
        reject(new GitError(`git ${args.filter((a) => !a.startsWith("-")).join(" ")} failed: ${last}`));
      },
    );
  });
}

/** Clones `url` into `dir` (which must not exist), at `ref` (a branch or tag) and then `sha` when given. */
export async function clone(url: string, dir: string, pin: { ref?: string; sha?: string } = {}): Promise<void> {
  const depth = pin.sha ? [] : ["--depth", "1"];
  await git(["clone", "--quiet", ...depth, ...(pin.ref ? ["--branch", pin.ref] : []), "--", url, dir]);
  if (pin.sha) await git(["checkout", "--quiet", "--detach", pin.sha], dir);
}

/** The commit a work tree is at; undefined when it is not a git work tree (or git is missing). */
export async function headCommit(dir: string): Promise<string | undefined> {
  try {
    return (await git(["rev-parse", "HEAD"], dir)).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Moves a clone to its remote's newest commit (of `ref`, or of the branch it follows). */
export async function pull(dir: string, ref?: string): Promise<void> {
  await git(["fetch", "--quiet", "--depth", "1", "origin", ...(ref ? [ref] : [])], dir);
  await git(["reset", "--quiet", "--hard", "FETCH_HEAD"], dir);
}

/** `owner/repo` as the URL GitHub serves it from (git's url.<base>.insteadOf can send it elsewhere). */
export function githubUrl(repo: string): string {
  return `https://github.com/${repo}.git`;
}
