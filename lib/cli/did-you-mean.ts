/**
 * "Did you mean": the known word closest to a mistyped one (a flag, a subcommand, a config key),
 * when it is close enough to be the one meant. Distance counts insertions, deletions, changes and
 * swaps of two neighbouring characters (`mpc` → `mcp` is one edit).
 */
import { UsageError } from "../core/errors.ts";

/** Edits allowed for a word of this length: one for short words, two up to eight characters, then a third of it. */
function allowance(word: string): number {
  return word.length <= 4 ? 1 : word.length <= 8 ? 2 : Math.floor(word.length / 3);
}

/** The closest of `known` within the allowance (ties: one of the typed length — a swap — then the first listed), or undefined. */
export function closest(word: string, known: Iterable<string>): string | undefined {
  const typed = word.toLowerCase();
  let best: { word: string; rank: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(typed, candidate.toLowerCase());
    if (distance === 0) return candidate;
    const rank = distance * 2 + (candidate.length === word.length ? 0 : 1);
    if (distance <= allowance(candidate) && (!best || rank < best.rank)) best = { word: candidate, rank };
  }
  return best?.word;
}

/** Optimal string alignment distance (Levenshtein with neighbouring swaps). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** A word one of `known` must be (`gong mcp ad`): the word, or a usage error naming the nearest. */
export function chooseWord<W extends string>(word: string | undefined, known: readonly W[], command: string): W {
  if (word !== undefined && (known as readonly string[]).includes(word)) return word as W;
  if (word === undefined) throw new UsageError(`'${command}' needs one of: ${known.join(", ")}.`);
  const near = closest(word, known);
  throw new UsageError(
    `Unknown command '${command} ${word}'.${near ? ` Did you mean '${command} ${near}'?` : ` Use one of: ${known.join(", ")}.`}`,
  );
}
