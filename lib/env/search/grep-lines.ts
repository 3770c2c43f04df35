/**
 * What both grep engines share: the match limit with its after-context rule, and the final order.
 *
 * Lines arrive per file in line order. Once `limit` matches are kept, only the after-context of
 * the last kept match is still wanted; the next match proves there were more (limitReached) and
 * ends the search, so "limit reached" is never claimed when exactly `limit` matches exist.
 */
import type { GrepLine, GrepResult } from "../types.ts";
import { comparePaths } from "./paths.ts";

export const DEFAULT_GREP_LIMIT = 100;

export class GrepCollector {
  readonly lines: GrepLine[] = [];
  matchCount = 0;
  limitReached = false;
  private last: GrepLine | undefined;

  constructor(
    private readonly limit: number,
    private readonly context: number,
  ) {}

  /** Adds one line; false means nothing more can be used and the search should stop. */
  add(line: GrepLine): boolean {
    const full = this.matchCount >= this.limit;
    if (line.kind === "match") {
      if (full) {
        this.limitReached = true;
        return false;
      }
      this.lines.push(line);
      this.matchCount++;
      this.last = line;
      return true;
    }
    if (!full || (this.last && line.file === this.last.file && line.line <= this.last.line + this.context))
      this.lines.push(line);
    return true;
  }

  result(engine: GrepResult["engine"]): GrepResult {
    return { lines: orderByFile(this.lines), matchCount: this.matchCount, limitReached: this.limitReached, engine };
  }
}

/** Files in path order, each file's lines kept in their (line) order. */
function orderByFile(lines: GrepLine[]): GrepLine[] {
  const byFile = new Map<string, GrepLine[]>();
  for (const l of lines) {
    const group = byFile.get(l.file);
    if (group) group.push(l);
    else byFile.set(l.file, [l]);
  }
  return [...byFile.keys()].sort(comparePaths).flatMap((f) => byFile.get(f)!);
}
