/**
 * The checkpoint store under `$GONG_HOME/checkpoints` (never inside a project):
 *
 *   blobs/<2 hex>/<sha-256>        file contents and symlink targets, content-addressed (shared by
 *                                  every checkpoint, session and project), raw-deflated at level 1
 *                                  (source text takes a third to a fifth of its size; named by the
 *                                  hash of the uncompressed bytes)
 *   manifests/<sha-256>.json       one checkpoint: path → type, mode, blob (see Manifest)
 *   workspaces/<encoded root>/     per project: stat-cache.json, last, seen/<session id>, journal.json
 *
 * Every file is written to a temp file beside it and renamed, so a process killed at any point
 * leaves each file whole or absent; a blob or manifest is only referenced after it is written.
 */
import type { Buffer } from "node:buffer";
import { existsSync as exists, mkdirSync, readFileSync, rmSync, utimesSync } from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { encodeCwd, gongHome } from "../store/paths.ts";
import { sha256Hex } from "../hash.ts";
import { writeFileAtomicSync } from "../temp-files.ts";

/** zlib loads with the first blob written or read: most runs never need it, and it costs memory to load. */
const zlib = () => process.getBuiltinModule("node:zlib");

export type SkipReason = "ignored" | "too-large" | "checkpoint-full" | "unreadable" | "special";

/** One path of a checkpoint: a regular file, a symbolic link (its target in the blob) or a directory. */
export type ManifestEntry = { t: "f"; m: number; h: string; s: number } | { t: "l"; h: string } | { t: "d"; m: number };

export interface Manifest {
  v: 1;
  /** Entries by path relative to the workspace root, `/`-separated. */
  entries: Record<string, ManifestEntry>;
  /** Paths left out, by the topmost path (an ignored directory is one entry). */
  skipped: Record<string, SkipReason>;
}

/** A store file that is missing or does not hold what its name says. */
export class CheckpointStoreError extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = "CheckpointStoreError";
  }
}

export const sha256 = sha256Hex;

export class CheckpointStore {
  readonly root: string;
  private readonly madeDirs = new Set<string>();

  constructor(home: string = gongHome()) {
    this.root = join(home, "checkpoints");
  }

  blobPath(hash: string): string {
    return join(this.root, "blobs", hash.slice(0, 2), hash);
  }

  manifestPath(id: string): string {
    return join(this.root, "manifests", `${id}.json`);
  }

  /** The folder of one workspace's stat cache, pointers and rewind journal. */
  workspaceDir(workspaceRoot: string): string {
    return join(this.root, "workspaces", encodeCwd(workspaceRoot));
  }

  /** Stores `data` under its hash (once: an existing blob is not rewritten) and returns the hash. */
  putBlob(data: Uint8Array, hash = sha256(data)): string {
    const path = this.blobPath(hash);
    if (!exists(path)) this.writeAtomic(path, zlib().deflateRawSync(data, { level: 1 }));
    return hash;
  }

  /** A blob's bytes, checked against its hash. */
  readBlob(hash: string): Buffer {
    const path = this.blobPath(hash);
    let data: Buffer;
    try {
      data = readFileSync(path);
    } catch {
      throw new CheckpointStoreError(
        `The checkpoint store is missing ${path}; that checkpoint cannot be restored.`,
        path,
      );
    }
    const corrupted = () =>
      new CheckpointStoreError(
        `The checkpoint store file ${path} is corrupted (its content does not match its name); that checkpoint cannot be restored.`,
        path,
      );
    try {
      data = zlib().inflateRawSync(data);
    } catch {
      throw corrupted();
    }
    if (sha256(data) !== hash) throw corrupted();
    return data;
  }

  hasBlob(hash: string): boolean {
    return exists(this.blobPath(hash));
  }

  hasManifest(id: string): boolean {
    return exists(this.manifestPath(id));
  }

  /** Writes a manifest (or marks an identical one as used now) and returns its id. */
  putManifest(manifest: Manifest, text = JSON.stringify(manifest)): string {
    const id = sha256(text);
    this.touchOrWrite(this.manifestPath(id), text);
    return id;
  }

  /** Marks a manifest as used now (gc keeps recently used ones). */
  touchManifest(id: string): void {
    const now = new Date();
    try {
      utimesSync(this.manifestPath(id), now, now);
    } catch {
      // Gone: the next checkpoint writes a new one.
    }
  }

  /** A manifest, checked against its name unless `verify` is false (the walk's own pointer: nothing is restored from it). */
  readManifest(id: string, verify = true): Manifest {
    const path = this.manifestPath(id);
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      throw new CheckpointStoreError(
        `The checkpoint store is missing ${path} (pruned or deleted); that checkpoint cannot be restored.`,
        path,
      );
    }
    if (verify && sha256(text) !== id)
      throw new CheckpointStoreError(
        `The checkpoint store file ${path} is corrupted; that checkpoint cannot be restored.`,
        path,
      );
    return JSON.parse(text) as Manifest;
  }

  /** A small text file of the store (a pointer, the stat cache), or undefined when absent. */
  readText(path: string): string | undefined {
    try {
      return readFileSync(path, "utf8");
    } catch {
      return undefined;
    }
  }

  writeAtomic(path: string, data: Uint8Array | string): void {
    const dir = dirname(path);
    if (!this.madeDirs.has(dir)) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      this.madeDirs.add(dir);
    }
    // Thousands of objects share few folders: no sweep after each write.
    const options = { mode: 0o600, sweep: false };
    try {
      writeFileAtomicSync(path, data, options);
    } catch (e) {
      // The folder was removed since (someone deleted the store): make it again, once.
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileAtomicSync(path, data, options);
    }
  }

  remove(path: string): void {
    rmSync(path, { force: true });
  }

  private touchOrWrite(path: string, text: string): void {
    const now = new Date();
    try {
      utimesSync(path, now, now);
    } catch {
      this.writeAtomic(path, text);
    }
  }
}
