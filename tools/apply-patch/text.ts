/**
 * A text file as the patch applier sees it: a BOM, then lines without their endings. Matching
 * looks at the line texts; writing copies every untouched stretch byte for byte (each line keeps
 * the ending it had), gives inserted lines the file's ending (the one its first line break uses),
 * and keeps a missing final newline missing.
 */

/** Characters Rust's `char::is_whitespace` accepts (what codex trims), unlike JS's \s it excludes the BOM. */
const WS = "\\t\\n\\v\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000";
const LEADING = new RegExp(`^[${WS}]+`);
const TRAILING = new RegExp(`[${WS}]+$`);

export const rustTrimEnd = (s: string): string => s.replace(TRAILING, "");
export const rustTrim = (s: string): string => rustTrimEnd(s).replace(LEADING, "");

const FOLD: Record<string, string> = {};
for (const c of "\u2010\u2011\u2012\u2013\u2014\u2015\u2212") FOLD[c] = "-";
for (const c of "\u2018\u2019\u201A\u201B") FOLD[c] = "'";
for (const c of "\u201C\u201D\u201E\u201F") FOLD[c] = '"';
for (const c of "\u00A0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u202F\u205F\u3000") FOLD[c] = " ";
const FOLDABLE = new RegExp(`[${Object.keys(FOLD).join("")}]`, "g");

/** Trimmed, with typographic dashes, quotes and odd spaces turned into their ASCII forms. */
export const foldPunctuation = (s: string): string => rustTrim(s).replace(FOLDABLE, (c) => FOLD[c]);

export type LineEnding = "\n" | "\r\n";

const encoder = new TextEncoder();

export class TextFile {
  private constructor(
    readonly bom: string,
    /** The content after the BOM, as read. */
    private readonly body: string,
    /** Line texts, endings removed. */
    readonly lines: string[],
    /** Offset in `body` where each line starts, plus one entry for the end of the body. */
    private readonly starts: number[],
    /** The ending inserted lines get: the one the file's first line break uses. */
    readonly eol: LineEnding,
    /** The file's bytes when they are all ASCII (offsets in `body` are then byte offsets too). */
    private readonly asciiBytes: Uint8Array | null,
  ) {}

  /** `bytes`, when given, are the content's UTF-8 bytes: an ASCII file is then rewritten byte for byte. */
  static parse(content: string, bytes?: Uint8Array): TextFile {
    const bom = content.charCodeAt(0) === 0xfeff ? "\uFEFF" : "";
    const body = bom ? content.slice(1) : content;
    const raw = body === "" ? [] : body.split("\n");
    if (raw.length > 0 && raw[raw.length - 1] === "") raw.pop(); // the final newline ends a line, it starts none
    const starts = new Array<number>(raw.length + 1);
    let at = 0;
    for (let i = 0; i < raw.length; i++) {
      starts[i] = at;
      at += raw[i].length + 1;
    }
    starts[raw.length] = body.length;
    const hasCr = body.includes("\r");
    const lines = hasCr ? raw.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l)) : raw;
    const firstBreak = body.indexOf("\n");
    const eol: LineEnding = firstBreak > 0 && body.charCodeAt(firstBreak - 1) === 13 ? "\r\n" : "\n";
    // As many UTF-8 bytes as UTF-16 units happens only when every character is ASCII.
    const ascii = bytes && !bom && bytes.length === body.length ? bytes : null;
    return new TextFile(bom, body, lines, starts, eol, ascii);
  }

  /** True when the file has content and its last line has no line break. */
  get missingFinalNewline(): boolean {
    return this.body !== "" && !this.body.endsWith("\n");
  }

  /**
   * The content with `replacements` (sorted, non-overlapping: start line, lines removed, lines
   * inserted) applied. Untouched stretches are copied as they are, inserted lines get the file's
   * line ending, and a missing final newline stays missing. An ASCII file comes back as bytes,
   * its untouched stretches copied straight from the bytes read (no re-encoding of 10 MB).
   */
  withReplacements(replacements: readonly Replacement[]): string | Uint8Array {
    // Pieces of the result: [from, to) ranges of `body`, or inserted text.
    const pieces: Array<string | [number, number]> = [];
    const n = this.lines.length;
    let from = 0;
    const copyUntil = (to: number) => {
      if (to <= from) return;
      pieces.push([this.starts[from], this.starts[to]]);
      // The last line had no break; lines now follow it, so it gets one.
      if (to === n && this.missingFinalNewline) pieces.push(this.eol);
    };
    for (const r of replacements) {
      copyUntil(r.start);
      if (r.lines.length > 0) pieces.push(r.lines.join(this.eol) + this.eol);
      from = Math.max(from, r.start + r.remove);
    }
    copyUntil(n);
    if (this.missingFinalNewline) dropFinalLineBreak(pieces, this.body);
    if (this.asciiBytes) return concatBytes(pieces, this.asciiBytes);
    return this.bom + pieces.map((p) => (typeof p === "string" ? p : this.body.slice(p[0], p[1]))).join("");
  }
}

/** Removes the line break the result ends with, from its last non-empty piece. */
function dropFinalLineBreak(pieces: Array<string | [number, number]>, body: string): void {
  for (let i = pieces.length - 1; i >= 0; i--) {
    const p = pieces[i];
    if (typeof p === "string") {
      if (p === "") continue;
      pieces[i] = p.endsWith("\r\n") ? p.slice(0, -2) : p.endsWith("\n") ? p.slice(0, -1) : p;
      return;
    }
    if (p[1] <= p[0]) continue;
    const cut = body[p[1] - 1] !== "\n" ? 0 : p[1] - 1 > p[0] && body[p[1] - 2] === "\r" ? 2 : 1;
    pieces[i] = [p[0], p[1] - cut];
    return;
  }
}

function concatBytes(pieces: Array<string | [number, number]>, source: Uint8Array): Uint8Array {
  const chunks = pieces.map((p) => (typeof p === "string" ? encoder.encode(p) : source.subarray(p[0], p[1])));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

export interface Replacement {
  /** First line replaced (0-based). */
  start: number;
  /** How many lines are removed there. */
  remove: number;
  /** The lines put in their place. */
  lines: string[];
}
