/**
 * Where complete tool outputs go when the model sees only part of them
 * (docs/conformance.md: 001 §4): one text file per tool call under `<root>/tool-output/`, written
 * to a temp file and renamed into place (a reader never sees half a file), never overwriting
 * another, capped in size (past the cap bytes are counted, not stored), swept by age, held to a
 * size budget for the whole folder, and kept out of `git status` through `.git/info/exclude`.
 *
 * The budget bounds what is on disk at every moment, captures still being written included: a
 * store knows the finished files of its folder (one scan, then its own writes and deletions), and
 * before a live capture may store more it deletes the oldest finished files to make room; what no
 * room is left for is counted, not stored.
 *
 * The file holds the output's text itself, not a JSON wrapper: the model is pointed at it to page
 * through with read or search with grep, which only works on the text.
 */
import {
  appendFileSync,
  closeSync,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { readdir, stat, unlink } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { isInside } from "../paths.ts";
import { sweepTempFiles, tempPathFor } from "../temp-files.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
const SPILL_FILE = /^tool_.+\.(txt|json)$/;

export interface SpillOptions {
  /** Absolute directory. */
  dir: string;
  /** Bytes stored per file; the rest is counted only. */
  capBytes: number;
  /** Days a file is kept; 0 keeps them forever. */
  retentionDays: number;
  /** Total bytes the folder may hold; the oldest files go first. 0 = no budget. */
  budgetBytes: number;
  now: () => Date;
}

/** One call's spill file while it is being written. */
export class SpillWriter {
  private fd: number | undefined;
  private stored = 0;
  private total = 0;
  private failure: string | null = null;
  private readonly temp: string;

  constructor(
    private readonly store: SpillStore,
    private readonly toolName: string,
  ) {
    // A temp name with the owner's pid: a later sweep removes it once its writer is gone (temp-files.ts).
    this.temp = tempPathFor(join(store.dir, `tool_${safeToolName(toolName)}`));
    try {
      mkdirSync(store.dir, { recursive: true });
      this.fd = openSync(this.temp, "wx", 0o600);
    } catch (e) {
      this.failure = reason(e);
    }
  }

  /**
   * Appends bytes up to the cap and what the folder's budget leaves to captures still running;
   * synchronous so the producer's pace is the disk's and memory stays flat.
   */
  write(bytes: Uint8Array): void {
    this.total += bytes.length;
    const room = this.store.options.capBytes - this.stored;
    if (this.fd === undefined || room <= 0) return;
    const granted = this.store.grant(Math.min(room, bytes.length));
    if (granted <= 0) return;
    const part = granted >= bytes.length ? bytes : bytes.subarray(0, granted);
    try {
      for (let off = 0; off < part.length; ) off += writeSync(this.fd, part, off);
      this.stored += part.length;
    } catch (e) {
      this.store.release(part.length);
      this.abandon(reason(e));
    }
  }

  get storedBytes(): number {
    return this.stored;
  }

  get totalBytes(): number {
    return this.total;
  }

  /** Closes the file and moves it to its final name; returns the absolute path, or why there is none. */
  finish(): { path: string } | { failure: string } {
    if (this.fd === undefined) return { failure: this.failure ?? "the spill file was already closed" };
    try {
      closeSync(this.fd);
      this.fd = undefined;
      this.store.release(this.stored); // from here on the file is on disk, where sweeps count it
      const path = placeUnique(
        this.temp,
        this.store.options.dir,
        `tool_${spillStamp(this.store.options.now())}_${safeToolName(this.toolName)}`,
      );
      this.store.written(path, this.stored);
      return { path };
    } catch (e) {
      this.abandon(reason(e));
      return { failure: this.failure! };
    }
  }

  /** Drops the file: a partial file would claim to be complete. */
  abandon(why: string): void {
    this.failure ??= why;
    if (this.fd !== undefined) {
      this.store.release(this.stored);
      try {
        closeSync(this.fd);
      } catch {
        // closing is best effort
      }
    }
    this.fd = undefined;
    try {
      unlinkSync(this.temp);
    } catch {
      // gone already
    }
  }
}

export class SpillStore {
  private excluded = false;
  private sweeping: Promise<unknown> = Promise.resolve();
  /** Bytes in spill files still being written (a command still running, output nobody read yet). */
  private live = 0;
  /** The folder's finished spill files, oldest first, with their sizes (read once, then kept up to date). */
  private finished: Map<string, number> | undefined;
  private finishedBytes = 0;

  constructor(readonly options: SpillOptions) {}

  get dir(): string {
    return this.options.dir;
  }

  open(toolName: string): SpillWriter {
    return new SpillWriter(this, toolName);
  }

  /** A file was placed (its bytes were live until now): keep it out of git, then sweep expired files in the background. */
  written(path: string, bytes: number): void {
    if (this.finished) {
      this.finished.set(path, bytes);
      this.finishedBytes += bytes;
    }
    if (!this.excluded) {
      this.excluded = true;
      try {
        excludeFromGit(this.dir);
      } catch {
        // Not being excluded from git is no reason to lose the output.
      }
    }
    this.sweeping = this.sweeping.then(() => this.sweep(path)).catch(() => 0);
  }

  /**
   * How many of `bytes` a live capture may store: the finished files and the captures still being
   * written share the folder's budget, and the oldest finished files are deleted to make room.
   */
  grant(bytes: number): number {
    const budget = this.options.budgetBytes;
    if (budget <= 0) return bytes;
    const finished = this.finishedFiles();
    for (const [path, size] of finished) {
      if (this.live + this.finishedBytes + bytes <= budget) break;
      removeSpill(path);
      finished.delete(path);
      this.finishedBytes -= size;
    }
    const granted = Math.max(0, Math.min(bytes, budget - this.live - this.finishedBytes));
    this.live += granted;
    return granted;
  }

  /** Bytes of a live capture that are no longer live (its file was placed or dropped). */
  release(bytes: number): void {
    this.live = Math.max(0, this.live - bytes);
  }

  /** The finished files, oldest first: scanned the first time (and after a sweep), then kept by this store. */
  private finishedFiles(): Map<string, number> {
    if (this.finished) return this.finished;
    const files = finishedSpills(this.dir);
    this.finished = new Map(files.map((f) => [f.path, f.size]));
    this.finishedBytes = files.reduce((n, f) => n + f.size, 0);
    return this.finished;
  }

  get liveBytes(): number {
    return this.live;
  }

  /** Resolves once the sweeps started so far are done. */
  settled(): Promise<unknown> {
    return this.sweeping;
  }

  /** Deletes expired files and, past the budget, the oldest ones; returns how many. */
  async sweep(keep?: string): Promise<number> {
    const removed = await sweepSpills(this.dir, {
      retentionDays: this.options.retentionDays,
      budgetBytes: this.options.budgetBytes,
      now: this.options.now(),
      keep,
      liveBytes: this.live,
    });
    // The folder changed under the account (and other processes may write there too): read it again when next needed.
    if (removed > 0) this.finished = undefined;
    return removed;
  }
}

/** The spill files in `dir` with their sizes, oldest first (none when it cannot be read). */
function finishedSpills(dir: string): Array<{ path: string; size: number }> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const files: Array<{ path: string; size: number; mtimeMs: number }> = [];
  for (const name of names) {
    if (!SPILL_FILE.test(name)) continue;
    const path = join(dir, name);
    const info = statSync(path, { throwIfNoEntry: false });
    if (info?.isFile()) files.push({ path, size: info.size, mtimeMs: info.mtimeMs });
  }
  return files.sort((a, b) => a.mtimeMs - b.mtimeMs);
}

