/**
 * Markdown of a streamed answer rendered for the terminal: headings bold, emphasis, inline code,
 * fenced code with its keywords, strings and comments in color, list bullets, quotes, rules, and
 * tables with aligned columns; links show their text and, dimmed, their address. Prose is wrapped
 * at word boundaries to the terminal's width. Text shows as it arrives: the unfinished line shows
 * its whole words, rendered and word-wrapped as far as they go (the word being written waits for
 * the space after it, so the terminal never breaks a word), and is rendered in full once it ends —
 * only what changed is rewritten. A table still being written shows as it came until it ends.
 * Used only when color is on (a terminal, no NO_COLOR); otherwise the text is printed as it came.
 */
import type { Style } from "./render.ts";
import { fitToWidth, textWidth } from "./text-width.ts";

const italic = (s: string) => `\x1b[3m${s}\x1b[23m`;

const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_RULE = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

export class MarkdownStream {
  /** The unfinished line's text. */
  private partial = "";
  private inFence = false;
  /** Rows of a table being written: rendered together once it ends, so its columns line up. */
  private table: string[] = [];
  /**
   * What is on screen only until it is rendered, at the end of the output: the table rows so far
   * and the unfinished line (from `kept` on), as they came.
   */
  private shownRows: string[] = [];
  private shownPartial = "";
  /** Characters of the unfinished line printed for good (other output broke the line there). */
  private kept = 0;
  /** The user is typing a line below the output: the unfinished line stays off the screen until it ends. */
  private hidden = false;

  constructor(
    private readonly style: Style,
    private readonly columns: () => number,
    /** The terminal's height: text taller than it cannot be erased, so it is kept as it came. */
    private readonly rows: () => number = () => 24,
  ) {}

  /** Takes a delta; returns what to write: the new text as it came, or the finished lines rendered in its place. */
  push(delta: string): string {
    const text = this.partial + delta;
    const end = text.lastIndexOf("\n");
    if (end < 0) {
      this.partial = text;
      if (this.hidden) return "";
      const visible = this.provisional();
      if (this.shownRows.reduce((n, r) => n + this.rowsOf(r), 0) + this.rowsOf(visible) > this.maxRows())
        return this.keep(visible);
      if (this.shownRows.length === 0) return this.replacePartial(visible);
      const added = visible.startsWith(this.shownPartial) ? visible.slice(this.shownPartial.length) : null;
      if (added === null) return this.redraw();
      this.shownPartial = visible;
      return added;
    }
    const [first, ...rest] = text.slice(0, end).split("\n");
    // The finished line is written over what is shown of it from the first row that changes.
    const inPlace = this.shownRows.length === 0 && this.table.length === 0 && this.kept === 0;
    const done = this.complete(first);
    let out = inPlace && done.endsWith("\n") ? `${this.replacePartial(done.slice(0, -1))}\n` : `${this.erase()}${done}`;
    this.shownPartial = "";
    for (const line of rest) out += this.complete(line);
    this.partial = text.slice(end + 1);
    return out + (this.hidden ? "" : this.showBlock());
  }

  /**
   * The user starts typing below the output: what is shown only until it is rendered (the
   * unfinished line, a table being written) is erased, and from here only finished lines are
   * returned, rendered. Null when part of the line is already printed for good (it cannot be taken back).
   */
  hold(): string | null {
    if (this.kept > 0) return null;
    this.hidden = true;
    return this.erase();
  }

  /** While held: what shows of the unfinished line (drawn apart, above the user's line). */
  heldText(): string {
    return this.hidden ? this.provisional() : "";
  }

  /** The user's line is done: the unfinished line shows again as it came. */
  release(): string {
    if (!this.hidden) return "";
    this.hidden = false;
    return this.showBlock();
  }

  /** The answer ended: everything still waiting, rendered; the next answer starts fresh. */
  flush(): string {
    this.hidden = false;
    let out = this.erase();
    const rest = this.partial;
    this.partial = "";
    if (this.kept > 0) {
      out += plain(rest.slice(this.kept));
      this.kept = 0;
    } else if (rest && this.isTableLine(rest)) {
      this.table.push(rest);
      out += this.renderTable();
      out = out.slice(0, -1);
    } else {
      out += this.renderTable();
      if (rest) out += this.wrapped(rest);
    }
    this.table = [];
    this.inFence = false;
    return out;
  }

