/**
 * Pure text truncation (003 §3.6 / §H, 004 §5.1–5.3). No I/O, no dependencies, UTF-8 safe.
 *
 * Conventions used throughout:
 * - Bytes are UTF-8 bytes (a lone surrogate counts 3, as TextEncoder writes U+FFFD for it).
 * - Lines are separated by "\n"; a trailing "\n" ends the last line and does NOT start another one,
 *   so "a\nb\n" and "a\nb" are both 2 lines, "\n" is 1 (empty) line and "" is 0 lines.
 * - Characters (truncateLine / truncateChars) are UTF-16 code units, and a cut never splits a
 *   surrogate pair.
 *
 * Long inputs are scanned with indexOf over index ranges (never split into an array of lines), and
 * their byte count comes from TextEncoder.encodeInto chunk by chunk into one reused buffer, so a
 * 50 MB output costs one pass and no 50 MB copy.
 */

export const DEFAULT_MAX_LINES = 2000;
export const DEFAULT_MAX_BYTES = 51200;
export const DEFAULT_MAX_LINE_CHARS = 500;

export interface TruncationLimits {
  maxLines?: number;
  maxBytes?: number;
}

export interface TruncationResult {
  content: string;
  truncated: boolean;
  truncatedBy: "lines" | "bytes" | null;
  totalLines: number;
  totalBytes: number;
  outputLines: number;
  outputBytes: number;
  /** Tail only: the kept first line is the end of a line longer than maxBytes. */
  lastLinePartial: boolean;
  /** Head only: the first line alone is over maxBytes, so nothing whole could be kept. */
  firstLineExceedsLimit: boolean;
  maxLines: number;
  maxBytes: number;
}

export type TruncateMode = "head" | "tail" | "head_tail";

// ---------------------------------------------------------------------------------------------
// Measuring

const NON_ASCII = /[^\x00-\x7f]/;

const CHUNK = 1 << 18;
let scratch: Uint8Array | undefined;
const encoder = new TextEncoder();

/** UTF-8 byte length of content[start, end). */
export function utf8Length(content: string, start = 0, end = content.length): number {
  if (end - start < 4096) return utf8LengthUpTo(content, start, end, Infinity);
  if (start === 0 && end === content.length && !NON_ASCII.test(content)) return end;
  // Long text: let the native encoder count, chunk by chunk into one reused buffer.
  scratch ??= new Uint8Array(CHUNK * 3);
  let n = 0;
  for (let i = start; i < end; ) {
    let stop = Math.min(end, i + CHUNK);
    if (stop < end && isHighSurrogate(content.charCodeAt(stop - 1))) stop--; // keep pairs together
    n += encoder.encodeInto(content.substring(i, stop), scratch).written;
    i = stop;
  }
  return n;
}

