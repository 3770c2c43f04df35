/**
 * The one cut applied to tool output before the model sees it (docs/conformance.md: 001,
 * 004 §5.1–5.3). Pure, no I/O. Characters first — the safeguard that also handles one 50 MB line —
 * then lines, for readability. A line longer than the whole budget is cut inside the line, never
 * dropped; a fragment of an ordinary line left over by the character cut is dropped, so what is
 * kept is whole lines and every count in the notice is exact.
 *
 * Conventions:
 * - Characters are UTF-16 code units (JavaScript string length); a cut never splits a surrogate pair.
 * - Lines are separated by "\n"; a trailing "\n" ends the last line and does not start another,
 *   so "a\nb\n" and "a\nb" are 2 lines, "\n" is 1 line and "" is 0 lines.
 * - The text may be held as its first and last parts around an omitted middle (an output bigger
 *   than the event limit): the cut then keeps from the part on its side and counts the middle as
 *   removed.
 */

export type TruncateMode = "head" | "tail" | "head_tail";

/** A tool's output as held in memory: `head` alone when complete. */
export interface HeldText {
  head: string;
  /** What the event limit left out between head and tail. */
  omitted?: { chars: number; newlines: number };
  tail?: string;
  /** Newlines of the whole text when already counted while it streamed (saves a pass). */
  newlines?: number;
}

export interface CutLimits {
  maxChars: number;
  /** No line cut when absent. */
  maxLines?: number;
  direction: TruncateMode;
}

/** One kept end of the text. */
export interface KeptPart {
  text: string;
  /** 1-based number of the first line shown (whole or partial). */
  firstLine: number;
  /** Lines shown, whole or partial. */
  lines: number;
  /** The line at the cut edge (the last kept for a head, the first for a tail) is shown only in part: it alone is longer than the budget. */
  partialLine: boolean;
}

export interface CutResult {
  truncated: boolean;
  totalChars: number;
  totalLines: number;
  /** What the model keeps: the start (head, head_tail) and the end (tail, head_tail). */
  head: KeptPart | null;
  tail: KeptPart | null;
  keptChars: number;
  removedChars: number;
  /** Lines not shown at all. */
  removedLines: number;
}

export function countNewlines(text: string): number {
  let n = 0;
  for (let p = text.indexOf("\n"); p !== -1; p = text.indexOf("\n", p + 1)) n++;
  return n;
}

/** Lines under the convention above. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  return countNewlines(text) + (text.endsWith("\n") ? 0 : 1);
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;
/** True when index i falls between the two halves of a surrogate pair. */
const splitsPair = (s: string, i: number) =>
  i > 0 && i < s.length && isHigh(s.charCodeAt(i - 1)) && isLow(s.charCodeAt(i));

/**
 * Cuts `held` to the limits in the given direction. `head_tail` gives ⌊max/2⌋ characters and
 * lines to the start and the rest to the end. Text exactly at a limit is not cut.
 */
export function cutOutput(held: HeldText | string, limits: CutLimits): CutResult {
  const h: HeldText = typeof held === "string" ? { head: held } : held;
  const tail = h.tail ?? "";
  const gapChars = h.omitted?.chars ?? 0;
  const totalChars = h.head.length + gapChars + tail.length;
  const last = tail.length > 0 ? tail : gapChars > 0 ? "\n" : h.head;
  const newlines = h.newlines ?? countNewlines(h.head) + (h.omitted?.newlines ?? 0) + countNewlines(tail);
  const totalLines = totalChars === 0 ? 0 : newlines + (last.endsWith("\n") ? 0 : 1);
  const maxChars = Math.max(0, Math.floor(limits.maxChars));
  const maxLines = limits.maxLines === undefined ? Infinity : Math.max(0, Math.floor(limits.maxLines));
  const untouched: CutResult = {
    truncated: false,
    totalChars,
    totalLines,
    head: { text: h.head + tail, firstLine: 1, lines: totalLines, partialLine: false },
    tail: null,
    keptChars: totalChars,
    removedChars: 0,
    removedLines: 0,
  };
  if (gapChars === 0 && totalChars <= maxChars && totalLines <= maxLines) return untouched;

  const start = gapChars > 0 ? h.head : h.head + tail; // the part a head cut reads
  const end = gapChars > 0 ? tail : h.head + tail; // the part a tail cut reads
  let headPart: KeptPart | null = null;
  let tailPart: KeptPart | null = null;
  const gap = gapChars > 0;
  if (limits.direction === "head") headPart = keepHead(start, maxChars, maxLines, gap);
  else if (limits.direction === "tail") tailPart = keepTail(end, maxChars, maxLines, totalLines, gap);
  else {
    const half = Math.floor(maxChars / 2);
    const halfLines = maxLines === Infinity ? Infinity : Math.floor(maxLines / 2);
    headPart = keepHead(start, half, halfLines, gap);
    tailPart = keepTail(end, maxChars - half, maxLines === Infinity ? Infinity : maxLines - halfLines, totalLines, gap);
    // Both ends reach each other: nothing needs cutting after all.
    if (gapChars === 0 && headPart.text.length + tailPart.text.length >= totalChars) return untouched;
  }
  const keptChars = (headPart?.text.length ?? 0) + (tailPart?.text.length ?? 0);
  const shown = (headPart?.lines ?? 0) + (tailPart?.lines ?? 0);
  // A line cut at both ends by head_tail is one line shown twice.
  const shared =
    headPart && tailPart && headPart.partialLine && tailPart.partialLine && headPart.firstLine === tailPart.firstLine
      ? 1
      : 0;
  return {
    truncated: true,
    totalChars,
    totalLines,
    head: headPart,
    tail: tailPart,
    keptChars,
    removedChars: totalChars - keptChars,
    removedLines: Math.max(0, totalLines - shown + shared),
  };
}

