/**
 * What turns one drawn row into another: the column to start at and the text to write there, no
 * more than changed. Rows are compared as characters and escape sequences; the text starts with
 * the styles in force at its column (set again, since the terminal's own style is not where the
 * cursor is), and when the changed part is as wide as before only that part is written (a spinner
 * frame is one character), the style reset after it.
 */
import { textWidth } from "./text-width.ts";

/** One character with the marks that combine with it, or one escape sequence. */
const TOKEN = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b.?|[\s\S](?:\p{M}|\u200d|\ufe0f)*/gu;

export interface RowPatch {
  /** The column the text starts at. */
  col: number;
  text: string;
  /** The old row went further: the rest of the row is to be cleared after the text. */
  clear: boolean;
}

/** The write that turns `old` into `next` on screen (null when they are the same). */
export function patchRow(old: string, next: string): RowPatch | null {
  if (old === next) return null;
  const a = old.match(TOKEN) ?? [];
  const b = next.match(TOKEN) ?? [];
  let p = 0;
  while (p < a.length && p < b.length && a[p] === b[p]) p++;
  let s = 0;
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
  const was = a.slice(p, a.length - s);
  const now = b.slice(p, b.length - s);
  const col = widthOf(b.slice(0, p));
  const open = stylesOf(b.slice(0, p));
  // The same width and no style change inside: only the changed characters are written.
  if (s > 0 && widthOf(was) === widthOf(now) && !was.some(isEscape) && !now.some(isEscape)) {
    const after = stylesOf(b.slice(0, b.length - s));
    return { col, text: `${open}${now.join("")}${after ? "\x1b[0m" : ""}`, clear: false };
  }
  return { col, text: open + b.slice(p).join(""), clear: textWidth(old) > textWidth(next) };
}

const isEscape = (token: string) => token.startsWith("\x1b");

function widthOf(tokens: readonly string[]): number {
  let w = 0;
  for (const t of tokens) if (!isEscape(t)) w += textWidth(t);
  return w;
}

/**
 * The SGR sequence that sets the styles in force after `tokens` ("" when none is): weight, italic,
 * underline, inverse, foreground and background colors.
 */
export function stylesOf(tokens: readonly string[]): string {
  const on = new Map<string, string>();
  for (const t of tokens) {
    if (!t.startsWith("\x1b[") || !t.endsWith("m")) continue;
    const codes = t.slice(2, -1).split(";");
    for (let i = 0; i < codes.length; i++) {
      const c = Number(codes[i] || 0);
      if (c === 0) on.clear();
      else if (c === 1 || c === 2) on.set(`weight${c}`, String(c));
      else if (c === 22) {
        on.delete("weight1");
        on.delete("weight2");
      } else if (c === 3 || c === 4 || c === 7) on.set(`attr${c}`, String(c));
      else if (c === 23 || c === 24 || c === 27) on.delete(`attr${c - 20}`);
      else if (c === 38 || c === 48) {
        // 38;5;n or 38;2;r;g;b: the color's parameters come with it.
        const take = codes[i + 1] === "5" ? 2 : codes[i + 1] === "2" ? 4 : 0;
        on.set(c === 38 ? "fg" : "bg", codes.slice(i, i + 1 + take).join(";"));
        i += take;
      } else if ((c >= 30 && c <= 37) || (c >= 90 && c <= 97)) on.set("fg", String(c));
      else if ((c >= 40 && c <= 47) || (c >= 100 && c <= 107)) on.set("bg", String(c));
      else if (c === 39) on.delete("fg");
      else if (c === 49) on.delete("bg");
    }
  }
  return on.size ? `\x1b[${[...on.values()].join(";")}m` : "";
}
