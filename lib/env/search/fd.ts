/**
 * The fast glob engine: fd (or Debian's `fdfind`). A pattern without "/" matches names; with "/"
 * it matches the path below the searched directory (via --full-path on the escaped absolute path).
 * fd honours .gitignore only inside a git repository unless it knows `--no-require-git`; when it
 * does not, its output is filtered through the same ignore rules the TypeScript walker uses.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { runLines } from "./child.ts";
import { globBody, globHasPath } from "./glob-filter.ts";
import { FIND_IGNORE_FILES, IgnoreOracle } from "./ignore-rules.ts";
import type { GlobOptions } from "../types.ts";
import type { FoundPaths } from "./glob-walk.ts";
import type { SearchTarget } from "./searched-path.ts";

const knowsNoRequireGit = new Map<string, boolean>();

export async function fdSearch(
  fd: string,
  options: GlobOptions,
  limit: number,
  target: SearchTarget,
  pathEnv: string,
): Promise<FoundPaths> {
  const { pattern, signal } = options;
  const noRequireGit = supportsNoRequireGit(fd, pathEnv);
  const oracle =
    options.noIgnore || noRequireGit || insideGitRepo(target.path)
      ? null
      : new IgnoreOracle(target.root, target.path, FIND_IGNORE_FILES);
  const args = ["--glob", "--color=never", "--hidden", "--exclude", ".git"];
  if (options.noIgnore) args.push("--no-ignore");
  else if (noRequireGit) args.push("--no-require-git");
  if (options.ignoreCase !== undefined) args.push(options.ignoreCase ? "--ignore-case" : "--case-sensitive");
  // One more than the limit tells whether the limit cut anything.
  if (!oracle) args.push("--max-results", String(limit + 1));
  const body = globBody(pattern);
  if (globHasPath(pattern)) args.push("--full-path", "--", `${escapeGlob(target.path)}/${body}`, target.path);
  else args.push("--", body, target.path);

  const paths: string[] = [];
  let limitReached = false;
  await runLines(fd, args, {
    cwd: target.path,
    pathEnv,
    signal,
    onLine(line) {
      if (line === "") return;
      const isDir = line.endsWith("/");
      const abs = resolve(target.path, isDir ? line.slice(0, -1) : line);
      if (oracle?.ignored(abs, isDir)) return;
      if (paths.length === limit) {
        limitReached = true;
        return false;
      }
      paths.push(abs);
    },
  });
  return { paths, limitReached };
}

function supportsNoRequireGit(fd: string, pathEnv: string): boolean {
  let known = knowsNoRequireGit.get(fd);
  if (known === undefined) {
    try {
      known = execFileSync(fd, ["--help"], {
        env: { PATH: pathEnv },
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }).includes("--no-require-git");
    } catch {
      known = false;
    }
    knowsNoRequireGit.set(fd, known);
  }
  return known;
}

function insideGitRepo(dir: string): boolean {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, ".git"))) return true;
    if (dirname(d) === d) return false;
  }
}

/** Backslash-escape glob metacharacters so a directory name is matched literally. */
function escapeGlob(path: string): string {
  return path.replace(/[*?[\]{}\\!]/g, "\\$&");
}
