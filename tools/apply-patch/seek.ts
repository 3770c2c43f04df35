/**
 * Finding a hunk's lines in a file, the way codex does: four passes of decreasing strictness over
 * the same range — exact, then ignoring trailing whitespace, then ignoring whitespace on both
 * sides, then also folding typographic punctuation (curly quotes, dashes, odd spaces) to ASCII.
 * The first pass that finds the sequence anywhere in the range wins, so an exact match later in
 * the file beats a fuzzy one earlier. A hunk marked `*** End of File` is only tried at the end.
 */
import { foldPunctuation, rustTrim, rustTrimEnd } from "./text.ts";

export type MatchLevel = "exact" | "trailing_whitespace" | "surrounding_whitespace" | "punctuation";

export interface SeekHit {
  index: number;
  level: MatchLevel;
}

const LEVELS: readonly MatchLevel[] = ["exact", "trailing_whitespace", "surrounding_whitespace", "punctuation"];
const NORMALISERS: Record<MatchLevel, (s: string) => string> = {
  exact: (s) => s,
  trailing_whitespace: rustTrimEnd,
  surrounding_whitespace: rustTrim,
  punctuation: foldPunctuation,
};

/**
 * Normalised views of a file's lines, computed once per level and only when a pass needs them:
 * a 10 MB file with hundreds of hunks must not re-trim every line for every hunk.
 */
export class LineIndex {
  private readonly views = new Map<MatchLevel, string[]>();

  constructor(readonly lines: readonly string[]) {}

  view(level: MatchLevel): readonly string[] {
    if (level === "exact") return this.lines;
    let view = this.views.get(level);
    if (!view) {
      view = this.lines.map(NORMALISERS[level]);
      this.views.set(level, view);
    }
    return view;
  }
}

/** Where `pattern` starts at or after `start` (at the very end when `eof`), or null. */
export function seekSequence(file: LineIndex, pattern: readonly string[], start: number, eof: boolean): SeekHit | null {
  const n = file.lines.length;
  if (pattern.length === 0) return { index: start, level: "exact" };
  if (pattern.length > n) return null;
  // At the end of the file means at the last possible place — and still not before `start`.
  const from = eof ? Math.max(start, n - pattern.length) : start;
  const last = n - pattern.length;
  for (const level of LEVELS) {
    const lines = file.view(level);
    const normalise = NORMALISERS[level];
    const wanted = pattern.map(normalise);
    const head = wanted[0];
    for (let i = from; i <= last; i++) {
      if (lines[i] !== head) continue;
      let ok = true;
      for (let k = 1; k < wanted.length; k++) {
        if (lines[i + k] !== wanted[k]) {
          ok = false;
          break;
        }
      }
      if (ok) return { index: i, level };
    }
  }
  return null;
}