/** Like utf8Length, but stops counting once the length passes `cap` (a 10 MB line costs no more than the budget). */
function utf8LengthUpTo(content: string, start: number, end: number, cap: number): number {
  let n = 0;
  for (let i = start; i < end && n <= cap; i++) {
    const c = content.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < end && isLowSurrogate(content.charCodeAt(i + 1))) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** Number of lines under the convention above (a trailing "\n" adds no line). */
export function countLines(content: string): number {
  if (content.length === 0) return 0;
  let n = 0;
  for (let p = content.indexOf("\n"); p !== -1; p = content.indexOf("\n", p + 1)) n++;
  return content.endsWith("\n") ? n : n + 1;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

/** Bytes of the code point (or unit) ending at index end-1, walking backwards. */
function unitBytesBackward(content: string, end: number, start: number): { bytes: number; units: number } {
  const c = content.charCodeAt(end - 1);
  if (c < 0x80) return { bytes: 1, units: 1 };
  if (c < 0x800) return { bytes: 2, units: 1 };
  if (isLowSurrogate(c) && end - 2 >= start && isHighSurrogate(content.charCodeAt(end - 2))) return { bytes: 4, units: 2 };
  return { bytes: 3, units: 1 };
}

/** Bytes of the code point (or unit) starting at index i, walking forwards. */
function unitBytesForward(content: string, i: number, end: number): { bytes: number; units: number } {
  const c = content.charCodeAt(i);
  if (c < 0x80) return { bytes: 1, units: 1 };
  if (c < 0x800) return { bytes: 2, units: 1 };
  if (isHighSurrogate(c) && i + 1 < end && isLowSurrogate(content.charCodeAt(i + 1))) return { bytes: 4, units: 2 };
  return { bytes: 3, units: 1 };
}

/** Largest prefix of content[start, end) that fits in maxBytes, ending on a character boundary. */
function fitPrefix(content: string, start: number, end: number, maxBytes: number): { end: number; bytes: number } {
  let i = start;
  let bytes = 0;
  while (i < end) {
    const u = unitBytesForward(content, i, end);
    if (bytes + u.bytes > maxBytes) break;
    bytes += u.bytes;
    i += u.units;
  }
  return { end: i, bytes };
}

/** Largest suffix of content[start, end) that fits in maxBytes, starting on a character boundary. */
function fitSuffix(content: string, start: number, end: number, maxBytes: number): { start: number; bytes: number } {
  let i = end;
  let bytes = 0;
  while (i > start) {
    const u = unitBytesBackward(content, i, start);
    if (bytes + u.bytes > maxBytes) break;
    bytes += u.bytes;
    i -= u.units;
  }
  return { start: i, bytes };
}

interface Measured {
  totalLines: number;
  totalBytes: number;
}

function measure(content: string): Measured {
  return { totalLines: countLines(content), totalBytes: utf8Length(content) };
}

function limitsOf(limits: TruncationLimits): { maxLines: number; maxBytes: number } {
  return { maxLines: limits.maxLines ?? DEFAULT_MAX_LINES, maxBytes: limits.maxBytes ?? DEFAULT_MAX_BYTES };
}

function untouched(content: string, m: Measured, maxLines: number, maxBytes: number): TruncationResult {
  return {
    content,
    truncated: false,
    truncatedBy: null,
    totalLines: m.totalLines,
    totalBytes: m.totalBytes,
    outputLines: m.totalLines,
    outputBytes: m.totalBytes,
    lastLinePartial: false,
    firstLineExceedsLimit: false,
    maxLines,
    maxBytes,
  };
}

interface Kept {
  lines: number;
  bytes: number;
  /** The byte limit (not the line limit) stopped the cut. */
  byBytes: boolean;
  lastLinePartial: boolean;
  firstLineExceedsLimit: boolean;
}

/** The metadata of a cut; when every line fits but the bytes did not, the bytes are to blame. */
function cutResult(content: string, m: Measured, kept: Kept, maxLines: number, maxBytes: number): TruncationResult {
  return {
    content,
    truncated: true,
    truncatedBy: kept.byBytes || kept.lines === m.totalLines ? "bytes" : "lines",
    totalLines: m.totalLines,
    totalBytes: m.totalBytes,
    outputLines: kept.lines,
    outputBytes: kept.bytes,
    lastLinePartial: kept.lastLinePartial,
    firstLineExceedsLimit: kept.firstLineExceedsLimit,
    maxLines,
    maxBytes,
  };
}

const fits = (m: Measured, maxLines: number, maxBytes: number) => m.totalLines <= maxLines && m.totalBytes <= maxBytes;

// ---------------------------------------------------------------------------------------------
// Head / tail (003 §H)

/**
 * Keeps whole lines from the start until either limit would be passed. Never returns a partial
 * line: when the first line alone is over maxBytes the content is "" and firstLineExceedsLimit.
 * Content exactly at a limit is not truncated. The kept lines are joined without a trailing "\n".
 */
export function truncateHead(content: string, limits: TruncationLimits = {}): TruncationResult {
  const { maxLines, maxBytes } = limitsOf(limits);
  return headOf(content, measure(content), maxLines, maxBytes);
}

function headOf(content: string, m: Measured, maxLines: number, maxBytes: number): TruncationResult {
  if (fits(m, maxLines, maxBytes)) return untouched(content, m, maxLines, maxBytes);
  let pos = 0;
  let end = 0;
  let kept = 0;
  let bytes = 0;
  let byBytes = false;
  while (kept < maxLines && kept < m.totalLines) {
    const nl = content.indexOf("\n", pos);
    const lineEnd = nl === -1 ? content.length : nl;
    const lineBytes = utf8LengthUpTo(content, pos, lineEnd, maxBytes) + (kept > 0 ? 1 : 0);
    if (bytes + lineBytes > maxBytes) {
      byBytes = true;
      break;
    }
    bytes += lineBytes;
    kept++;
    end = lineEnd;
    pos = lineEnd + 1;
  }
  return cutResult(content.slice(0, end), m, { lines: kept, bytes, byBytes, lastLinePartial: false, firstLineExceedsLimit: byBytes && kept === 0 }, maxLines, maxBytes);
}

/**
 * Keeps whole lines from the end until either limit would be passed. When the last line alone
 * is over maxBytes, its end is kept, cut at a UTF-8 character boundary (lastLinePartial).
 * Content exactly at a limit is not truncated. The output carries no trailing "\n".
 */
export function truncateTail(content: string, limits: TruncationLimits = {}): TruncationResult {
  const { maxLines, maxBytes } = limitsOf(limits);
  return tailOf(content, measure(content), maxLines, maxBytes);
}

function tailOf(content: string, m: Measured, maxLines: number, maxBytes: number): TruncationResult {
  if (fits(m, maxLines, maxBytes)) return untouched(content, m, maxLines, maxBytes);
  const last = content.endsWith("\n") ? content.length - 1 : content.length;
  let lineEnd = last;
  let start = last;
  let kept = 0;
  let bytes = 0;
  let byBytes = false;
  let partial = false;
  while (kept < maxLines && kept < m.totalLines) {
    const nl = lineEnd === 0 ? -1 : content.lastIndexOf("\n", lineEnd - 1);
    const lineStart = nl + 1;
    const lineBytes = utf8LengthUpTo(content, lineStart, lineEnd, maxBytes) + (kept > 0 ? 1 : 0);
    if (bytes + lineBytes > maxBytes) {
      byBytes = true;
      if (kept === 0) {
        const cut = fitSuffix(content, lineStart, lineEnd, maxBytes);
        start = cut.start;
        bytes = cut.bytes;
        kept = cut.bytes > 0 ? 1 : 0;
        partial = true;
      }
      break;
    }
    bytes += lineBytes;
    kept++;
    start = lineStart;
    lineEnd = nl;
  }
  return cutResult(content.slice(start, last), m, { lines: kept, bytes, byBytes, lastLinePartial: partial, firstLineExceedsLimit: false }, maxLines, maxBytes);
}

// ---------------------------------------------------------------------------------------------
// Both limits in one direction, for the framework truncator (001 + 004 §5.3)

export interface OutputTruncation {
  /** The kept text; for head_tail the two parts joined by an omission marker. */
  content: string;
  truncated: boolean;
  direction: TruncateMode;
  totalLines: number;
  totalBytes: number;
  /** Lines of the original present in content, whole or partial. */
  keptLines: number;
  /** Bytes of the original present in content (markers not counted). */
  keptBytes: number;
  /** Part of a line longer than maxBytes was kept (size is cut first, even inside a line). */
  partialLine: boolean;
}

/**
 * Cuts `content` to maxLines and maxBytes, keeping the head, the tail or both ends. Size comes
 * first: a line longer than the byte budget is cut inside the line rather than dropped, so a
 * 2-line text of 10 MB per line still yields a useful preview.
 */
export function truncateOutput(content: string, limits: TruncationLimits & { direction?: TruncateMode } = {}): OutputTruncation {
  const { maxLines, maxBytes } = limitsOf(limits);
  const direction = limits.direction ?? "head";
  const m = measure(content);
  if (fits(m, maxLines, maxBytes)) {
    return { content, truncated: false, direction, ...m, keptLines: m.totalLines, keptBytes: m.totalBytes, partialLine: false };
  }
  if (direction === "head") return { ...headPart(content, m, maxLines, maxBytes), truncated: true, direction, ...m };
  if (direction === "tail") return { ...tailPart(content, m, maxLines, maxBytes), truncated: true, direction, ...m };

  const headLines = Math.floor(maxLines / 2);
  const headBytes = Math.floor(maxBytes / 2);
  const head = headPart(content, m, headLines, headBytes);
  const tail = tailPart(content, m, maxLines - headLines, maxBytes - headBytes);
  const keptBytes = head.keptBytes + tail.keptBytes;
  // Head and tail can only share a line when the text is one line cut at both ends.
  const keptLines = Math.min(m.totalLines, head.keptLines + tail.keptLines);
  const wholeLinesOmitted = Math.max(0, m.totalLines - head.keptLines - tail.keptLines);
  const size = formatSize(m.totalBytes - keptBytes);
  const marker = wholeLinesOmitted > 0 ? `[... ${wholeLinesOmitted} lines (${size}) omitted ...]` : `[... ${size} omitted ...]`;
  const parts = [head.keptLines > 0 ? head.content : null, marker, tail.keptLines > 0 ? tail.content : null];
  return {
    content: parts.filter((p) => p !== null).join("\n"),
    truncated: true,
    direction,
    ...m,
    keptLines,
    keptBytes,
    partialLine: head.partialLine || tail.partialLine,
  };
}

interface Part {
  content: string;
  keptLines: number;
  keptBytes: number;
  partialLine: boolean;
}

function headPart(content: string, m: Measured, maxLines: number, maxBytes: number): Part {
  const r = headOf(content, m, maxLines, maxBytes);
  if (!r.firstLineExceedsLimit) {
    return { content: r.content, keptLines: r.outputLines, keptBytes: r.outputBytes, partialLine: false };
  }
  const nl = content.indexOf("\n");
  const cut = fitPrefix(content, 0, nl === -1 ? content.length : nl, maxBytes);
  return { content: content.slice(0, cut.end), keptLines: cut.bytes > 0 ? 1 : 0, keptBytes: cut.bytes, partialLine: true };
}

function tailPart(content: string, m: Measured, maxLines: number, maxBytes: number): Part {
  const r = tailOf(content, m, maxLines, maxBytes);
  return { content: r.content, keptLines: r.outputLines, keptBytes: r.outputBytes, partialLine: r.lastLinePartial };
}

// ---------------------------------------------------------------------------------------------
// Single line, characters, lines (003 §3.6, 004 §5.1, 004 §5.3)

/** Cuts one line (a grep match) to maxChars, marking the cut with "... [truncated]". */
export function truncateLine(line: string, maxChars = DEFAULT_MAX_LINE_CHARS): { text: string; truncated: boolean } {
  if (line.length <= maxChars) return { text: line, truncated: false };
  return { text: `${line.slice(0, safeEnd(line, maxChars))}... [truncated]`, truncated: true };
}

/** Index ≤ i that does not fall between the two halves of a surrogate pair. */
function safeEnd(text: string, i: number): number {
  return i > 0 && i < text.length && isHighSurrogate(text.charCodeAt(i - 1)) && isLowSurrogate(text.charCodeAt(i)) ? i - 1 : i;
}

/** Index ≥ i that does not fall between the two halves of a surrogate pair. */
function safeStart(text: string, i: number): number {
  return i > 0 && i < text.length && isHighSurrogate(text.charCodeAt(i - 1)) && isLowSurrogate(text.charCodeAt(i)) ? i + 1 : i;
}

const FULL_OUTPUT = "The full output is available in the event stream.";

/**
 * Character truncation with a visible marker (004 §5.1). "head_tail" keeps both halves and says
 * how many characters left the middle; "tail" keeps the end; "head" keeps the start. Counts are
 * exact: removed = length − kept.
 */
export function truncateChars(text: string, maxChars: number, mode: TruncateMode): string {
  if (text.length <= maxChars) return text;
  const budget = Math.max(0, Math.floor(maxChars));
  if (mode === "head_tail") {
    const half = Math.floor(budget / 2);
    const headEnd = safeEnd(text, half);
    const tailStart = safeStart(text, text.length - half);
    const removed = tailStart - headEnd;
    return (
      `${text.slice(0, headEnd)}\n\n[Warning: tool output was truncated. ${removed} characters were removed from the middle. ` +
      `${FULL_OUTPUT} If you need to see a specific part, re-run the tool with more targeted parameters.]\n\n${text.slice(tailStart)}`
    );
  }
  if (mode === "tail") {
    const tailStart = safeStart(text, text.length - budget);
    return `[Warning: tool output was truncated. The first ${tailStart} characters were removed. ${FULL_OUTPUT}]\n\n${text.slice(tailStart)}`;
  }
  const headEnd = safeEnd(text, budget);
  return `${text.slice(0, headEnd)}\n\n[Warning: tool output was truncated. The last ${text.length - headEnd} characters were removed. ${FULL_OUTPUT}]`;
}

/**
 * Line truncation with an omission marker (004 §5.3): "head_tail" keeps ⌊max/2⌋ lines from the
 * start and the rest from the end; "head"/"tail" keep one end. "[... N lines omitted ...]" with N
 * exact (150 lines keeping 100 → 50).
 */
export function truncateLines(text: string, maxLines: number, mode: TruncateMode): string {
  const total = countLines(text);
  if (total <= maxLines) return text;
  const keep = Math.max(0, Math.floor(maxLines));
  const headCount = mode === "head_tail" ? Math.floor(keep / 2) : mode === "head" ? keep : 0;
  const tailCount = keep - headCount;
  const marker = `[... ${total - keep} lines omitted ...]`;
  const head = text.slice(0, endOfLine(text, headCount));
  const tail = text.slice(startOfLastLines(text, tailCount, total));
  if (headCount === 0) return `${marker}\n${tail}`;
  if (tailCount === 0) return `${head}\n${marker}`;
  return `${head}\n${marker}\n${tail}`;
}

/** Index of the "\n" ending line n (1-based), i.e. the end of the first n lines. */
function endOfLine(text: string, n: number): number {
  let p = -1;
  for (let i = 0; i < n; i++) p = text.indexOf("\n", p + 1);
  return Math.max(0, p);
}

/** Index where the last n of total lines begin. */
function startOfLastLines(text: string, n: number, total: number): number {
  if (n === 0) return text.length;
  return endOfLine(text, total - n) + (total - n > 0 ? 1 : 0);
}

// ---------------------------------------------------------------------------------------------

/** Human size for notices: "512B", "50.0KB", "1.2MB". */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}
