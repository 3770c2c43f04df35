/**
 * A text file as the patch applier sees it: a BOM, lines without their endings, and each line's
 * own ending. Matching looks at the line texts; writing puts every untouched line back with the
 * ending it had, gives inserted lines the file's ending (the one its first line break uses), and
 * keeps a missing final newline missing.
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

export class TextFile {
  private constructor(
    readonly bom: string,
    /** Line texts, endings removed. */
    readonly lines: string[],
    /** Each line's ending; "" only for a last line without one. */
    readonly endings: string[],
    /** The ending inserted lines get: the one the file's first line break uses. */
    readonly eol: LineEnding,
  ) {}

  static parse(content: string): TextFile {
    const bom = content.charCodeAt(0) === 0xfeff ? "\uFEFF" : "";
    const body = bom ? content.slice(1) : content;
    const lines: string[] = [];
    const endings: string[] = [];
    let eol: LineEnding | undefined;
    let start = 0;
    for (let nl = body.indexOf("\n"); nl !== -1; nl = body.indexOf("\n", start)) {
      const crlf = nl > start && body.charCodeAt(nl - 1) === 13;
      lines.push(body.slice(start, crlf ? nl - 1 : nl));
      const ending: LineEnding = crlf ? "\r\n" : "\n";
      endings.push(ending);
      eol ??= ending;
      start = nl + 1;
    }
    if (start < body.length) {
      lines.push(body.slice(start));
      endings.push("");
    }
    return new TextFile(bom, lines, endings, eol ?? "\n");
  }

  /** True when the file has content and its last line has no line break. */
  get missingFinalNewline(): boolean {
    return this.endings.length > 0 && this.endings[this.endings.length - 1] === "";
  }

  /**
   * The file with `replacements` (sorted, non-overlapping: start line, lines removed, lines
   * inserted) applied. Only replaced lines change; a missing final newline stays missing.
   */
  withReplacements(replacements: readonly Replacement[]): TextFile {
    const lines: string[] = [];
    const endings: string[] = [];
    let from = 0;
    for (const r of replacements) {
      for (let i = from; i < r.start; i++) {
        lines.push(this.lines[i]);
        endings.push(this.endings[i] || this.eol);
      }
      for (const text of r.lines) {
        lines.push(text);
        endings.push(this.eol);
      }
      from = r.start + r.remove;
    }
    for (let i = from; i < this.lines.length; i++) {
      lines.push(this.lines[i]);
      endings.push(this.endings[i] || this.eol);
    }
    if (this.missingFinalNewline && endings.length > 0) endings[endings.length - 1] = "";
    return new TextFile(this.bom, lines, endings, this.eol);
  }

  toString(): string {
    const parts: string[] = [this.bom];
    for (let i = 0; i < this.lines.length; i++) parts.push(this.lines[i], this.endings[i]);
    return parts.join("");
  }
}

export interface Replacement {
  /** First line replaced (0-based). */
  start: number;
  /** How many lines are removed there. */
  remove: number;
  /** The lines put in their place. */
  lines: string[];
}
