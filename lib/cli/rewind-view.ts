/**
 * What a rewind changes, as lines for a person: one line per file with a letter (M changed,
 * A comes back, D goes, m mode only) and, for text files, the lines added and removed.
 */
import { Buffer } from "node:buffer";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { diffLines } from "diff";
import type { FileChange } from "../checkpoints/restore.ts";
import type { CheckpointStore } from "../checkpoints/store.ts";

/** Files larger than this get no line counts (the diff would cost more than it tells). */
const MAX_DIFFED_BYTES = 1024 * 1024;
const MAX_LISTED = 40;

export interface LineCounts {
  added: number;
  removed: number;
}

/** Lines added and removed per changed text file (from the workspace as it is to the checkpoint). */
export function lineCounts(changes: FileChange[], store: CheckpointStore, root: string): Map<string, LineCounts> {
  const out = new Map<string, LineCounts>();
  for (const c of changes) {
    if (c.action === "chmod" || (c.from && c.from.t !== "f") || (c.to && c.to.t !== "f")) continue;
    try {
      const now = c.from ? readFileSync(join(root, c.path)) : Buffer.alloc(0);
      const then = c.to && c.to.t === "f" ? store.readBlob(c.to.h) : Buffer.alloc(0);
      if (now.length > MAX_DIFFED_BYTES || then.length > MAX_DIFFED_BYTES || now.includes(0) || then.includes(0))
        continue;
      const counts = { added: 0, removed: 0 };
      for (const part of diffLines(now.toString("utf8"), then.toString("utf8"))) {
        if (part.added) counts.added += part.count ?? 0;
        else if (part.removed) counts.removed += part.count ?? 0;
      }
      out.set(c.path, counts);
    } catch {
      // Unreadable now: listed without counts.
    }
  }
  return out;
}

export function describeChanges(changes: FileChange[], counts: Map<string, LineCounts> = new Map()): string {
  const files = changes.filter((c) => (c.to ?? c.from)?.t !== "d");
  if (files.length === 0) return "  no file changes\n";
  const lines = files.slice(0, MAX_LISTED).map((c) => {
    const letter = c.action === "remove" ? "D" : c.action === "chmod" ? "m" : c.from ? "M" : "A";
    const n = counts.get(c.path);
    return `  ${letter} ${c.path}${n ? ` (+${n.added} -${n.removed})` : ""}\n`;
  });
  if (files.length > MAX_LISTED) lines.push(`  … and ${files.length - MAX_LISTED} more\n`);
  return lines.join("");
}
