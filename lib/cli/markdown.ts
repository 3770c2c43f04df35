/**
 * Markdown of a streamed answer rendered for the terminal, a line at a time as each line completes:
 * headings bold, emphasis, inline code and fenced code in color, list bullets, quotes, rules and
 * table rows with drawn separators; links show their text and, dimmed, their address. Used only
 * when color is on (a terminal, no NO_COLOR); otherwise the text is printed as it came.
 */
import type { Style } from "./render.ts";

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
      .map((line) => `${this.line(line)}\n`)
      .join("");
  }

  /** The answer ended: the unfinished line, rendered, without a newline; the next answer starts fresh. */
  flush(): string {
    const rest = this.partial;
    this.partial = "";
    const out = rest ? this.line(rest) : "";
    this.inFence = false;
    return out;
  }

  private line(line: string): string {
    const s = this.style;
    const fence = /^\s*(```|~~~)\s*([\w+-]*)\s*$/.exec(line);
    if (fence) {
      this.inFence = !this.inFence;
      return s.dim(this.inFence ? `╭─ ${fence[2] || "code"}` : "╰─");
    }
    if (this.inFence) return `${s.dim("│")} ${s.cyan(line)}`;
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
