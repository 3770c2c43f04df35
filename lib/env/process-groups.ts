/**
 * Process groups started by an environment (003 §B "kill process tree").
 *
 * Each command runs detached, so its shell leads a new process group and every child it starts
 * (`sleep 100 &`, a pipeline, a dev server) belongs to that group. Signalling the negative pid
 * reaches all of them at once, which killing the shell alone would not.
 */
import process from "node:process";

export class ProcessGroups {
  private readonly groups = new Set<number>();

  add(pgid: number): void {
    this.groups.add(pgid);
  }

  /** Forget a group once it has no members left. */
  forgetIfEmpty(pgid: number): void {
    if (!isGroupAlive(pgid)) this.groups.delete(pgid);
  }

  /** SIGTERM every remaining group, then SIGKILL those still alive after `graceMs`. */
  async killAll(graceMs: number): Promise<void> {
    const alive = [...this.groups].filter(isGroupAlive);
    for (const pgid of alive) signalGroup(pgid, "SIGTERM");
    const deadline = Date.now() + graceMs;
    while (alive.some(isGroupAlive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    for (const pgid of alive) signalGroup(pgid, "SIGKILL");
    this.groups.clear();
  }

  get size(): number {
    return this.groups.size;
  }
}

/** Send `signal` to the whole group; false when no member is left. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (e) {
    if ((e as { code?: string }).code === "ESRCH") return false;
    // No process groups here (Windows): signal the leader alone.
    try {
      process.kill(pgid, signal);
      return true;
    } catch {
      return false;
    }
  }
}

export function isGroupAlive(pgid: number): boolean {
  return signalGroup(pgid, 0);
}
