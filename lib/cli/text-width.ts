/**
 * How many terminal columns text takes, and text cut to a number of columns. Escape sequences
 * take none; East Asian wide characters and emoji take two; combining marks take none.
 */

const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

function charWidth(code: number): number {
  if (code < 32 || (code >= 0x7f && code < 0xa0)) return 0;
  if ((code >= 0x300 && code <= 0x36f) || (code >= 0x200b && code <= 0x200f) || code === 0xfe0f) return 0;
  if (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1faff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  )
    return 2;
  return 1;
}

export function textWidth(text: string): number {
  let width = 0;
  for (const ch of text.replace(ANSI, "")) width += charWidth(ch.codePointAt(0)!);
  return width;
}

/** `text` (plain, no escape sequences) cut to `columns`, ending in "…" when something was cut. */
export function cutToWidth(text: string, columns: number): string {
  if (columns <= 0) return "";
  if (textWidth(text) <= columns) return text;
  let out = "";
  let width = 0;
  for (const ch of text) {
    const w = charWidth(ch.codePointAt(0)!);
    if (width + w > columns - 1) break;
    out += ch;
    width += w;
  }
  return `${out}…`;
}

/**
 * `text` fitted to `columns`: each line broken into rows at spaces (a word wider than a row is
 * broken inside), escape sequences taking no room and kept where they were, wide characters
 * counted as two. Spaces at a break are dropped; a row's indentation is kept on the rows it
 * continues onto, so a list item or an indented result stays aligned. Every line the shell prints
 * of its own passes here, and the input's prompt is broken by it, so a row never wraps by itself.
 */
export function fitToWidth(text: string, columns: number, hang?: number): string[] {
  const width = Math.max(1, columns);
  return text.split("\n").flatMap((line) => fitLine(line, width, hang));
}

/** fitToWidth's rows joined, each ending in a newline when `text` did. */
export function fitText(text: string, columns: number): string {
  const end = text.endsWith("\n");
  return fitToWidth(end ? text.slice(0, -1) : text, columns).join("\n") + (end ? "\n" : "");
}

/** Pieces of a line: escape sequences (no width), runs of spaces, and words. */
const PIECES = /\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07| +|[^ \x1b]+|\x1b/g;

/** `hang`: the indentation of continued rows (by default, the line's own). */
function fitLine(line: string, width: number, hang?: number): string[] {
  if (textWidth(line) <= width) return [line];
  const lead = hang !== undefined ? " ".repeat(hang) : /^ */.exec(line.replace(ANSI, ""))![0];
  const indent = lead.length < width / 2 ? lead : "";
  const rows: string[] = [];
  let row = "";
  let col = 0;
  const breakRow = () => {
    rows.push(row.replace(/ +((?:\x1b\[[0-9;?]*[A-Za-z])*)$/, "$1"));
    row = indent;
    col = indent.length;
  };
  for (const piece of line.match(PIECES) ?? []) {
    if (piece.startsWith("\x1b")) {
      row += piece;
      continue;
    }
    const w = textWidth(piece);
    if (piece.startsWith(" ")) {
      // Spaces at the end of a row are dropped with the break.
      if (col + w > width) {
        if (col > indent.length) breakRow();
      } else if (col > indent.length || rows.length === 0) {
        row += piece;
        col += w;
      }
      continue;
    }
    if (col + w > width && col > indent.length) breakRow();
    if (w <= width - col) {
      row += piece;
      col += w;
      continue;
    }
    // A word wider than a row: broken inside, character by character.
    for (const ch of piece) {
      const cw = charWidth(ch.codePointAt(0)!);
      if (col + cw > width && col > indent.length) breakRow();
      row += ch;
      col += cw;
    }
  }
  if (row.replace(ANSI, "").trim() !== "" || rows.length === 0) rows.push(row);
  else if (row) rows[rows.length - 1] += row.replace(/[^\x1b]*?((?:\x1b\[[0-9;?]*[A-Za-z])*)$/, "$1");
  return rows;
}

/** A piece of a one-row line: what shortens or leaves first when the row is too narrow. */
export interface LinePart {
  text: string;
  /** A shorter form, used before the part is dropped. */
  short?: string;
  /** Parts with a lower rank give way first (ties: the later part); 0 by default. */
  rank?: number;
}

/**
 * Parts joined into one row of at most `columns`: when they do not fit, the parts that rank lowest
 * take their short forms, then leave whole (the last first), and so on up the ranks — never a part
 * cut mid-phrase, unless the one left is still too wide (then it ends in "…").
 */
export function fitParts(parts: readonly LinePart[], columns: number, separator = " · "): string {
  const kept = parts.map((p) => ({ ...p, shown: p.text }));
  const line = () => kept.map((p) => p.shown).join(separator);
  while (textWidth(line()) > columns) {
    const rank = Math.min(...kept.map((p) => p.rank ?? 0));
    const lowest = kept.filter((p) => (p.rank ?? 0) === rank);
    const shortens = lowest.findLast((p) => p.short !== undefined && p.shown !== p.short);
    if (shortens) shortens.shown = shortens.short!;
    else if (kept.length > 1) kept.splice(kept.lastIndexOf(lowest.at(-1)!), 1);
    else break;
  }
  return cutToWidth(line(), columns);
}
