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
