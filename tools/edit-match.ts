/**
 * Where edit's old text lies in a file (docs/conformance.md: 003 §3.2 / §A, its steps 5–9), as
 * byte-exact spans of the ORIGINAL content.
 *
 * Matching happens in a normalised space — line endings as "\n", and for the fuzzy layer also
 * trailing whitespace trimmed per line, curly quotes, Unicode dashes and spaces made ASCII, and
 * canonical composition (NFC, so NFD text from macOS matches). Every normalised character keeps
 * the original range it came from, so a match found there maps back to exactly the original
 * characters it covers: the splice touches those and nothing else, and a file full of curly
 * quotes or NBSP outside the edited region stays byte-identical.
 */

/** A normalised text and, for each of its characters, the original range [start, end) it stands for. */
export interface MappedText {
  text: string;
  start(index: number): number;
  end(index: number): number;
}

const LF = 0x0a;
const CR = 0x0d;

/** JavaScript's \s without "\n": what `trimEnd` removes at a line end. */
function isTrimmable(c: number): boolean {
  return (
    c === 0x20 ||
    c === 0x09 ||
    c === 0x0b ||
    c === 0x0c ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** The single-character normalisations: curly quotes, dashes and the minus sign, odd spaces. */
function fuzzyChar(c: number): number {
  if (c >= 0x2018 && c <= 0x201b) return 0x27; // ‘ ’ ‚ ‛ → '
  if (c >= 0x201c && c <= 0x201f) return 0x22; // “ ” „ ‟ → "
  if ((c >= 0x2010 && c <= 0x2015) || c === 0x2212) return 0x2d; // dashes, minus → -
  if (c === 0xa0 || (c >= 0x2002 && c <= 0x200a) || c === 0x202f || c === 0x205f || c === 0x3000) return 0x20;
  return c;
}

const CLUSTER = /[^\p{M}]\p{M}*|\p{M}+/gsu;

/** Fuzzy normal form of a string (no positions): what the occurrences are counted in. */
export function fuzzyNormalize(text: string): string {
  const s = text
    .replace(/\r\n?/g, "\n")
    .replace(/[^\S\n]+(?=\n|$)/g, "")
    .replace(/[\u2018-\u201B]/g, "'")
    .replace(/[\u201C-\u201F]/g, '"')
    .replace(/[\u2010-\u2015\u2212]/g, "-")
    .replace(/[\u00A0\u2002-\u200A\u202F\u205F\u3000]/g, " ");
  return composeClusters(s);
}

/** NFC one grapheme-ish cluster (a character and its marks) at a time, so positions can follow. */
function composeClusters(s: string): string {
  if (s.normalize("NFC") === s) return s;
  return s.replace(CLUSTER, (m) => m.normalize("NFC"));
}

/** Line endings only ("\r\n" and lone "\r" → "\n"), with positions. Identity when there is no CR. */
export function mapLineEndings(text: string): MappedText {
  if (!text.includes("\r")) return { text, start: (i) => i, end: (i) => i + 1 };
  return mapNormalized(text, false);
}

/** The full fuzzy normal form of `text`, with positions; `.text` equals `fuzzyNormalize(text)`. */
export function mapFuzzy(text: string): MappedText {
  const first = mapNormalized(text, true);
  if (first.text.normalize("NFC") === first.text) return first;
  // Compose clusters; every character of a composed cluster stands for the whole original cluster.
  const pieces: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  for (const match of first.text.matchAll(CLUSTER)) {
    const k = match.index;
    const composed = match[0].normalize("NFC");
    pieces.push(composed);
    const s = first.start(k);
    const e = first.end(k + match[0].length - 1);
    for (let j = 0; j < composed.length; j++) {
      starts.push(s);
      ends.push(e);
    }
  }
  return { text: pieces.join(""), start: (i) => starts[i], end: (i) => ends[i] };
}

function mapNormalized(text: string, fuzzy: boolean): MappedText {
  const n = text.length;
  const out = new Uint16Array(n);
  const starts = new Int32Array(n);
  const ends = new Int32Array(n);
  let o = 0;
  let trailingFrom = -1; // output index where the current run of trimmable characters began
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === LF || c === CR) {
      const width = c === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
      if (trailingFrom >= 0) o = trailingFrom;
      trailingFrom = -1;
      out[o] = LF;
      starts[o] = i;
      ends[o] = i + width;
      o++;
      i += width - 1;
      continue;
    }
    if (fuzzy && isTrimmable(c)) {
      if (trailingFrom < 0) trailingFrom = o;
    } else trailingFrom = -1;
    out[o] = fuzzy ? fuzzyChar(c) : c;
    starts[o] = i;
    ends[o] = i + 1;
    o++;
  }
  if (trailingFrom >= 0) o = trailingFrom;
  return { text: fromCodes(out, o), start: (i) => starts[i], end: (i) => ends[i] };
}

