/**
 * Taking a checkpoint: walk the workspace (honouring .gitignore and .ignore, never entering .git),
 * store the contents of new or changed files as blobs and write the manifest.
 *
 * A stat cache (path → size, mtime, ctime, inode, hash) makes it incremental: a file is read and
 * hashed only when its stat changed, so a checkpoint of an unchanged tree costs one lstat per path.
 * A file modified in the same instant it was hashed could keep its stat: such "racy" entries are
 * hashed again next time (git's rule). When nothing changed, the previous manifest is reused.
 */
import { Buffer } from "node:buffer";
import { lstatSync, readdirSync, readFileSync, readlinkSync, statSync, type Dirent, type Stats } from "node:fs";
import { dirname, join } from "node:path";
import { isInside, toPosixRelative } from "../paths.ts";
import ignore, { type Ignore } from "ignore";
import type { CheckpointSettings } from "./settings.ts";
import type { CheckpointStore, Manifest, ManifestEntry, SkipReason } from "./store.ts";
import { STAGING_PREFIX } from "./restore.ts";
import { holdIfAsked } from "./test-hold.ts";

/** The ignore files a checkpoint honours, in rising precedence. */
const IGNORE_FILES = [".gitignore", ".ignore"] as const;

/** Never entered nor recorded: the project's own version control (a rewind's staging folder is skipped too). */
const NEVER_ENTERED = new Set([".git"]);

export interface Snapshot {
  id: string;
  manifest: Manifest;
  /** Regular files and symbolic links covered. */
  files: number;
  /** Bytes of the files covered. */
  bytes: number;
  /** Files read and hashed this time (the rest came from the stat cache). */
  hashed: number;
}

type CacheRow = [size: number, mtimeMs: number, ctimeMs: number, ino: number, hash: string];

interface Layer {
  /** Directory the rules are relative to, as a workspace path ("" for the root). */
  base: string;
  rules: Ignore;
  parent: Layer | null;
}

/** Takes checkpoints of one workspace; keeps the stat cache and the last manifest between calls. */
export class Snapshotter {
  private cache: Map<string, CacheRow> | null = null;
  private last: { id: string; manifest: Manifest; count: number } | null | undefined;
  /** Each folder's ignore rules, kept while its ignore files keep their stat (the rules cache their answers). */
  private readonly layers = new Map<string, { sig: string; parent: Layer | null; layer: Layer }>();
  private readonly dir: string;
  /** GONG_HOME when it lies inside the workspace (its sessions and this store are never part of a checkpoint). */
  private readonly ownHome: Set<string>;

  constructor(
    private readonly store: CheckpointStore,
    readonly root: string,
    private readonly settings: CheckpointSettings,
  ) {
    this.dir = store.workspaceDir(root);
    const home = dirname(store.root);
    const rel = toPosixRelative(root, home);
    this.ownHome = new Set(!isInside(home, root) ? [] : rel === "." ? ["checkpoints", "sessions"] : [rel]);
  }

