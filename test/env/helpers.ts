/** Shared set-up for the environment tests: a temp workspace and an environment that is cleaned up. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalEnvironment, type LocalEnvironmentOptions } from "../../lib/env/local.ts";

export interface Workspace {
  dir: string;
  /** A scratch directory beside the workspace, removed with it. */
  temp: string;
  env(options?: Partial<LocalEnvironmentOptions>): LocalEnvironment;
  dispose(): Promise<void>;
}

export function makeWorkspace(prefix: string): Workspace {
  const base = realpathSync(mkdtempSync(join(tmpdir(), `gong-${prefix}-`)));
  const dir = join(base, "ws");
  const temp = join(base, "tmp");
  for (const d of [dir, temp]) mkdirSync(d, { recursive: true });
  const made: LocalEnvironment[] = [];
  return {
    dir,
    temp,
    env(options = {}) {
      const e = new LocalEnvironment({ root: dir, home: join(base, "home"), killGraceMs: 300, ...options });
      made.push(e);
      return e;
    },
    async dispose() {
      for (const e of made) await e.cleanup();
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/** True when no process with this pid exists any more (polls briefly: a killed process needs a moment to go). */
export async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (!alive(pid)) return true;
    await Bun.sleep(10);
  }
  return false;
}

/** True when every member of the process group has exited (zombies waiting for a reaper count as exited). */
export async function groupGone(pgid: number): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (livingMembers(pgid).length === 0) return true;
    await Bun.sleep(10);
  }
  return false;
}

function livingMembers(pgid: number): number[] {
  const rows = Bun.spawnSync(["ps", "-eo", "pid=,pgid=,stat="]).stdout.toString().trim().split("\n");
  return rows
    .map((row) => row.trim().split(/\s+/))
    .filter(([, group, state]) => Number(group) === pgid && !state.startsWith("Z"))
    .map(([pid]) => Number(pid));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie still answers signal 0; it is dead for our purposes.
  const state = Bun.spawnSync(["ps", "-o", "stat=", "-p", String(pid)]).stdout.toString().trim();
  return state !== "" && !state.startsWith("Z");
}