/**
 * The start of `text` within the budgets. A line the character cut falls in is dropped when it is
 * an ordinary line (shorter than the budget) and kept in part when it alone is longer.
 */
function keepHead(text: string, maxChars: number, maxLines: number, continues = false): KeptPart {
  let end = Math.min(text.length, maxChars);
  if (splitsPair(text, end)) end--;
  let partialLine = false;
  // `continues`: the text is the part before an omitted middle, so its end may be inside a line.
  const insideLine = end < text.length ? text.charCodeAt(end) !== 10 : continues && !text.endsWith("\n");
  if (end > 0 && insideLine) {
    const lineStart = text.lastIndexOf("\n", end - 1) + 1;
    const nl = text.indexOf("\n", end);
    const lineEnd = nl === -1 ? text.length : nl;
    if (lineEnd - lineStart > maxChars) partialLine = true;
    else end = Math.max(0, lineStart - 1); // drop the fragment, keep the whole lines before it
  }
  if (maxLines === 0) end = 0;
  else if (maxLines !== Infinity) {
    let n = 0;
    for (let p = text.indexOf("\n"); p !== -1 && p < end; p = text.indexOf("\n", p + 1)) {
      if (++n === maxLines) {
        end = p;
        partialLine = false;
        break;
      }
    }
  }
  const kept = text.slice(0, end);
  return { text: kept, firstLine: 1, lines: countLines(kept), partialLine: partialLine && kept.length > 0 };
}

/** The end of `text` within the budgets; the line the cut falls in is treated as in keepHead. */
function keepTail(text: string, maxChars: number, maxLines: number, totalLines: number, continues = false): KeptPart {
  const body = text.endsWith("\n") ? text.length - 1 : text.length; // the final "\n" starts no line
  let start = Math.max(0, text.length - maxChars);
  if (splitsPair(text, start)) start++;
  let partialLine = false;
  // `continues`: the text is the part after an omitted middle, so it may begin inside a line.
  const insideLine = start > 0 ? text.charCodeAt(start - 1) !== 10 : continues;
  if (start < body && insideLine) {
    const lineStart = start > 0 ? text.lastIndexOf("\n", start - 1) + 1 : 0;
    const nl = text.indexOf("\n", start);
    const lineEnd = nl === -1 ? text.length : nl;
    if (lineEnd - lineStart > maxChars) partialLine = true;
    else start = Math.min(text.length, lineEnd + 1); // drop the fragment, keep the whole lines after it
  }
  if (maxLines === 0) start = text.length;
  else if (maxLines !== Infinity && body > start) {
    let n = 0;
    for (let p = text.lastIndexOf("\n", body - 1); p >= start; p = p === 0 ? -1 : text.lastIndexOf("\n", p - 1)) {
      if (++n === maxLines) {
        start = p + 1;
        partialLine = false;
        break;
      }
    }
  }
  const kept = start >= body ? "" : text.slice(start);
  const lines = countLines(kept);
  return { text: kept, firstLine: totalLines - lines + 1, lines, partialLine: partialLine && kept.length > 0 };
}

/** Human size for notices: "512B", "50.0KB", "1.2MB", "1.0GB". */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
  return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)}GB`;
}

/**
 * A text on one line, for a summary or a list: runs of whitespace (newlines included) become one
 * space, cut to `max` characters with "…".
 */
export function oneLine(text: unknown, max = 100): string {
  return cutWithEllipsis(
    String(text ?? "")
      .replace(/\s+/g, " ")
      .trim(),
    max,
  );
}

/** The first line of a text, trimmed, cut to `max` characters with "…". */
export function firstLine(text: unknown, max = Infinity): string {
  const [line = ""] = String(text ?? "")
    .trim()
    .split("\n", 1);
  return cutWithEllipsis(line.trim(), max);
}

function cutWithEllipsis(line: string, max: number): string {
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
