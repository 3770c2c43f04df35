/**
 * Putting a checkpoint's files back, all or nothing.
 *
 * The plan compares the workspace as it stands (a fresh checkpoint, which is also what undoes the
 * rewind) with the target: files to write, to remove, to chmod. Paths either checkpoint skipped
 * (ignored, too large, unreadable) are never touched. Then:
 *   1. a journal naming the staging folder and the pre-rewind checkpoint is written to the store;
 *   2. every new content is staged in `.gong-rewind-<pid>-<random>/` at the workspace root (same
 *      file system, so step 3 is renames) — a missing or corrupt blob stops here, nothing touched;
 *   3. removals, new directories, renames into place, modes;
 *   4. the staging folder and the journal go.
 * A failure in step 3 puts the pre-rewind checkpoint back; a process killed in step 3 leaves the
 * journal, and the next checkpoint or rewind of that workspace puts it back first (recover()).
 */
import {
  accessSync,
  chmodSync,
  constants,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { isInside } from "../paths.ts";
import process from "node:process";
import { randomHex } from "../hash.ts";
import { sha256, type CheckpointStore, type Manifest, type ManifestEntry } from "./store.ts";
import { holdIfAsked } from "./test-hold.ts";

/** The prefix of a rewind's staging folder (the snapshot walk never enters one). */
export const STAGING_PREFIX = ".gong-rewind-";

export interface FileChange {
  path: string;
  /** write: content (or type) differs or the path is missing; remove: absent from the target; chmod: only the mode differs. */
  action: "write" | "remove" | "chmod";
  /** What the path is now (undefined when absent) and what it becomes (undefined when removed). */
  from?: ManifestEntry;
  to?: ManifestEntry;
}

/** A rewind that cannot be done as asked; the message is one sentence naming the file. */
export class RewindError extends Error {
  constructor(
    message: string,
    readonly path?: string,
  ) {
    super(message);
    this.name = "RewindError";
  }
}

/** Files changed since gong last saw the workspace: rewinding would overwrite work gong never stored. */
export class RewindConflictError extends RewindError {
  constructor(readonly paths: string[]) {
    super(
      `Changed outside gong since it last saw them: ${paths.slice(0, 5).join(", ")}${paths.length > 5 ? ` and ${paths.length - 5} more` : ""}; rewind again with force to overwrite them.`,
      paths[0],
    );
    this.name = "RewindConflictError";
  }
}

interface Journal {
  staging: string;
  /** The checkpoint of the workspace before the rewind began: what a crashed rewind goes back to. */
  undo: string;
  /** The checkpoint it was putting back (its paths may have been created). */
  target: string;
}

const sameEntry = (a: ManifestEntry | undefined, b: ManifestEntry | undefined): boolean =>
  a === b ||
  (a !== undefined &&
    b !== undefined &&
    a.t === b.t &&
    ("h" in a ? a.h : "") === ("h" in b ? b.h : "") &&
    ("m" in a ? a.m : -1) === ("m" in b ? b.m : -1));

/** True when `path` or a folder above it is in `skipped`. */
function underSkipped(skipped: Manifest["skipped"], path: string): boolean {
  for (let p = path; ; ) {
    if (skipped[p] !== undefined) return true;
    const cut = p.lastIndexOf("/");
    if (cut < 0) return false;
    p = p.slice(0, cut);
  }
}

/** What a rewind from `current` to `target` changes; throws RewindError for a path that became a directory. */
export function planRestore(current: Manifest, target: Manifest): FileChange[] {
  const changes: FileChange[] = [];
  const untouchable = (p: string) => underSkipped(target.skipped, p) || underSkipped(current.skipped, p);
  for (const [path, to] of Object.entries(target.entries)) {
    if (untouchable(path)) continue;
    const from = current.entries[path];
    if (sameEntry(from, to)) continue;
    if (from?.t === "d" && to.t !== "d") {
      throw new RewindError(
        `Cannot rewind: ${path} is now a directory but was a file at that checkpoint; move it away and rewind again.`,
        path,
      );
    }
    const onlyMode = from !== undefined && from.t === to.t && ("h" in from ? from.h : "") === ("h" in to ? to.h : "");
    changes.push({ path, action: onlyMode ? "chmod" : "write", from, to });
  }
  for (const [path, from] of Object.entries(current.entries)) {
    if (target.entries[path] === undefined && !untouchable(path)) changes.push({ path, action: "remove", from });
  }
  return changes;
}

/** Paths the plan changes that differ from what gong last saw (`seen`): someone else changed them. */
export function conflictsOf(changes: FileChange[], current: Manifest, seen: Manifest | undefined): string[] {
  if (!seen) return [];
  return changes
    .filter((c) => (c.from?.t ?? c.to?.t) !== "d" && !sameEntry(current.entries[c.path], seen.entries[c.path]))
    .map((c) => c.path)
    .sort();
}

export interface ApplyOptions {
  store: CheckpointStore;
  root: string;
  /** The checkpoint of the workspace as it stands (the plan's `from` side). */
  undoId: string;
  /** The checkpoint being put back. */
  targetId: string;
}

/** Puts `changes` in place all or nothing (see the file comment). */
export function applyChanges(changes: FileChange[], options: ApplyOptions): void {
  const { store, root, undoId, targetId } = options;
  if (changes.length === 0) return;
  checkPaths(changes, root);
  const staging = join(root, `${STAGING_PREFIX}${process.pid}-${randomHex(4)}`);
  const journalPath = join(store.workspaceDir(root), "journal.json");
  const journal: Journal = { staging, undo: undoId, target: targetId };
  store.writeAtomic(journalPath, JSON.stringify(journal));
  const staged = new Map<string, string>();
  try {
    stage(changes, store, staging, staged);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    store.remove(journalPath);
    throw asRewindError(e, root);
  }
  try {
    commit(changes, staged, root);
  } catch (e) {
    // Back to where the rewind began, then say what stopped it.
    restoreManifest(store, root, store.readManifest(undoId), store.readManifest(targetId), staging);
    throw asRewindError(e, root);
  }
  rmSync(staging, { recursive: true, force: true });
  store.remove(journalPath);
}

/** A rewind of this workspace killed halfway: put the workspace back as it was before it. */
export function recover(store: CheckpointStore, root: string): boolean {
  const journalPath = join(store.workspaceDir(root), "journal.json");
  const text = store.readText(journalPath);
  if (text === undefined) return false;
  const journal = JSON.parse(text) as Journal;
  restoreManifest(store, root, store.readManifest(journal.undo), store.readManifest(journal.target), journal.staging);
  rmSync(journal.staging, { recursive: true, force: true });
  store.remove(journalPath);
  return true;
}

/** Forces the workspace back to `manifest` (a rollback): paths `manifest` or `other` know are made as `manifest` has them. */
function restoreManifest(
  store: CheckpointStore,
  root: string,
  manifest: Manifest,
  other: Manifest,
  oldStaging: string,
): void {
  rmSync(oldStaging, { recursive: true, force: true });
  const changes = planRestore(scanLoosely(root, [manifest, other], manifest.skipped), manifest);
  const staging = `${oldStaging}-back`;
  rmSync(staging, { recursive: true, force: true });
  const staged = new Map<string, string>();
  stage(changes, store, staging, staged);
  commit(changes, staged, root, false);
  rmSync(staging, { recursive: true, force: true });
}

/** Writes every new content of `changes` into the staging folder (a missing or corrupt blob throws here). */
function stage(changes: FileChange[], store: CheckpointStore, staging: string, staged: Map<string, string>): void {
  mkdirSync(staging, { mode: 0o700 });
  for (const change of changes) {
    const to = change.to;
    if (change.action !== "write" || !to || to.t === "d") continue;
    const temp = join(staging, String(staged.size));
    if (to.t === "l") symlinkSync(store.readBlob(to.h).toString(), temp);
    else {
      writeFileSync(temp, store.readBlob(to.h), { mode: 0o600 });
      chmodSync(temp, to.m);
    }
    staged.set(change.path, temp);
  }
}

/**
 * What is on disk at the paths the manifests know, without storing anything: a file whose size
 * matches `manifest`'s is hashed, so unchanged files are left out of a rollback's plan.
 */
function scanLoosely(root: string, manifests: Manifest[], skipped: Manifest["skipped"]): Manifest {
  const entries: Manifest["entries"] = {};
  const want = manifests[0].entries;
  for (const manifest of manifests) {
    for (const rel of Object.keys(manifest.entries)) {
      if (entries[rel]) continue;
      try {
        const abs = join(root, rel);
        const st = lstatSync(abs);
        const w = want[rel];
        if (st.isDirectory()) entries[rel] = { t: "d", m: st.mode & 0o7777 };
        else if (st.isSymbolicLink()) entries[rel] = { t: "l", h: w?.t === "l" ? sha256(readlinkSync(abs)) : "" };
        else
          entries[rel] = {
            t: "f",
            m: st.mode & 0o7777,
            h: w?.t === "f" && w.s === st.size ? sha256(readFileSync(abs)) : "",
            s: st.size,
          };
      } catch {
        // absent
      }
    }
  }
  return { v: 1, entries, skipped };
}

function commit(changes: FileChange[], staged: Map<string, string>, root: string, mayHold = true): void {
  const abs = (p: string) => join(root, p);
  const deepestFirst = (a: FileChange, b: FileChange) => b.path.length - a.path.length;
  // 1. What must go: removed files and links, and whatever stands where a directory must be.
  for (const c of changes
    .filter((c) => c.from && c.from.t !== "d" && (c.action === "remove" || (c.action === "write" && c.to?.t === "d")))
    .sort(deepestFirst)) {
    rmSync(abs(c.path), { force: true });
  }
  // 2. New directories, parents first.
  for (const c of changes
    .filter((c) => c.action === "write" && c.to?.t === "d")
    .sort((a, b) => a.path.length - b.path.length)) {
    mkdirSync(abs(c.path), { recursive: true });
    chmodSync(abs(c.path), (c.to as { m: number }).m);
  }
  // 3. Contents, each one rename.
  const writes = [...staged];
  writes.forEach(([path, temp], i) => {
    if (mayHold && i === Math.floor(writes.length / 2) && i > 0) holdIfAsked("rewind");
    renameSync(temp, abs(path));
  });
  // 4. Modes, then directories that must go (one still holding skipped files stays).
  for (const c of changes) if (c.action === "chmod" && c.to && c.to.t !== "l") chmodSync(abs(c.path), c.to.m);
  for (const c of changes.filter((c) => c.action === "remove" && c.from?.t === "d").sort(deepestFirst)) {
    try {
      rmdirSync(abs(c.path));
    } catch {
      // Not empty: it holds files no checkpoint covers; they are left alone.
    }
  }
}

/**
 * Checks before anything is touched: no change may go through a symbolic link that leads outside
 * the workspace, and every folder to write in must be writable.
 */
function checkPaths(changes: FileChange[], root: string): void {
  const realRoot = realpathSync(root);
  const checked = new Set<string>();
  for (const change of changes) {
    const parts = change.path.split("/");
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join("/");
      if (checked.has(dir)) continue;
      checked.add(dir);
      let st: ReturnType<typeof lstatSync>;
      try {
        st = lstatSync(join(root, dir));
      } catch {
        continue;
      }
      if (!st.isSymbolicLink()) continue;
      let real: string;
      try {
        real = realpathSync(join(root, dir));
      } catch {
        continue; // dangling: replacing it touches nothing outside
      }
      if (!isInside(real, realRoot)) {
        throw new RewindError(
          `Cannot rewind: ${dir} is now a symbolic link to ${real}, outside the workspace; remove it and rewind again.`,
          dir,
        );
      }
    }
    // The folder the change happens in (the nearest one that exists) must let us write.
    const cut = change.path.lastIndexOf("/");
    for (
      let dir = cut < 0 ? "" : change.path.slice(0, cut);
      ;
      dir = dir.includes("/") ? dir.slice(0, dir.lastIndexOf("/")) : ""
    ) {
      try {
        accessSync(join(root, dir), constants.W_OK);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT" && dir !== "") continue;
        throw new RewindError(
          `Cannot rewind: ${change.path} cannot be ${change.action === "remove" ? "removed" : "written"} (${dir || "the workspace folder"} is not writable); nothing was changed.`,
          change.path,
        );
      }
    }
  }
}

function asRewindError(e: unknown, root: string): Error {
  if (e instanceof RewindError) return e;
  const err = e as NodeJS.ErrnoException;
  if (err.name === "CheckpointStoreError") return err;
  const path = typeof err.path === "string" && isInside(err.path, root) ? relative(root, err.path) : undefined;
  const what = path || (err.path ?? "a file");
  return new RewindError(
    `Cannot rewind: ${what} could not be written (${err.code ?? err.message}); nothing was changed.`,
    what,
  );
}
