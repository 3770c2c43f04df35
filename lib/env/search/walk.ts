/**
 * The directory walker behind the TypeScript engines: hidden files included, `.git` skipped,
 * nested ignore files honoured per directory, symlinks reported but never descended into (the
 * default of ripgrep and fd), names in sorted order so results are reproducible.
 */
import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { ancestorLayers, isIgnored, layerFor, type RuleLayer } from "./ignore-rules.ts";

export type WalkKind = "file" | "dir" | "symlink" | "other";

export interface WalkEntry {
  abs: string;
  /** POSIX path relative to the walk's start directory. */
  rel: string;
  name: string;
  kind: WalkKind;
}

export interface WalkOptions {
  /** Workspace root: ignore files between it and the start directory apply too. */
  root: string;
  ignoreFiles: readonly string[];
  signal?: AbortSignal;
  /** Called for directories before descending; false prunes the directory. */
  descend?: (entry: WalkEntry) => boolean;
}

/** Every entry below `start` (not `start` itself), depth first. Throws the signal's reason on abort. */
export async function* walk(start: string, options: WalkOptions): AsyncGenerator<WalkEntry> {
  const stack: { dir: string; rel: string; layer: RuleLayer | null }[] = [
    { dir: start, rel: "", layer: ancestorLayers(options.root, start, options.ignoreFiles) },
  ];
  while (stack.length > 0) {
    options.signal?.throwIfAborted();
    const { dir, rel, layer: parentLayer } = stack.pop()!;
    let dirents: Dirent[];
    try {
      dirents = await readdir(dir, { withFileTypes: true });
    } catch {
      continue; // Unreadable or vanished directory: skip it like rg does.
    }
    const names = new Set(dirents.map((d) => d.name));
    const layer = await layerFor(dir, parentLayer, options.ignoreFiles, (n) => names.has(n));
    dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: { dir: string; rel: string; layer: RuleLayer | null }[] = [];
    for (const d of dirents) {
      if (d.name === ".git") continue;
      const kind = kindOf(d);
      const abs = join(dir, d.name);
      if (isIgnored(layer, abs, kind === "dir")) continue;
      const entry: WalkEntry = { abs, rel: rel === "" ? d.name : `${rel}/${d.name}`, name: d.name, kind };
      yield entry;
      if (kind === "dir" && (options.descend?.(entry) ?? true)) subdirs.push({ dir: abs, rel: entry.rel, layer });
    }
    // Reverse so the stack pops them in sorted order.
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]);
  }
}

function kindOf(d: Dirent): WalkKind {
  if (d.isSymbolicLink()) return "symlink";
  if (d.isDirectory()) return "dir";
  if (d.isFile()) return "file";
  return "other";
}
