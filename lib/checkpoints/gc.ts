/**
 * Pruning the checkpoint store: checkpoints older than `retentionDays` go, then the oldest ones
 * until the blobs they need fit in `maxStoreBytes`; blobs no remaining checkpoint needs go last.
 * What each workspace looks like now (its last checkpoint, what each session last saw) is always
 * kept, and so is every file written in the last hour (a checkpoint being taken now writes its
 * blobs before its manifest).
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { CheckpointSettings } from "./settings.ts";
import type { CheckpointStore, Manifest } from "./store.ts";

export interface GcResult {
  checkpointsRemoved: number;
  checkpointsKept: number;
  blobsRemoved: number;
  bytesFreed: number;
  /** Bytes of the blobs the kept checkpoints need. */
  bytesKept: number;
}

const RECENT_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

export function collectGarbage(store: CheckpointStore, settings: CheckpointSettings, now = Date.now()): GcResult {
  const pinned = pinnedManifests(store);
  const manifests = list(join(store.root, "manifests"))
    .filter((f) => f.name.endsWith(".json"))
    .map((f) => ({ id: f.name.slice(0, -5), mtime: f.mtime }))
    .sort((a, b) => b.mtime - a.mtime);
  const keep: { id: string; mtime: number; manifest: Manifest }[] = [];
  const drop: string[] = [];
  for (const m of manifests) {
    const young = now - m.mtime < settings.retentionDays * DAY_MS;
    if (!young && !pinned.has(m.id)) {
      drop.push(m.id);
      continue;
    }
    try {
      keep.push({ ...m, manifest: store.readManifest(m.id) });
    } catch {
      drop.push(m.id); // damaged: nothing can be restored from it
    }
  }
  // Blob sizes, and how many kept checkpoints need each.
  const size = new Map<string, number>();
  for (const dir of list(join(store.root, "blobs")))
    for (const blob of list(join(store.root, "blobs", dir.name))) size.set(blob.name, blob.size);
  const refs = new Map<string, number>();
  let kept = 0;
  const hashesOf = (m: Manifest) => new Set(Object.values(m.entries).flatMap((e) => ("h" in e ? [e.h] : [])));
  for (const k of keep) {
    for (const h of hashesOf(k.manifest)) {
      const n = refs.get(h) ?? 0;
      if (n === 0) kept += size.get(h) ?? 0;
      refs.set(h, n + 1);
    }
  }
  // Over budget: the oldest checkpoints that are not pinned go first.
  for (let i = keep.length - 1; i >= 0 && kept > settings.maxStoreBytes; i--) {
    if (pinned.has(keep[i].id)) continue;
    for (const h of hashesOf(keep[i].manifest)) {
      const n = (refs.get(h) ?? 1) - 1;
      if (n === 0) {
        refs.delete(h);
        kept -= size.get(h) ?? 0;
      } else refs.set(h, n);
    }
    drop.push(keep[i].id);
    keep.splice(i, 1);
  }
  for (const id of drop) store.remove(store.manifestPath(id));
  let blobsRemoved = 0;
  let bytesFreed = 0;
  for (const dir of list(join(store.root, "blobs"))) {
    for (const blob of list(join(store.root, "blobs", dir.name))) {
      if (refs.has(blob.name) || now - blob.mtime < RECENT_MS) continue;
      store.remove(join(store.root, "blobs", dir.name, blob.name));
      blobsRemoved++;
      bytesFreed += blob.size;
    }
  }
  store.writeAtomic(join(store.root, "gc-stamp"), new Date(now).toISOString());
  return { checkpointsRemoved: drop.length, checkpointsKept: keep.length, blobsRemoved, bytesFreed, bytesKept: kept };
}

/** True when gc has not run for a day (the session runs it then, once). */
export function gcDue(store: CheckpointStore, now = Date.now()): boolean {
  try {
    return now - statSync(join(store.root, "gc-stamp")).mtimeMs > DAY_MS;
  } catch {
    return true;
  }
}

/** Each workspace's last checkpoint and what each session last saw. */
function pinnedManifests(store: CheckpointStore): Set<string> {
  const pinned = new Set<string>();
  const workspaces = join(store.root, "workspaces");
  for (const ws of list(workspaces)) {
    const last = store.readText(join(workspaces, ws.name, "last"))?.trim();
    if (last) pinned.add(last);
    for (const seen of list(join(workspaces, ws.name, "seen"))) {
      const id = store.readText(join(workspaces, ws.name, "seen", seen.name))?.trim();
      if (id) pinned.add(id);
    }
  }
  return pinned;
}

function list(dir: string): { name: string; mtime: number; size: number }[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    if (name.startsWith(".")) return []; // a temp file of a write in progress
    try {
      const st = statSync(join(dir, name));
      return [{ name, mtime: st.mtimeMs, size: st.size }];
    } catch {
      return [];
    }
  });
}
