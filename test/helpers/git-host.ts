/**
 * A stand-in for GitHub in plugin tests: published repositories (the fixtures under
 * test/fixtures/plugins) become bare git repositories in a temp folder, reached by file:// URLs —
 * or by their GitHub address, through git's own `url.<base>.insteadOf` in a temp HOME's .gitconfig.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { tempDir, type TempDir } from "./temp.ts";

export const PLUGIN_FIXTURES = resolve(import.meta.dir, "../fixtures/plugins");

/** Whether git runs here (tests that need it skip with this reason otherwise). */
export const hasGit = spawnSync("git", ["--version"]).status === 0;

const IDENTITY = ["-c", "user.name=gong tests", "-c", "user.email=tests@gong.invalid", "-c", "init.defaultBranch=main"];

export interface GitHost {
  /** The folder holding `<owner>/<repo>.git`. */
  root: string;
  /** Publishes `folder` (a fixture's name or a path) as `owner/repo`; its file:// URL. */
  publish(folder: string, repo: string): string;
  /** Commits `change` (run in a work tree of `owner/repo`) and pushes it; the new commit. */
  push(repo: string, change: (tree: string) => void): string;
  /** A .gitconfig in `home` that sends https://github.com/ to this host. */
  redirectGithub(home: string): void;
  cleanup(): void;
}

export function gitHost(): GitHost {
  const temp: TempDir = tempDir("gong-git-host-");
  const root = temp.path("hosts");
  const git = (args: string[], cwd?: string) => {
    const r = spawnSync("git", [...IDENTITY, ...args], {
      cwd,
      encoding: "utf8",
      env: { ...process.env, HOME: temp.dir },
    });
    if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
    return r.stdout.trim();
  };
  const work = (repo: string) => temp.path("work", repo);
  return {
    root,
    publish(folder, repo) {
      const tree = work(repo);
      rmSync(tree, { recursive: true, force: true });
      mkdirSync(tree, { recursive: true });
      cpSync(resolve(PLUGIN_FIXTURES, folder), tree, { recursive: true });
      git(["init", "-q"], tree);
      git(["add", "-A"], tree);
      git(["commit", "-qm", `publish ${repo}`], tree);
      const bare = join(root, `${repo}.git`);
      mkdirSync(join(bare, ".."), { recursive: true });
      git(["clone", "-q", "--bare", tree, bare]);
      git(["remote", "add", "origin", bare], tree);
      return `file://${bare}`;
    },
    push(repo, change) {
      const tree = work(repo);
      change(tree);
      git(["add", "-A"], tree);
      git(["commit", "-qm", "change"], tree);
      git(["push", "-q", "origin", "HEAD:main"], tree);
      return git(["rev-parse", "HEAD"], tree);
    },
    redirectGithub(home) {
      writeFileSync(join(home, ".gitconfig"), `[url "file://${root}/"]\n\tinsteadOf = https://github.com/\n`);
    },
    cleanup: temp.cleanup,
  };
}
