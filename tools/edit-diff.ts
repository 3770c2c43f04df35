/**
 * The unified diff edit returns (the last step of docs/conformance.md: 003 §A): 4 lines of context
 * and the file's real line numbers. Only the changed region (plus context) is handed to the diff
 * algorithm, so editing one line of a 10 MB file diffs a dozen lines, not the whole file.
 */
import { structuredPatch } from "diff";

export const DIFF_CONTEXT = 4;

export interface EditDiff {
  diff: string;
  /** 1-based line of the first changed line in the new file. */
  firstChangedLine: number;
}

/**
 * `before` and `after` agree on [0, changeStart) and on before[beforeEnd..] = after[afterEnd..];
 * everything that differs lies in between.
 */
export function regionDiff(
  path: string,
  before: string,
  after: string,
  changeStart: number,
  beforeEnd: number,
  afterEnd: number,
): EditDiff {
  let from = lineStart(before, changeStart);
  for (let i = 0; i < DIFF_CONTEXT && from > 0; i++) from = lineStart(before, from - 1);
  let to = lineEnd(before, beforeEnd);
  for (let i = 0; i < DIFF_CONTEXT && to < before.length; i++) to = lineEnd(before, to + 1);
  const afterTo = to - beforeEnd + afterEnd;
  const offset = countNewlines(before, from);

  const patch = structuredPatch(path, path, before.slice(from, to), after.slice(from, afterTo), "", "", {
    context: DIFF_CONTEXT,
  });
  const out = [`--- ${path}`, `+++ ${path}`];
  let firstChangedLine = offset + 1;
  let seenChange = false;
  for (const hunk of patch.hunks) {
    const oldStart = hunk.oldStart + offset;
    const newStart = hunk.newStart + offset;
    out.push(`@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`);
    let newLine = newStart;
    for (const line of hunk.lines) {
      out.push(line.endsWith("\r") ? line.slice(0, -1) : line);
      if (line.startsWith("\\")) continue;
      if (!seenChange && (line[0] === "+" || line[0] === "-")) {
        firstChangedLine = Math.max(1, newLine);
        seenChange = true;
      }
      if (line[0] !== "-") newLine++;
    }
  }
  return { diff: `${out.join("\n")}\n`, firstChangedLine };
}

/** Index where the line holding `index` starts. */
function lineStart(text: string, index: number): number {
  return index <= 0 ? 0 : text.lastIndexOf("\n", index - 1) + 1;
}

/** Index just past the "\n" ending the line holding `index` (or the text's end). */
function lineEnd(text: string, index: number): number {
  if (index > 0 && text[index - 1] === "\n") return index;
  const nl = text.indexOf("\n", index);
  return nl === -1 ? text.length : nl + 1;
}

function countNewlines(text: string, end: number): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < end; i = text.indexOf("\n", i + 1)) n++;
  return n;
}