  /** The workspace as it stands, stored; the id names its manifest. */
  take(): Snapshot {
    const started = Date.now();
    // The store was deleted under us: what the caches say is stored no longer is.
    if (this.last && !this.store.hasManifest(this.last.id)) {
      this.last = undefined;
      this.cache = null;
    }
    const previous = this.loadLast();
    // Updated in place: on an unchanged tree nothing is allocated per file but the stat.
    const cache = this.loadCache();
    const rels: string[] = [];
    const found: ManifestEntry[] = [];
    const skipped: Record<string, SkipReason> = {};
    const before = previous?.manifest.entries;
    let same = previous !== null;
    let count = 0;
    let files = 0;
    let bytes = 0;
    let hashed = 0;
    let cacheChanged = false;
    let visited = 0;
    const { maxFileBytes, maxCheckpointBytes, maxFiles } = this.settings;

    const contentHash = (rel: string, st: Stats, read: () => Uint8Array): string => {
      visited++;
      const row = cache.get(rel);
      if (row && row[0] === st.size && row[1] === st.mtimeMs && row[2] === st.ctimeMs && row[3] === st.ino)
        return row[4];
      const data = read();
      const hash = this.store.putBlob(data);
      hashed++;
      // Modified within the last moments: the stat may not show a change that follows; hash it again next time.
      const racy = st.mtimeMs >= started - 2 || st.ctimeMs >= started - 2;
      cache.set(rel, [st.size, racy ? -1 : st.mtimeMs, st.ctimeMs, st.ino, hash]);
      cacheChanged = true;
      if (hashed % 64 === 0) holdIfAsked("checkpoint");
      return hash;
    };

    const add = (rel: string, entry: ManifestEntry) => {
      rels.push(rel);
      found.push(entry);
      count++;
      if (same) {
        const old = before?.[rel];
        same =
          old !== undefined &&
          old.t === entry.t &&
          ("h" in old ? old.h : 0) === ("h" in entry ? entry.h : 0) &&
          ("m" in old ? old.m : 0) === ("m" in entry ? entry.m : 0);
      }
    };

    const walk = (abs: string, rel: string, layer: Layer | null): void => {
      let dirents: Dirent[];
      try {
        dirents = readdirSync(abs, { withFileTypes: true });
      } catch {
        if (rel) skipped[rel] = "unreadable";
        return;
      }
      dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      layer = this.withOwnRules(abs, rel, layer, dirents);
      for (const d of dirents) {
        const name = d.name;
        if (NEVER_ENTERED.has(name) || name.startsWith(STAGING_PREFIX)) continue;
        const childRel = rel ? `${rel}/${name}` : name;
        // Plain concatenation: path.join's normalising costs more than the lstat on a large tree.
        const childAbs = `${abs}/${name}`;
        if ((layer && isIgnored(layer, childRel, d.isDirectory())) || this.ownHome.has(childRel)) {
          skipped[childRel] = "ignored";
          continue;
        }
        let st: Stats;
        try {
          st = lstatSync(childAbs);
        } catch {
          continue; // removed while we looked
        }
        if (st.isDirectory()) {
          add(childRel, { t: "d", m: st.mode & 0o7777 });
          walk(childAbs, childRel, layer);
        } else if (st.isSymbolicLink()) {
          try {
            add(childRel, { t: "l", h: contentHash(childRel, st, () => Buffer.from(readlinkSync(childAbs))) });
            files++;
          } catch {
            skipped[childRel] = "unreadable";
          }
        } else if (st.isFile()) {
          if (st.size > maxFileBytes) skipped[childRel] = "too-large";
          else if (files >= maxFiles || bytes + st.size > maxCheckpointBytes) skipped[childRel] = "checkpoint-full";
          else {
            try {
              add(childRel, {
                t: "f",
                m: st.mode & 0o7777,
                h: contentHash(childRel, st, () => readFileSync(childAbs)),
                s: st.size,
              });
              files++;
              bytes += st.size;
            } catch {
              skipped[childRel] = "unreadable";
            }
          }
        } else skipped[childRel] = "special";
      }
    };
    walk(this.root.replace(/\/+$/, ""), "", null);

    if (cacheChanged || visited !== cache.size) {
      // Files that are gone leave the cache.
      if (visited !== cache.size) {
        const kept = new Map<string, CacheRow>();
        for (const rel of rels) {
          const row = cache.get(rel);
          if (row) kept.set(rel, row);
        }
        this.cache = kept;
      }
      this.saveCache(this.cache!);
    }
    if (previous && same && count === previous.count && sameSkips(previous.manifest.skipped, skipped)) {
      this.store.touchManifest(previous.id);
      return { id: previous.id, manifest: previous.manifest, files, bytes, hashed };
    }
    const entries: Record<string, ManifestEntry> = {};
    for (let i = 0; i < rels.length; i++) entries[rels[i]] = found[i];
    const manifest: Manifest = { v: 1, entries, skipped };
    const id = this.store.putManifest(manifest);
    this.last = { id, manifest, count };
    this.store.writeAtomic(join(this.dir, "last"), id);
    return { id, manifest, files, bytes, hashed };
  }

  /** Forgets what the last walk found (after a rewind wrote files, the next walk starts from the stat cache only). */
  forgetLast(): void {
    this.last = undefined;
  }

  private loadLast(): { id: string; manifest: Manifest; count: number } | null {
    if (this.last !== undefined) return this.last;
    const id = this.store.readText(join(this.dir, "last"))?.trim();
    try {
      // Not hashed to check it: an unchanged tree then costs no hashing at all (a rewind checks what it restores).
      const manifest = id ? this.store.readManifest(id, false) : undefined;
      this.last = id && manifest ? { id, manifest, count: Object.keys(manifest.entries).length } : null;
    } catch {
      this.last = null; // pruned or damaged: the next checkpoint writes a fresh one
    }
    return this.last;
  }

  /** `parent` plus the rules of the folder's ignore files, if it has any. */
  private withOwnRules(abs: string, rel: string, parent: Layer | null, dirents: Dirent[]): Layer | null {
    const present = IGNORE_FILES.filter((file) => dirents.some((d) => d.name === file));
    if (present.length === 0) return parent;
    const sig = present
      .map((file) => {
        try {
          const st = statSync(`${abs}/${file}`);
          return `${file}:${st.size}:${st.mtimeMs}:${st.ino}`;
        } catch {
          return file;
        }
      })
      .join("|");
    const known = this.layers.get(rel);
    if (known && known.sig === sig && known.parent === parent) return known.layer;
    const rules = ignore({ allowRelativePaths: true });
    for (const file of present) {
      try {
        rules.add(readFileSync(`${abs}/${file}`, "utf8"));
      } catch {
        // Unreadable ignore file: git ignores it too.
      }
    }
    const layer: Layer = { base: rel, rules, parent };
    this.layers.set(rel, { sig, parent, layer });
    return layer;
  }

  private loadCache(): Map<string, CacheRow> {
    if (this.cache) return this.cache;
    const text = this.store.readText(join(this.dir, "stat-cache.json"));
    try {
      this.cache = new Map(text ? (Object.entries(JSON.parse(text)) as [string, CacheRow][]) : []);
    } catch {
      this.cache = new Map();
    }
    return this.cache;
  }

  private saveCache(cache: Map<string, CacheRow>): void {
    // A cache that cannot be written only costs hashing next time.
    try {
      this.store.writeAtomic(join(this.dir, "stat-cache.json"), JSON.stringify(Object.fromEntries(cache)));
    } catch {}
  }
}

/** git's precedence: the deepest directory's rules that say anything win. */
function isIgnored(layer: Layer, rel: string, isDir: boolean): boolean {
  for (let l: Layer | null = layer; l; l = l.parent) {
    const sub = l.base === "" ? rel : rel.slice(l.base.length + 1);
    const verdict = l.rules.test(isDir ? `${sub}/` : sub);
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

function sameSkips(a: Record<string, SkipReason>, b: Record<string, SkipReason>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => a[k] === b[k]);
}
