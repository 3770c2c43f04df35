/**
 * Where the line editor's text lands on the terminal: the prompt, the text broken into rows at
 * the terminal's width (and at each newline of a multi-line input, whose later lines are indented
 * under the first), and the row and column of the cursor. The editor breaks rows itself rather
 * than leaving it to the terminal's wrap, so it always knows how many rows to redraw.
 */
import { fitToWidth, textWidth } from "./text-width.ts";

export interface Layout {
  /** The rows to print, the prompt on the first; each fits the width. */
  rows: string[];
  cursorRow: number;
  cursorCol: number;
}

/** A tab is shown as spaces: the terminal's tab stops would move the text away from the layout. */
const TAB = "    ";

function glyph(ch: string): string {
  return ch === "\t" ? TAB : ch;
}

/**
 * `text` after `prompt` in rows of at most `width` columns, with the cursor at string index
 * `cursor`. A row ends before a word that does not fit it (the space stays at the end of the row
 * it follows); a word wider than a whole row is broken inside.
 */
export function layoutInput(prompt: string, text: string, cursor: number, width: number): Layout {
  // A prompt wider than the terminal (a question's answers) takes rows of its own, counted here.
  const promptRows = fitToWidth(prompt, width);
  const rows: string[] = promptRows.slice(0, -1);
  let row = promptRows.at(-1)!;
  let col = textWidth(row);
  const indent = " ".repeat(Math.min(col, Math.max(0, width - 1)));
  const breaks = rowBreaks(text, col, indent.length, width);
  let cursorRow = 0;
  let cursorCol = col;
  let index = 0;
  const place = () => {
    if (index !== cursor) return;
    // A cursor just past a full row stands at the start of the next one.
    if (col >= width) {
      rows.push(row);
      row = "";
      col = 0;
    }
    cursorRow = rows.length;
    cursorCol = col;
  };
  for (const ch of text) {
    if (ch === "\n") {
      place();
      rows.push(row);
      row = indent;
      col = indent.length;
    } else {
      if (breaks.has(index)) {
        rows.push(row);
        row = "";
        col = 0;
      }
      place();
      const shown = glyph(ch);
      row += shown;
      col += textWidth(shown);
    }
    index += ch.length;
  }
  place();
  rows.push(row);
  return { rows, cursorRow, cursorCol };
}

/** The string indexes of `text` that start a new row: before a word that would not fit, else where a row is full. */
function rowBreaks(text: string, start: number, indent: number, width: number): Set<number> {
  const breaks = new Set<number>();
  let col = start;
  /** Where the word being placed starts (after the last space on this row), -1 when the row has none. */
  let wordStart = -1;
  let wordCol = 0;
  let index = 0;
  for (const ch of text) {
    if (ch === "\n") {
      col = indent;
      wordStart = -1;
    } else {
      const w = textWidth(glyph(ch));
      if (col + w > width && col > 0) {
        // The word moves whole to the next row when it fits there; else the row breaks here.
        if (wordStart >= 0 && ch !== " " && col - wordCol + w <= width) {
          breaks.add(wordStart);
          col -= wordCol;
        } else {
          breaks.add(index);
          col = 0;
        }
        wordStart = -1;
      }
      col += w;
      if (ch === " " || ch === "\t") {
        wordStart = index + ch.length;
        wordCol = col;
      }
    }
    index += ch.length;
  }
  return breaks;
}

/** Completion candidates under the input, in columns filled row by row, at most `maxRows` rows. */
export function layoutMenu(labels: string[], width: number, maxRows: number): string[] {
  if (labels.length === 0 || maxRows < 1) return [];
  const cut = (s: string, w: number) => {
    if (textWidth(s) <= w) return s;
    let out = "";
    for (const ch of s) {
      if (textWidth(out + ch) > w - 1) break;
      out += ch;
    }
    return `${out}…`;
  };
  const colWidth = Math.max(...labels.map(textWidth)) + 2;
  const columns = Math.max(1, Math.floor((width - 1) / colWidth));
  const rows: string[] = [];
  const needed = Math.ceil(labels.length / columns);
  const shownRows = needed > maxRows ? Math.max(1, maxRows - 1) : needed;
  for (let r = 0; r < shownRows; r++) {
    const cells = labels.slice(r * columns, (r + 1) * columns);
    rows.push(
      columns === 1
        ? cut(cells[0], width - 1)
        : cells
            .map((l) => l + " ".repeat(colWidth - textWidth(l)))
            .join("")
            .trimEnd(),
    );
  }
  const hidden = labels.length - shownRows * columns;
  if (hidden > 0) rows.push(`… ${hidden} more`);
  return rows;
}
