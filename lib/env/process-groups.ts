/**
 * Process groups started by an environment (003 §B "kill process tree").
 *
 * Each command runs detached, so its shell leads a new process group and every child it starts
 * (`sleep 100 &`, a pipeline, a dev server) belongs to that group. Signalling the negative pid
 * reaches all of them at once, which killing the shell alone would not.
 */
import { readdirSync, readFileSync } from "node:fs";
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

/**
 * A group is alive while a member still runs. Zombies do not count: where the container's init
 * reaps orphans late, a killed child lingers as a zombie, and waiting for it would add the whole
 * kill grace to every abort.
 */
export function isGroupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  return process.platform !== "linux" || (hasRunningMember(pgid) ?? true);
}

/** Scans /proc for a member of `pgid` that is not a zombie; undefined when /proc cannot be read. */
function hasRunningMember(pgid: number): boolean | undefined {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid pgrp …" — comm may hold spaces and parentheses, so split after the last ")".
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(pgrp) === pgid && state !== "Z" && state !== "X") return true;
  }
  return false;
}
