/**
 * Markdown of a streamed answer rendered for the terminal: headings bold, emphasis, inline code,
 * fenced code framed with its keywords, strings and comments in color, list bullets, quotes,
 * rules, and tables with aligned columns; links show their text and, dimmed, their address. Every
 * row fits the width: prose wraps at word boundaries (list items under their text, a quote keeping
 * its bar), code wraps inside its frame at spaces or after punctuation, a table shrinks its columns
 * and wraps inside its cells.
 *
 * The answer streams in two parts: the finished lines, rendered for good (`push`), and what is
 * still being written (`pending`): the unfinished line's whole words, rendered and wrapped as they
 * will be (the word being written waits for the space after it), and a table being written,
 * rendered as far as it came. The shell draws the pending part in its live region and replaces it
 * as it grows; text taller than the screen is committed as it is, since rows above the screen
 * cannot be drawn again.
 */
import type { Style } from "./render.ts";
import { fitToWidth, textWidth } from "./text-width.ts";

/** Italics where the style has escapes at all (NO_COLOR: none). */
const italicOn = (s: Style) => (s.bold("x") === "x" ? (t: string) => t : (t: string) => `\x1b[3m${t}\x1b[23m`);

const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_RULE = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
const FENCE = /^\s*(```|~~~)\s*([\w+-]*)\s*$/;

export class MarkdownStream {
  /** The unfinished line's text. */
  private partial = "";
  private inFence = false;
  /** Rows of a table being written: rendered together once it ends, so its columns line up. */
  private table: string[] = [];
  /** Characters of the unfinished line already committed (it grew taller than the screen). */
  private kept = 0;
  /** The pending part as last rendered, and at which width (cleared by every change to the text). */
  private shown: { columns: number; text: string } | null = null;

  constructor(
    private readonly style: Style,
    private readonly columns: () => number,
    /** Rows the pending part may take: taller, it is committed as it is. */
    private readonly rows: () => number = () => 22,
  ) {}

  /** Takes a delta; returns the lines it finished, rendered (each ending in a newline). */
  push(delta: string): string {
    this.shown = null;
    const text = this.partial + delta;
    const end = text.lastIndexOf("\n");
    let out = "";
    if (end >= 0) {
      const lines = text.slice(0, end).split("\n");
      this.partial = text.slice(end + 1);
      for (const line of lines) out += this.complete(line);
    } else this.partial = text;
    return out + this.commitIfTall();
  }

  /** What is still being written, rendered as it will show ("" when nothing is): rows joined by newlines. */
  pending(): string {
    const columns = this.columns();
    if (this.shown?.columns !== columns) this.shown = { columns, text: this.renderPending() };
    return this.shown.text;
  }

  private renderPending(): string {
    const partial = this.partial;
    if (this.kept > 0) return this.continuation(wholeWords(partial.slice(this.kept)));
    // A table row being written shows with the table once its first cell is complete.
    if (!this.inFence && partial.trimStart().startsWith("|")) {
      const row = partial.slice(0, partial.lastIndexOf("|") + 1);
      return this.renderTable(TABLE_ROW.test(row) ? [...this.table, row] : this.table).replace(/\n$/, "");
    }
    const table = this.renderTable(this.table);
    const words = wholeWords(partial);
    if (!words) return table.replace(/\n$/, "");
    // Rendering a line may open or close a code fence: the unfinished line leaves that to its end.
    const inFence = this.inFence;
    const shown = this.render(words, true);
    this.inFence = inFence;
    return table + shown;
  }

  /** The answer ended: everything still waiting, rendered (ending in a newline); the next answer starts fresh. */
  flush(): string {
    this.shown = null;
    const rest = this.partial;
    this.partial = "";
    let out: string;
    if (this.kept > 0) {
      out = rest.slice(this.kept).trim() ? `${this.continuation(rest.slice(this.kept))}\n` : "";
      this.kept = 0;
    } else if (rest && this.isTableLine(rest)) {
      this.table.push(rest);
      out = this.takeTable();
    } else out = this.takeTable() + (rest ? `${this.render(rest)}\n` : "");
    this.inFence = false;
    return out;
  }

  /** A complete line: rendered, or collected into the table it belongs to. */
  private complete(line: string): string {
    if (this.kept > 0) {
      // Its start is committed already; the rest follows under it.
      const rest = this.continuation(line.slice(this.kept));
      this.kept = 0;
      return rest.trim() ? `${rest}\n` : "";
    }
    if (this.isTableLine(line)) {
      this.table.push(line);
      return "";
    }
    return `${this.takeTable()}${this.render(line)}\n`;
  }

  /**
   * What is pending would be taller than the rows it may take: a table is committed as far as it
   * came (rendered in parts), an unfinished line's whole words as they show.
   */
  private commitIfTall(): string {
    const pending = this.pending();
    if (!pending || pending.split("\n").length <= Math.max(2, this.rows())) return "";
    if (this.table.length > 0) return this.takeTable();
    const kept = this.partial.lastIndexOf(" ") + 1;
    if (kept <= this.kept) return "";
    this.kept = kept;
    this.shown = null;
    return `${pending}\n`;
  }

  private isTableLine(line: string): boolean {
    return !this.inFence && (TABLE_ROW.test(line) || (TABLE_RULE.test(line) && line.includes("|")));
  }

  /** The collected table, rendered ("" when none is collected); the collection starts again. */
  private takeTable(): string {
    const rendered = this.renderTable(this.table);
    this.table = [];
    this.shown = null;
    return rendered;
  }

  /** Table rows with their columns lined up, fitted to the width (each row ending in a newline). */
  private renderTable(lines: readonly string[]): string {
    if (lines.length === 0) return "";
    const s = this.style;
    const rule = lines.findIndex((l) => TABLE_RULE.test(l));
    const align =
      rule >= 0
        ? splitRow(lines[rule]).map((c) => (/^:-+:$/.test(c) ? "center" : /-:$/.test(c) ? "right" : "left"))
        : [];
    const rows = lines.map((l, i) => (i === rule ? null : splitRow(l).map((c) => this.inline(c))));
    const count = Math.max(...rows.map((r) => r?.length ?? 0), align.length);
    const widths = shrinkColumns(
      Array.from({ length: count }, (_, c) => Math.max(1, ...rows.map((r) => textWidth(r?.[c] ?? "")))),
      this.columns() - 1,
    );
    return rows
      .map((row) => {
        if (!row) return s.dim(widths.map((w) => "─".repeat(w + 2)).join("┼"));
        // A cell wider than its column wraps inside it: the row takes as many rows as its tallest cell.
        const cells = widths.map((w, c) => fitToWidth(row[c] ?? "", w, 0));
        const height = Math.max(...cells.map((lines) => lines.length));
        return Array.from({ length: height }, (_, i) =>
          widths
            .map((w, c) => ` ${pad(cells[c][i] ?? "", w, align[c] ?? "left")} `)
            .join(s.dim("│"))
            .trimEnd(),
        ).join("\n");
      })
      .map((l) => `${l}\n`)
      .join("");
  }

  /** The rest of a line whose start was committed: its words, wrapped. */
  private continuation(text: string): string {
    return fitToWidth(this.inline(text.trimStart()), this.width()).join("\n");
  }

  private width(): number {
    return Math.max(20, this.columns() - 1);
  }

  /**
   * One line rendered and fitted: its rows joined by newlines. `unfinished`: a heading or quote
   * shows without its line's style until it ends (it would be rewritten at every word).
   */
  private render(text: string, unfinished = false): string {
    const s = this.style;
    const line = plain(text);
    const width = this.width();
    const fence = FENCE.exec(line);
    if (fence) {
      this.inFence = !this.inFence;
      return s.dim(this.inFence ? `╭─ ${fence[2] || "code"}` : "╰─");
    }
    // Code keeps its frame on every row it wraps onto.
    if (this.inFence) return framed(highlight(line, s), width, s.dim("│"));
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const text = this.inline(heading[2]);
      const styled = unfinished ? text : s.bold(heading[1].length <= 2 ? s.cyan(text) : text);
      return fitToWidth(styled, width).join("\n");
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) return s.dim("─".repeat(Math.min(40, Math.max(3, width))));
    const quote = /^\s*>\s?(.*)$/.exec(line);
    if (quote) {
      const text = this.inline(quote[1]);
      return framed(unfinished ? text : s.dim(text), width, s.dim("│"));
    }
    const lead = /^\s*/.exec(line)![0].length;
    const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line);
    if (bullet) {
      const task = /^\[([ xX])\]\s+(.*)$/.exec(bullet[2]);
      const text = task
        ? `${bullet[1]}${task[1] === " " ? "☐" : s.green("✔")} ${this.inline(task[2])}`
        : `${bullet[1]}${s.cyan("•")} ${this.inline(bullet[2])}`;
      return fitToWidth(text, width, lead + 2).join("\n");
    }
    // A numbered item's rows continue under its text: "1. " is three columns, "10. " four.
    const numbered = /^(\s*)(\d+[.)])\s+(.*)$/.exec(line);
    if (numbered)
      return fitToWidth(
        `${numbered[1]}${s.cyan(numbered[2])} ${this.inline(numbered[3])}`,
        width,
        lead + numbered[2].length + 1,
      ).join("\n");
    return fitToWidth(this.inline(line), width, lead).join("\n");
  }

  private inline(text: string): string {
    return inline(text, this.style);
  }
}

/** The text up to its last space: what of an unfinished line is whole words ("" while only a block's mark came: "- ", "## "). */
function wholeWords(text: string): string {
  const words = text.slice(0, text.lastIndexOf(" ") + 1).trimEnd();
  return /^\s*([-*+>]|#{1,6}|\d+[.)])?$/.test(words) ? "" : words;
}

/** `text` fitted to the width less the bar, each row behind the bar. */
function framed(text: string, width: number, bar: string): string {
  return fitToWidth(text, Math.max(1, width - 2))
    .map((row) => `${bar} ${row}`)
    .join("\n");
}

/**
 * Column widths that fit `room` columns with their padding and separators: the widest column gives
 * up a column at a time, none going below a few columns.
 */
function shrinkColumns(widths: number[], room: number): number[] {
  const fitted = [...widths];
  const total = () => fitted.reduce((sum, w) => sum + w + 3, -1);
  while (total() > room) {
    const widest = fitted.indexOf(Math.max(...fitted));
    if (fitted[widest] <= 4) break;
    fitted[widest]--;
  }
  return fitted;
}

/** Text as it came, made safe to count: tabs as spaces, no control characters or escapes. */
function plain(text: string): string {
  return text.replace(/\t/g, "    ").replace(/[\x00-\x1f\x7f]/g, "");
}

/** A table row's cells, trimmed, without the outer pipes. */
function splitRow(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split("|")
    .map((c) => c.trim());
}

function pad(text: string, width: number, align: string): string {
  const room = Math.max(0, width - textWidth(text));
  if (align === "right") return " ".repeat(room) + text;
  if (align === "center") return " ".repeat(Math.floor(room / 2)) + text + " ".repeat(Math.ceil(room / 2));
  return text + " ".repeat(room);
}

/** Inline code, bold, italics and links of one line; code spans are left as they are inside. */
function inline(text: string, s: Style): string {
  // Without colors a code span would look like the words around it: it keeps its marks.
  const colored = s.cyan("x") !== "x";
  return text
    .split(/(`[^`]+`)/)
    .map((part) => {
      if (/^`[^`]+`$/.test(part)) return colored ? s.cyan(part.slice(1, -1)) : part;
      return part
        .replace(
          /\[([^\]]+)\]\(([^)\s]+)\)/g,
          (_m, label: string, url: string) => `${s.bold(label)} ${s.dim(`(${url})`)}`,
        )
        .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, (_m, _d, inner: string) => s.bold(inner))
        .replace(
          /(^|[^\w*])([*_])(?=\S)(.+?)(?<=\S)\2(?![\w*])/g,
          (_m, pre: string, _d, inner: string) => `${pre}${italicOn(s)(inner)}`,
        );
    })
    .join("");
}

const KEYWORDS = new Set(
  "async await break case catch class const continue def default do elif else enum export extends false fn for from func function go if impl import in interface let match mut new nil None null package pub raise return self static struct super switch this throw true True False try type typeof undefined use var void while with yield".split(
    " ",
  ),
);

/** Colors a line of code, whatever its language: comments dim, strings green, keywords bold, numbers yellow. */
function highlight(line: string, s: Style): string {
  let out = "";
  const token =
    /(\/\/.*$|#(?![\w!]).*$|--\s.*$)|("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|`(?:[^`\\]|\\.)*`?)|\b(\d+(?:\.\d+)?)\b|([A-Za-z_]\w*)|([\s\S])/g;
  for (const m of line.matchAll(token)) {
    if (m[1]) out += s.dim(m[1]);
    else if (m[2]) out += s.green(m[2]);
    else if (m[3]) out += s.yellow(m[3]);
    else if (m[4]) out += KEYWORDS.has(m[4]) ? s.bold(s.cyan(m[4])) : m[4];
    else out += m[5];
  }
  return out;
}
