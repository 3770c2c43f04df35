/** Shared set-up for the environment tests: a temp workspace and an environment that is cleaned up. */
import { mkdirSync } from "node:fs";
import { LocalEnvironment, type LocalEnvironmentOptions } from "../../lib/env/local.ts";
import { tempDir } from "../helpers/temp.ts";
import { eventually } from "../helpers/wait.ts";

/**
 * A command timeout long enough for a crowded machine to start the shell and print its first lines
 * (the tests that need output from before a timeout use it with a command that then sleeps far longer).
 */
export const STARTED_MS = 3_000;

export interface Workspace {
  dir: string;
  /** A scratch directory beside the workspace, removed with it. */
  temp: string;
  env(options?: Partial<LocalEnvironmentOptions>): LocalEnvironment;
  dispose(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export function makeWorkspace(prefix: string): Workspace {
  const base = tempDir(`gong-${prefix}-`);
  const dir = base.path("ws");
  const temp = base.path("tmp");
  for (const d of [dir, temp]) mkdirSync(d, { recursive: true });
  const made: LocalEnvironment[] = [];
  const dispose = async () => {
    for (const e of made) await e.cleanup();
    base.cleanup();
  };
  return {
    dir,
    temp,
    env(options = {}) {
      const e = new LocalEnvironment({ root: dir, home: base.path("home"), killGraceMs: 300, ...options });
      made.push(e);
      return e;
    },
    dispose,
    [Symbol.asyncDispose]: dispose,
  };
}

/** True once no process with this pid exists (a killed process needs a moment to go; the bound is generous). */
export function gone(pid: number): Promise<boolean> {
  return eventually(() => !alive(pid));
}

/** True once every member of the process group has exited (zombies waiting for a reaper count as exited). */
export function groupGone(pgid: number): Promise<boolean> {
  return eventually(() => livingMembers(pgid).length === 0);
}

function livingMembers(pgid: number): number[] {
  const rows = Bun.spawnSync(["ps", "-eo", "pid=,pgid=,stat="]).stdout.toString().trim().split("\n");
  return rows
    .map((row) => row.trim().split(/\s+/))
    .filter(([, group, state]) => Number(group) === pgid && !state.startsWith("Z"))
    .map(([pid]) => Number(pid));
}

/** Running right now (a zombie, killed but not yet reaped, counts as dead). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie still answers signal 0; it is dead for our purposes.
  const state = Bun.spawnSync(["ps", "-o", "stat=", "-p", String(pid)])
    .stdout.toString()
    .trim();
  return state !== "" && !state.startsWith("Z");
}
