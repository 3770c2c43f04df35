/**
 * Process trees started by an environment (docs/conformance.md: 003 §B "kill process tree"): a
 * command and everything it started, including processes that left its process group (`setsid`),
 * double-forked away from their parent, or run inside a sandbox's PID namespace.
 *
 * Every process started for a tool carries a marker variable naming its tree (`treeEnv()`);
 * children inherit it. On Linux, membership is one pass over /proc: a living process belongs to a
 * tree when its environment carries the tree's marker, when it is in the tree's process group, or
 * when its parent belongs. Where /proc cannot be read (macOS, BSD), the process group alone is used.
 *
 * Anything spawned for a tool — a one-shot command, a background shell session — must be opened
 * here and started with `treeEnv()`, so timeout, abort, cleanup and gong's own exit reach it. An
 * exit that runs no hook (SIGKILL) is covered by the death watch (death-watch.ts): every marker
 * starts with the gong process's mark, and the watch is told which command groups are live.
 */
import { randomHex } from "../hash.ts";
import { readdirSync, readFileSync } from "node:fs";
import process from "node:process";
import { deathWatch, processMark } from "./death-watch.ts";
import { processStartTicks, procStat } from "./proc-stat.ts";

/** The variable that marks a process as started for a tool; nested gongs append their own marks. */
export const TREE_MARKER = "GONG_PROCESS_TREE";

const POLL_MS = 20;

export interface ProcessTree {
  /** Marker value, unique per tree: `<environment id>-<sequence>`. */
  readonly id: string;
  /** The first process (the shell): it leads the tree's process group. */
  pid?: number;
  /** Its start time (clock ticks since boot, /proc/<pid>/stat): every member started later. */
  startTicks?: number;
}

/** Every ProcessTrees that started something and was not cleaned up, so gong's exit can still kill it. */
const registries = new Set<ProcessTrees>();

export class ProcessTrees {
  /** Identifies this environment's trees among all gong processes on the machine (and the process's among them). */
  readonly envId = `${processMark()}.${randomHex(3)}`;
  private sequence = 0;
  private readonly open = new Map<string, ProcessTree>();
  /** Start time of the first tree's first process: nothing older can belong to any tree. */
  private earliest: number | undefined;

  /** A new tree: start its first process with `treeEnv(tree, env)`, then set `tree.pid`. */
  openTree(): ProcessTree {
    const tree: ProcessTree = { id: `${this.envId}-${++this.sequence}` };
    this.open.set(tree.id, tree);
    registries.add(this);
    atExit(killEveryTree);
    // Started now, before the first process of the tree: a kill right after the spawn is covered.
    deathWatch();
    return tree;
  }

  /** Records the tree's first process, right after it was spawned. */
  attach(tree: ProcessTree, pid: number | undefined): void {
    if (pid === undefined) return;
    deathWatch().coverGroup(pid);
    tree.pid = pid;
    tree.startTicks = startTicks(pid);
    if (tree.startTicks !== undefined) this.earliest = Math.min(this.earliest ?? tree.startTicks, tree.startTicks);
  }

  /** `env` with the tree's marker added (after any marker an enclosing gong already set). */
  treeEnv(tree: ProcessTree, env: Record<string, string>): Record<string, string> {
    const outer = env[TREE_MARKER];
    return { ...env, [TREE_MARKER]: outer ? `${outer},${tree.id}` : tree.id };
  }

  /** Every living process of every tree this environment opened. */
  running(): number[] {
    return allPids(findMembers(this.envId, null, this.open, this.earliest));
  }

  /**
   * Called when a tree's first process has exited. Processes it left in its group (`server &`) keep
   * the tree open for a group kill; otherwise it is forgotten here without a /proc scan — anything
   * that escaped the group still carries the marker, which cleanup and gong's exit look for.
   */
  settle(tree: ProcessTree): void {
    if (tree.pid === undefined || !groupAlive(tree.pid)) this.forget(tree);
  }

  /** SIGTERM the tree; after `graceMs`, SIGKILL whatever is left. Resolves when nothing of it runs. */
  async kill(tree: ProcessTree, graceMs: number): Promise<void> {
    await this.terminate(new Map([[tree.id, tree]]), graceMs);
    this.forget(tree);
  }

  /** Kill every tree this environment opened, the forgotten ones too (a late double-fork). */
  async killAll(graceMs: number): Promise<void> {
    await this.terminate(null, graceMs);
    this.forgetAll();
  }

  /** SIGKILL everything at once, synchronously: for gong's own exit, where no timer runs any more. */
  killAllSync(): void {
    for (let round = 0; round < 3; round++) {
      const pids = this.running();
      if (pids.length === 0) break;
      for (const pid of pids) signal(pid, "SIGKILL");
      this.signalGroups(this.open, "SIGKILL");
    }
    this.forgetAll();
  }

  /** Where /proc cannot be read, the group is the tree: signal it as a whole. */
  private signalGroups(trees: Map<string, ProcessTree>, name: NodeJS.Signals): void {
    for (const tree of trees.values()) if (tree.pid !== undefined) signalGroup(tree.pid, name);
  }

  private forget(tree: ProcessTree): void {
    if (this.open.delete(tree.id) && tree.pid !== undefined) deathWatch().releaseGroup(tree.pid);
  }

  private forgetAll(): void {
    for (const tree of this.open.values()) this.forget(tree);
    registries.delete(this);
  }