function removeSpill(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Gone already, or not ours to delete: either way it no longer counts.
  }
}

/** "20260113_153045" in UTC, so names sort by time and never repeat across a DST change. */
function spillStamp(date: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return (
    `${date.getUTCFullYear()}${p(date.getUTCMonth() + 1)}${p(date.getUTCDate())}_` +
    `${p(date.getUTCHours())}${p(date.getUTCMinutes())}${p(date.getUTCSeconds())}`
  );
}

/** Tool names from MCP servers may hold ':' or '/': keep file names portable. */
function safeToolName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 80) || "tool";
}

/**
 * Gives `temp` the name `<base>.txt` (or `<base>_2.txt`, …) in `dir`. A hard link fails instead
 * of overwriting, so two spills in the same second never collide.
 */
function placeUnique(temp: string, dir: string, base: string): string {
  for (let n = 1; ; n++) {
    const target = join(dir, n === 1 ? `${base}.txt` : `${base}_${n}.txt`);
    try {
      linkSync(temp, target);
      unlinkSync(temp);
      return target;
    } catch (e) {
      if (errorCode(e) === "EEXIST") continue;
      // Filesystems without hard links: fall back to a checked rename.
      if (existsSync(target)) continue;
      renameSync(temp, target);
      return target;
    }
  }
}