  /**
   * Other output is about to break into the answer (a newline follows what is shown): what is on
   * screen stays as it is, and the rest of the line is printed as it comes.
   */
  commit(): void {
    this.shownRows = [];
    this.shownPartial = "";
    this.table = [];
    // Only the whole words of the line were shown: the word being written follows as it comes.
    if (this.kept === 0 && !this.hidden) this.kept = this.partial.lastIndexOf(" ") + 1;
    else this.kept = this.partial.length;
  }

  /** A complete line: rendered, or collected into the table it belongs to. */
  private complete(line: string): string {
    if (this.kept > 0) {
      // Its start is already on screen as it came; the rest follows it the same way.
      const rest = plain(line.slice(this.kept));
      this.kept = 0;
      this.line(line);
      return `${rest}\n`;
    }
    if (this.isTableLine(line)) {
      this.table.push(line);
      // A table taller than the screen is rendered in parts.
      return this.table.length >= this.maxRows() ? this.renderTable() : "";
    }
    return `${this.renderTable()}${this.wrapped(line)}\n`;
  }

  private isTableLine(line: string): boolean {
    return !this.inFence && (TABLE_ROW.test(line) || (TABLE_RULE.test(line) && line.includes("|")));
  }

  /** The collected table with its columns lined up ("" when none is collected). */
  private renderTable(): string {
    const lines = this.table;
    this.table = [];
    if (lines.length === 0) return "";
    const s = this.style;
    const cells = (line: string) => splitRow(line);
    const rule = lines.findIndex((l) => TABLE_RULE.test(l));
    const align =
      rule >= 0 ? cells(lines[rule]).map((c) => (/^:-+:$/.test(c) ? "center" : /-:$/.test(c) ? "right" : "left")) : [];
    const rows = lines.map((l, i) => (i === rule ? null : cells(l).map((c) => inline(c, s))));
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
          widths.map((w, c) => ` ${pad(cells[c][i] ?? "", w, align[c] ?? "left")} `).join(s.dim("│")),
        ).join("\n");
      })
      .map((l) => `${l}\n`)
      .join("");
  }

  /** The provisional text as it came: the table rows so far and the unfinished line. */
  private showBlock(): string {
    this.shownRows = this.table.map(plain);
    this.shownPartial = this.provisional();
    return this.shownRows.map((r) => `${r}\n`).join("") + this.shownPartial;
  }

  /**
   * What shows of the unfinished line: its whole words rendered and wrapped as the finished line
   * will be (the word being written waits). Past text printed for good, the rest as it came.
   */
  private provisional(): string {
    if (this.kept > 0) return plain(this.partial.slice(this.kept));
    if (this.isTableLine(this.partial)) return plain(this.partial);
    const words = this.partial.slice(0, this.partial.lastIndexOf(" ") + 1).trimEnd();
    if (!words) return "";
    // Rendering a line may open or close a code fence: the unfinished line leaves that to its end.
    const inFence = this.inFence;
    const shown = this.wrapped(words, true);
    this.inFence = inFence;
    return shown;
  }

  /**
   * What turns the unfinished line shown into `next`: rows that stay the same are left alone, a
   * last row that only grows gets its new end, and the rest is rewritten from the first row that changed.
   */
  private replacePartial(next: string): string {
    const old = this.shownPartial.split("\n");
    const rows = next.split("\n");
    this.shownPartial = next;
    let same = 0;
    while (same < old.length - 1 && same < rows.length && old[same] === rows[same]) same++;
    const last = old.length - 1;
    if (same === last && same < rows.length && rows[same].startsWith(old[same]))
      return (
        rows[same].slice(old[same].length) +
        rows
          .slice(same + 1)
          .map((r) => `\n${r}`)
          .join("")
      );
    const up = old.slice(same).reduce((n, r) => n + this.rowsOf(r), 0) - 1;
    return `\r${up > 0 ? `\x1b[${up}A` : ""}\x1b[J${rows.slice(same).join("\n")}`;
  }

  private redraw(): string {
    return this.erase() + this.showBlock();
  }

  /** Provisional text about to be taller than the screen (it could not be erased): printed for good as it came. */
  private keep(visible: string): string {
    const out = this.erase() + this.shownRows.map((r) => `${r}\n`).join("") + visible;
    this.shownRows = [];
    this.shownPartial = "";
    this.table = [];
    // What follows the words shown comes as it is.
    this.kept = this.kept > 0 ? this.partial.length : this.partial.lastIndexOf(" ") + 1;
    return out;
  }

  /** Moves the cursor back to the start of the provisional text and clears from there. */
  private erase(): string {
    if (this.shownRows.length === 0 && this.shownPartial === "") return "";
    const rows = this.shownRows.reduce((n, r) => n + this.rowsOf(r), 0) + this.rowsOf(this.shownPartial);
    this.shownRows = [];
    this.shownPartial = "";
    return `\r${rows > 1 ? `\x1b[${rows - 1}A` : ""}\x1b[J`;
  }

  /** Terminal rows `text` takes (the cursor's row when it is empty). */
  private rowsOf(text: string): number {
    const columns = Math.max(1, this.columns());
    return text.split("\n").reduce((rows, line) => rows + Math.max(1, Math.ceil(textWidth(line) / columns)), 0);
  }

  private maxRows(): number {
    return Math.max(2, this.rows() - 2);
  }

  /** A rendered line, wrapped at spaces to the width (code is left to the terminal). */
  private wrapped(line: string, unfinished = false): string {
    const code = this.inFence;
    const rendered = this.line(line, unfinished);
    if (code || this.inFence) return rendered;
    return fitToWidth(
      rendered,
      Math.max(20, this.columns() - 1),
      /^(\s*)/.exec(line)![1].length + (/^\s*([-*+]|\d+[.)])\s/.test(line) ? 2 : 0),
    ).join("\n");
  }

  /** `unfinished`: a heading or quote shows without its line's style until it ends (it would be rewritten at every word). */
  private line(line: string, unfinished = false): string {
    const s = this.style;
    const fence = /^\s*(```|~~~)\s*([\w+-]*)\s*$/.exec(line);
    if (fence) {
      this.inFence = !this.inFence;
      return s.dim(this.inFence ? `╭─ ${fence[2] || "code"}` : "╰─");
    }
    if (this.inFence) return `${s.dim("│")} ${highlight(line, s)}`;
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading && unfinished) return inline(heading[2], s);
    if (heading) return s.bold(heading[1].length <= 2 ? s.cyan(inline(heading[2], s)) : inline(heading[2], s));
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line))
      return s.dim("─".repeat(Math.min(40, Math.max(3, this.columns() - 1))));
    const quote = /^\s*>\s?(.*)$/.exec(line);
    if (quote) return `${s.dim("│")} ${unfinished ? inline(quote[1], s) : s.dim(inline(quote[1], s))}`;
    const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line);
    if (bullet) {
      const task = /^\[([ xX])\]\s+(.*)$/.exec(bullet[2]);
      if (task) return `${bullet[1]}${task[1] === " " ? "☐" : s.green("✔")} ${inline(task[2], s)}`;
      return `${bullet[1]}${s.cyan("•")} ${inline(bullet[2], s)}`;
    }
    const numbered = /^(\s*)(\d+[.)])\s+(.*)$/.exec(line);
    if (numbered) return `${numbered[1]}${s.cyan(numbered[2])} ${inline(numbered[3], s)}`;
    return inline(line, s);
  }
}

/** Text as it came, made safe to count: tabs as spaces, no control characters or escapes. */
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
  return text
    .split(/(`[^`]+`)/)
    .map((part) => {
      if (/^`[^`]+`$/.test(part)) return s.cyan(part.slice(1, -1));
      return part
        .replace(
          /\[([^\]]+)\]\(([^)\s]+)\)/g,
          (_m, label: string, url: string) => `${s.bold(label)} ${s.dim(`(${url})`)}`,
        )
        .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, (_m, _d, inner: string) => s.bold(inner))
        .replace(
          /(^|[^\w*])([*_])(?=\S)(.+?)(?<=\S)\2(?![\w*])/g,
          (_m, pre: string, _d, inner: string) => `${pre}${italic(inner)}`,
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
