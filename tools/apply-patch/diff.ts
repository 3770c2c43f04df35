/**
 * The unified diff a patch result carries, built from the replacements the applier made rather
 * than by diffing whole files (a 200-hunk patch on a 10 MB file must not diff 10 MB). Three lines
 * of context, changes closer than twice that share a hunk, real line numbers.
 */
import type { Replacement } from "./text.ts";

const CONTEXT = 3;

/** One contiguous change: `removed` old lines at `oldStart` (0-based) become `added`. */
interface Change {
  oldStart: number;
  removed: string[];
  added: string[];
}

export interface FileDiff {
  diff: string;
  added: number;
  removed: number;
}

/** Diff of an update: `lines` are the old file's lines, `replacements` sorted by start. */
export function updateDiff(
  oldPath: string,
  newPath: string,
  lines: readonly string[],
  replacements: readonly Replacement[],
): FileDiff {
  const changes = replacements.map((r) => ({
    oldStart: r.start,
    removed: lines.slice(r.start, r.start + r.remove),
    added: r.lines,
  }));
  return render(`a/${oldPath}`, `b/${newPath}`, lines, changes);
}

/** Diff of a whole file appearing (`lines` new) or disappearing (`lines` old). */
export function wholeFileDiff(path: string, lines: readonly string[], kind: "add" | "delete"): FileDiff {
  if (lines.length === 0) return { diff: "", added: 0, removed: 0 };
  const change: Change =
    kind === "add" ? { oldStart: 0, removed: [], added: [...lines] } : { oldStart: 0, removed: [...lines], added: [] };
  return render(
    kind === "add" ? "/dev/null" : `a/${path}`,
    kind === "add" ? `b/${path}` : "/dev/null",
    kind === "add" ? [] : lines,
    [change],
  );
}

function render(from: string, to: string, lines: readonly string[], changes: Change[]): FileDiff {
  if (changes.length === 0) return { diff: "", added: 0, removed: 0 };
  const out = [`--- ${from}`, `+++ ${to}`];
  let added = 0;
  let removed = 0;
  let shift = 0; // new line number minus old line number before the current change
  let i = 0;
  while (i < changes.length) {
    // Group changes whose gaps are small enough to share context.
    let j = i;
    while (j + 1 < changes.length && changes[j + 1].oldStart - end(changes[j]) <= 2 * CONTEXT) j++;
    const first = changes[i];
    const hunkStart = Math.max(0, first.oldStart - CONTEXT);
    const hunkEnd = Math.min(lines.length, end(changes[j]) + CONTEXT);
    const body: string[] = [];
    let oldCount = 0;
    let newCount = 0;
    const newStart = hunkStart + shift;
    let at = hunkStart;
    for (let k = i; k <= j; k++) {
      const c = changes[k];
      for (; at < c.oldStart; at++, oldCount++, newCount++) body.push(` ${lines[at]}`);
      for (const l of c.removed) body.push(`-${l}`);
      for (const l of c.added) body.push(`+${l}`);
      oldCount += c.removed.length;
      newCount += c.added.length;
      removed += c.removed.length;
      added += c.added.length;
      shift += c.added.length - c.removed.length;
      at = end(c);
    }
    for (; at < hunkEnd; at++, oldCount++, newCount++) body.push(` ${lines[at]}`);
    out.push(`@@ -${range(hunkStart, oldCount)} +${range(newStart, newCount)} @@`, ...body);
    i = j + 1;
  }
  return { diff: `${out.join("\n")}\n`, added, removed };
}

const end = (c: Change) => c.oldStart + c.removed.length;

/** "start,count" as unified diffs write it: 1-based, and the line before for an empty range. */
function range(start0: number, count: number): string {
  return count === 0 ? `${start0},0` : `${start0 + 1},${count}`;
}