export interface SweepRule {
  retentionDays: number;
  budgetBytes: number;
  now: Date;
  /** A file never deleted (the one just written). */
  keep?: string;
  /** Bytes of captures still being written: they count against the budget and are never deleted. */
  liveBytes?: number;
}

/**
 * Deletes spill files older than the retention period, then the oldest ones until the folder
 * fits the budget, and temp files whose writer is gone. Returns how many were deleted; never throws.
 */
export async function sweepSpills(dir: string, rule: SweepRule): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  const cutoff = rule.retentionDays > 0 ? rule.now.getTime() - rule.retentionDays * DAY_MS : -Infinity;
  const files: Array<{ path: string; size: number; mtimeMs: number }> = [];
  let removed = (await sweepTempFiles(dir)).length;
  const remove = async (path: string) => {
    try {
      await unlink(path);
      removed++;
      return true;
    } catch {
      return false; // gone already or not ours to delete: the sweep is best effort
    }
  };
  for (const name of names) {
    if (!SPILL_FILE.test(name)) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => null);
    if (!info?.isFile() || path === rule.keep) continue;
    if (info.mtimeMs < cutoff) await remove(path);
    else files.push({ path, size: info.size, mtimeMs: info.mtimeMs });
  }
  if (rule.budgetBytes > 0) {
    const keptSize = rule.keep ? ((await stat(rule.keep).catch(() => null))?.size ?? 0) : 0;
    let total = keptSize + (rule.liveBytes ?? 0) + files.reduce((n, f) => n + f.size, 0);
    for (const f of files.sort((a, b) => a.mtimeMs - b.mtimeMs)) {
      if (total <= rule.budgetBytes) break;
      if (await remove(f.path)) total -= f.size;
    }
  }
  return removed;
}

/**
 * Adds `dir` to the enclosing repository's `.git/info/exclude` (once), so spilled outputs never
 * show up in `git status`. Does nothing outside a repository or when `dir` is outside the work tree.
 */
function excludeFromGit(dir: string): void {
  const repo = findRepository(dirname(resolve(dir)));
  if (!repo) return;
  const rel = relative(repo.workTree, resolve(dir));
  if (rel === "" || !isInside(resolve(dir), repo.workTree)) return;
  const pattern = `/${rel.split(sep).join("/")}/`;
  const excludeFile = join(repo.gitDir, "info", "exclude");
  let current = "";
  try {
    current = readFileSync(excludeFile, "utf8");
  } catch {
    mkdirSync(dirname(excludeFile), { recursive: true });
  }
  if (current.split(/\r?\n/).some((line) => line.trim() === pattern)) return;
  const separator = current === "" || current.endsWith("\n") ? "" : "\n";
  appendFileSync(excludeFile, `${separator}${pattern}\n`);
}

/** The work tree holding `from` and the git directory whose info/exclude applies to it. */
function findRepository(from: string): { workTree: string; gitDir: string } | null {
  for (let dir = from; ; dir = dirname(dir)) {
    const dotGit = join(dir, ".git");
    try {
      const info = statSync(dotGit);
      if (info.isDirectory()) return { workTree: dir, gitDir: dotGit };
      // A worktree or submodule: ".git" is a file "gitdir: <path>"; exclude lives in the common dir.
      const pointed = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"));
      if (!pointed) return null;
      const gitDir = resolve(dir, pointed[1].trim());
      const common = join(gitDir, "commondir");
      const commonDir = existsSync(common) ? resolve(gitDir, readFileSync(common, "utf8").trim()) : gitDir;
      return { workTree: dir, gitDir: commonDir };
    } catch {
      if (dirname(dir) === dir) return null;
    }
  }
}

function errorCode(e: unknown): string | undefined {
  return typeof e === "object" && e !== null && "code" in e ? String((e as { code: unknown }).code) : undefined;
}

function reason(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