  /** `only` null means every tree of this environment. */
  private async terminate(only: Map<string, ProcessTree> | null, graceMs: number): Promise<void> {
    const since = only ? Math.min(...[...only.values()].map((t) => t.startTicks ?? 0)) : this.earliest;
    const scan = () => allPids(findMembers(this.envId, only, this.open, since));
    const trees = only ?? this.open;
    let pids = scan();
    if (pids.length === 0) return;
    for (const pid of pids) signal(pid, "SIGTERM");
    this.signalGroups(trees, "SIGTERM");
    const deadline = Date.now() + graceMs;
    while (pids.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, POLL_MS));
      pids = scan();
    }
    // Stop before killing, so a process cannot fork a replacement between the scan and the kill.
    for (let round = 0; round < 5 && pids.length > 0; round++) {
      for (const pid of pids) signal(pid, "SIGSTOP");
      // The stopped ones too: a stopped process the next scan misses must not stay stopped forever.
      for (const pid of new Set([...pids, ...scan()])) signal(pid, "SIGKILL");
      this.signalGroups(trees, "SIGKILL");
      await new Promise((r) => setTimeout(r, POLL_MS));
      pids = scan();
    }
  }
}

function killEveryTree(): void {
  for (const registry of [...registries]) registry.killAllSync();
}

const exitHooks = new Set<() => void>();
let exitListened = false;

/**
 * Runs `hook` when this process exits — synchronously, as an `exit` listener must — under the one
 * `exit` listener gong installs: every clean-up that must not be skipped (process trees killed,
 * session locks released, the terminal restored) registers here, once however often it asks.
 * Returns the way to take it back.
 */
export function atExit(hook: () => void): () => void {
  if (!exitListened) {
    exitListened = true;
    process.once("exit", runExitHooks);
  }
  exitHooks.add(hook);
  return () => {
    exitHooks.delete(hook);
  };
}

function runExitHooks(): void {
  for (const hook of [...exitHooks]) {
    try {
      hook();
    } catch {
      // One failed clean-up must not keep the others from running.
    }
  }
}

function signalGroup(pgid: number, name: NodeJS.Signals): void {
  try {
    process.kill(-pgid, name);
  } catch {
    // no member left
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // gone meanwhile
  }
}

function allPids(members: Map<string, number[]>): number[] {
  return [...new Set([...members.values()].flat())];
}

interface ProcInfo {
  ppid: number;
  pgrp: number;
}

/**
 * Living members of this environment's trees, by tree id. `only` limits the answer to those trees
 * (null: every tree whose marker carries `envId`); `groups` supplies the process groups to match
 * when `only` is null. Processes that started before `since` (clock ticks) cannot be members and
 * are not looked at further — on a busy machine that is almost all of them.
 */
function findMembers(
  envId: string,
  only: Map<string, ProcessTree> | null,
  groups: Map<string, ProcessTree> = only ?? new Map(),
  since = 0,
): Map<string, number[]> {
  const trees = only ?? groups;
  const result = new Map<string, number[]>();
  const add = (id: string, pid: number) => {
    const list = result.get(id);
    if (list) list.push(pid);
    else result.set(id, [pid]);
  };
  const byGroup = new Map<number, string>();
  for (const tree of trees.values()) if (tree.pid !== undefined) byGroup.set(tree.pid, tree.id);

  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    // No /proc: the process groups are all we can see.
    for (const [pgid, id] of byGroup) if (groupAlive(pgid)) add(id, pgid);
    return result;
  }

  const needle = Buffer.from(`${TREE_MARKER}=`);
  const mark = `${envId}-`;
  const procs = new Map<number, ProcInfo>();
  const owner = new Map<number, string>();
  const self = process.pid;
  for (const name of names) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const pid = Number(name);
    if (pid === self) continue;
    // "state(3) ppid(4) pgrp(5) … starttime(22)".
    const fields = procStat(pid, 20);
    if (!fields) continue; // gone meanwhile
    const [state, ppid, pgrp] = fields;
    if (state === "Z" || state === "X" || Number(fields[19]) < since) continue;
    const info = { ppid: Number(ppid), pgrp: Number(pgrp) };
    procs.set(pid, info);
    const group = byGroup.get(info.pgrp);
    if (group !== undefined) {
      owner.set(pid, group);
      continue;
    }
    const id = markedTree(pid, needle, mark);
    if (id !== undefined && (only === null || only.has(id))) owner.set(pid, id);
  }
  // Children of members are members, even when they dropped the marker (`env -i`).
  const outside = new Set<number>();
  for (const [pid] of procs) {
    if (owner.has(pid) || outside.has(pid)) continue;
    const chain: number[] = [];
    let at: number | undefined = pid;
    let found: string | undefined;
    while (at !== undefined && at > 1 && !outside.has(at) && !chain.includes(at)) {
      found = owner.get(at);
      if (found !== undefined) break;
      chain.push(at);
      at = procs.get(at)?.ppid;
    }
    for (const p of chain) {
      if (found !== undefined) owner.set(p, found);
      else outside.add(p);
    }
  }
  for (const [pid, id] of owner) add(id, pid);
  return result;
}

/** The tree id in a process's marker that belongs to this environment, if any. */
function markedTree(pid: number, needle: Buffer, mark: string): string | undefined {
  let environ: Buffer;
  try {
    environ = readFileSync(`/proc/${pid}/environ`);
  } catch {
    return undefined; // another user's process, or gone
  }
  const at = environ.indexOf(needle);
  if (at < 0 || (at > 0 && environ[at - 1] !== 0)) return undefined;
  const end = environ.indexOf(0, at);
  const value = environ.subarray(at + needle.length, end < 0 ? undefined : end).toString("latin1");
  return value.split(",").find((id) => id.startsWith(mark));
}

function startTicks(pid: number): number | undefined {
  return processStartTicks(pid);
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
