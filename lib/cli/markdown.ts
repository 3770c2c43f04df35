/**
 * Markdown of a streamed answer rendered for the terminal, a line at a time as each line completes:
 * headings bold, emphasis, inline code, fenced code with its keywords, strings and comments in
 * color, list bullets, quotes, rules and table rows with drawn separators; links show their text
 * and, dimmed, their address. Prose is wrapped at word boundaries to the terminal's width. Used
 * only when color is on (a terminal, no NO_COLOR); otherwise the text is printed as it came.
 */
import type { Style } from "./render.ts";
import { textWidth } from "./text-width.ts";

const italic = (s: string) => `\x1b[3m${s}\x1b[23m`;

export class MarkdownStream {
  private partial = "";
  private inFence = false;

  constructor(
    private readonly style: Style,
    private readonly columns: () => number,
  ) {}

  /** True when text of an unfinished line is waiting. */
  get pending(): boolean {
    return this.partial !== "";
  }

  /** Takes a delta; returns the rendered complete lines (each ending in a newline). */
  push(delta: string): string {
    const text = this.partial + delta;
    const end = text.lastIndexOf("\n");
    if (end < 0) {
      this.partial = text;
      return "";
    }
    this.partial = text.slice(end + 1);
    return text
      .slice(0, end)
      .split("\n")
      .map((line) => `${this.wrapped(line)}\n`)
      .join("");
  }

  /** The answer ended: the unfinished line, rendered, without a newline; the next answer starts fresh. */
  flush(): string {
    const rest = this.partial;
    this.partial = "";
    const out = rest ? this.wrapped(rest) : "";
    this.inFence = false;
    return out;
  }

  /** A rendered line, wrapped at spaces to the width (code and tables are left to the terminal). */
  private wrapped(line: string): string {
    const code = this.inFence;
    const rendered = this.line(line);
    if (code || this.inFence || /^\s*\|/.test(line)) return rendered;
    return wrapWords(rendered, Math.max(20, this.columns() - 1), /^(\s*)/.exec(line)![1].length + (/^\s*([-*+]|\d+[.)])\s/.test(line) ? 2 : 0));
  }

  private line(line: string): string {
    const s = this.style;
    const fence = /^\s*(```|~~~)\s*([\w+-]*)\s*$/.exec(line);
    if (fence) {
      this.inFence = !this.inFence;
      return s.dim(this.inFence ? `╭─ ${fence[2] || "code"}` : "╰─");
    }
    if (this.inFence) return `${s.dim("│")} ${highlight(line, s)}`;
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) return s.bold(heading[1].length <= 2 ? s.cyan(inline(heading[2], s)) : inline(heading[2], s));
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) return s.dim("─".repeat(Math.min(40, Math.max(3, this.columns() - 1))));
    if (/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(line) && line.includes("|")) {
      const cells = line.trim().replace(/^\||\|$/g, "").split("|");
      return s.dim(cells.map((c) => "─".repeat(Math.max(3, c.length))).join("┼"));
    }
    if (/^\s*\|.*\|\s*$/.test(line)) {
      const cells = line.trim().slice(1, -1).split("|");
      return cells.map((c) => inline(c, s)).join(s.dim("│"));
    }
    const quote = /^\s*>\s?(.*)$/.exec(line);
    if (quote) return `${s.dim("│")} ${s.dim(inline(quote[1], s))}`;
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

/** Inline code, bold, italics and links of one line; code spans are left as they are inside. */
function inline(text: string, s: Style): string {
  return text
    .split(/(`[^`]+`)/)
    .map((part) => {
      if (/^`[^`]+`$/.test(part)) return s.cyan(part.slice(1, -1));
      return part
        .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_m, label: string, url: string) => `${s.bold(label)} ${s.dim(`(${url})`)}`)
        .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, (_m, _d, inner: string) => s.bold(inner))
        .replace(/(^|[^\w*])([*_])(?=\S)(.+?)(?<=\S)\2(?![\w*])/g, (_m, pre: string, _d, inner: string) => `${pre}${italic(inner)}`);
    })
    .join("");
}

const KEYWORDS = new Set(
  "async await break case catch class const continue def default do elif else enum export extends false fn for from func function go if impl import in interface let match mut new nil None null package pub raise return self static struct super switch this throw true True False try type typeof undefined use var void while with yield".split(" "),
);

/** Colors a line of code, whatever its language: comments dim, strings green, keywords bold, numbers yellow. */
function highlight(line: string, s: Style): string {
  let out = "";
  const token = /(\/\/.*$|#(?![\w!]).*$|--\s.*$)|("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|`(?:[^`\\]|\\.)*`?)|\b(\d+(?:\.\d+)?)\b|([A-Za-z_]\w*)|([\s\S])/g;
  for (const m of line.matchAll(token)) {
    if (m[1]) out += s.dim(m[1]);
    else if (m[2]) out += s.green(m[2]);
    else if (m[3]) out += s.yellow(m[3]);
    else if (m[4]) out += KEYWORDS.has(m[4]) ? s.bold(s.cyan(m[4])) : m[4];
    else out += m[5];
  }
  return out;
}

/** Breaks a rendered line (escape sequences count for nothing) at spaces so no row is wider than `width`. */
export function wrapWords(text: string, width: number, hang = 0): string {
  if (textWidth(text) <= width) return text;
  const rows: string[] = [];
  let row = "";
  for (const word of text.split(" ")) {
    const candidate = row === "" ? word : `${row} ${word}`;
    if (row !== "" && textWidth(candidate) > width) {
      rows.push(row);
      row = " ".repeat(hang) + word;
    } else row = candidate;
  }
  rows.push(row);
  return rows.join("\n");
}
