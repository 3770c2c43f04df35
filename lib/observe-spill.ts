/**
 * Where the framework truncator keeps full outputs (spec 001 §4): one JSON file per truncated
 * result under `<root>/<dir>/`, written atomically, never overwriting another, swept after the
 * retention period, and kept out of `git status` through `.git/info/exclude`.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { appendFile, link, mkdir, readdir, rename, stat, unlink, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import process from "node:process";

const DAY_MS = 24 * 60 * 60 * 1000;
const SPILL_FILE = /^tool_.+\.json$/;
const TEMP_FILE = /^\.tool_.+\.tmp$/;

/** "20260113_153045" in UTC, so names sort by time and never repeat across a DST change. */
export function spillStamp(date: Date): string {
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
 * Writes `json` to `<dir>/tool_<stamp>_<Tool>.json` (with `_2`, `_3`… when taken) and returns the
 * absolute path. The content goes to a temp file first and is then hard-linked to the final name:
 * the link fails instead of overwriting, so two spills in the same second never collide, and
 * a reader never sees a half-written file.
 */
export async function writeSpill(dir: string, toolName: string, json: string, now: Date): Promise<string> {
  await mkdir(dir, { recursive: true });
  const base = `tool_${spillStamp(now)}_${safeToolName(toolName)}`;
  const temp = join(dir, `.${base}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  await writeFile(temp, json);
  try {
    for (let n = 1; ; n++) {
      const target = join(dir, n === 1 ? `${base}.json` : `${base}_${n}.json`);
      const placed = await place(temp, target);
      if (placed) return target;
    }
  } finally {
    await unlink(temp).catch(() => {});
  }
}

/** true when `temp` now also lives at `target`; false when the name is taken. */
async function place(temp: string, target: string): Promise<boolean> {
  try {
    await link(temp, target);
    return true;
  } catch (e) {
    if (errorCode(e) === "EEXIST") return false;
    // Filesystems without hard links: fall back to a checked rename.
    if (existsSync(target)) return false;
    await rename(temp, target);
    return true;
  }
}

/** Deletes spill files (and stray temp files) older than `retentionDays`; returns how many. */
export async function sweepSpills(dir: string, retentionDays: number, now: Date): Promise<number> {
  if (!(retentionDays > 0)) return 0;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  const cutoff = now.getTime() - retentionDays * DAY_MS;
  let removed = 0;
  for (const name of names) {
    if (!SPILL_FILE.test(name) && !TEMP_FILE.test(name)) continue;
    const path = join(dir, name);
    try {
      const info = await stat(path);
      if (!info.isFile() || info.mtimeMs >= cutoff) continue;
      await unlink(path);
      removed++;
    } catch {
      // Gone already or not ours to delete: the sweep is best effort.
    }
  }
  return removed;
}

/**
 * Adds `dir` to the enclosing repository's `.git/info/exclude` (once), so spilled outputs never
 * show up in `git status`. Does nothing outside a repository or when `dir` is outside the work tree.
 */
export async function excludeFromGit(dir: string): Promise<void> {
  const repo = findRepository(dirname(resolve(dir)));
  if (!repo) return;
  const rel = relative(repo.workTree, resolve(dir));
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return;
  const pattern = `/${rel.split(sep).join("/")}/`;
  const excludeFile = join(repo.gitDir, "info", "exclude");
  let current = "";
  try {
    current = readFileSync(excludeFile, "utf8");
  } catch {
    await mkdir(dirname(excludeFile), { recursive: true });
  }
  if (current.split(/\r?\n/).some((line) => line.trim() === pattern)) return;
  const separator = current === "" || current.endsWith("\n") ? "" : "\n";
  await appendFile(excludeFile, `${separator}${pattern}\n`);
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