function fromCodes(codes: Uint16Array, length: number): string {
  const parts: string[] = [];
  for (let i = 0; i < length; i += 8192)
    parts.push(String.fromCharCode(...codes.subarray(i, Math.min(length, i + 8192))));
  return parts.join("");
}

/** Start indexes of the non-overlapping occurrences of `needle`, at most `max`. */
export function occurrences(haystack: string, needle: string, max = Infinity): number[] {
  const found: number[] = [];
  if (needle === "") return found;
  for (
    let i = haystack.indexOf(needle);
    i !== -1 && found.length < max;
    i = haystack.indexOf(needle, i + needle.length)
  )
    found.push(i);
  return found;
}

export type Span = [start: number, end: number];

export type MatchResult =
  | { ok: true; spans: Span[]; fuzzy: boolean }
  | { ok: false; reason: "not_found" }
  | { ok: false; reason: "not_unique"; count: number };

/**
 * Find `oldText` in `content` (BOM already removed): exact first, then fuzzy. Uniqueness is
 * always judged in the fuzzy space, so "hello   " and "hello" count as the same text.
 */
export function findMatches(content: string, oldText: string, replaceAll: boolean): MatchResult {
  const lf = mapLineEndings(content);
  const oldLf = oldText.replace(/\r\n?/g, "\n");
  const fuzzyOld = fuzzyNormalize(oldLf);
  const exact = occurrences(lf.text, oldLf, replaceAll ? Infinity : 1);
  const toSpans = (m: MappedText, starts: number[], length: number): Span[] =>
    starts.map((s) => [m.start(s), m.end(s + length - 1)]);

  if (exact.length > 0) {
    const fuzzyCount = fuzzyOld === "" ? 0 : occurrences(fuzzyNormalize(content), fuzzyOld).length;
    if (!replaceAll && fuzzyCount > 1) return { ok: false, reason: "not_unique", count: fuzzyCount };
    // replace_all takes the fuzzy route only when it finds more than the exact text does.
    if (!replaceAll || fuzzyCount <= exact.length)
      return { ok: true, spans: toSpans(lf, exact, oldLf.length), fuzzy: false };
  }
  if (fuzzyOld === "") return { ok: false, reason: "not_found" };
  const mapped = mapFuzzy(content);
  const found = occurrences(mapped.text, fuzzyOld);
  if (found.length === 0) return { ok: false, reason: "not_found" };
  if (found.length > 1 && !replaceAll) return { ok: false, reason: "not_unique", count: found.length };
  return { ok: true, spans: toSpans(mapped, found, fuzzyOld.length), fuzzy: true };
}

/** Replace each span of `content` with `replacement`; spans are sorted and disjoint. */
export function splice(content: string, spans: Span[], replacement: string): string {
  const parts: string[] = [];
  let at = 0;
  for (const [start, end] of spans) {
    parts.push(content.slice(at, Math.max(at, start)), replacement);
    at = Math.max(at, end);
  }
  parts.push(content.slice(at));
  return parts.join("");
}
