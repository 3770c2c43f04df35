/** Markdown rendered line by line as an answer streams (color on). */
import { expect, test } from "bun:test";
import { MarkdownStream } from "../../lib/cli/markdown.ts";
import { makeStyle } from "../../lib/cli/render.ts";
import { EventRenderer } from "../../lib/cli/event-renderer.ts";
import type { LiveLine } from "../../lib/cli/live-line.ts";
import type { SessionEvent } from "../../lib/agent/index.ts";
import { textWidth } from "../../lib/cli/text-width.ts";

const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "");
const color = makeStyle(true);

/** The screen after `answer` streamed in pieces of `chunk` characters (colors dropped, rows right-trimmed). */
function render(answer: string, chunk = 3): string {
  const md = new MarkdownStream(color, () => 80);
  const term = new Terminal(80);
  for (let i = 0; i < answer.length; i += chunk) term.write(md.push(answer.slice(i, i + chunk)));
  term.write(md.flush());
  return term.text();
}

/** The rendered answer with its colors, all lines complete at once. */
function colored(answer: string): string {
  const md = new MarkdownStream(color, () => 80);
  return md.push(`${answer}\n`) + md.flush();
}

test("markdown: headings, emphasis, inline code, lists and links lose their marks and gain style", () => {
  const answer =
    "## Summary\nEdited **calc.py** and *one* test: run `npm test`.\n- first\n1. one\n- [x] done\nSee [docs](https://x.dev).";
  expect(render(answer)).toBe(
    "Summary\nEdited calc.py and one test: run npm test.\n• first\n1. one\n✔ done\nSee docs (https://x.dev).",
  );
  const out = colored(answer);
  expect(out).toContain(color.bold("calc.py"));
  expect(out).toContain(color.cyan("npm test"));
  expect(out).toContain("\x1b[3mone\x1b[23m");
});

/**
 * A small terminal: wraps at `columns`, understands CR, LF, cursor up (CSI n A), erase below
 * (CSI J) and erase to the end of the row (CSI K); colors are dropped. `text()` is the screen.
 */
class Terminal {
  private rows: string[][] = [[]];
  private row = 0;
  private col = 0;
  /** The last column was written: the next character wraps first. */
  private wrapPending = false;

  constructor(private readonly columns: number) {}

  write(data: string): void {
    for (const m of data.matchAll(/\x1b\[(\d*)([A-Za-z])|([\s\S])/gu)) {
      if (m[2]) {
        const n = Number(m[1] || 1);
        this.wrapPending = false;
        if (m[2] === "A") this.row = Math.max(0, this.row - n);
        else if (m[2] === "J") {
          this.rows[this.row].length = Math.min(this.rows[this.row].length, this.col);
          this.rows.length = this.row + 1;
        } else if (m[2] === "K") this.rows[this.row].length = Math.min(this.rows[this.row].length, this.col);
        continue;
      }
      const ch = m[3];
      if (ch === "\r") {
        this.col = 0;
        this.wrapPending = false;
      } else if (ch === "\n") {
        this.newRow();
      } else {
        const w = textWidth(ch);
        if (w === 0) continue;
        if (this.wrapPending || this.col + w > this.columns) this.newRow();
        const cells = this.rows[this.row];
        while (cells.length < this.col) cells.push(" ");
        cells[this.col] = ch;
        if (w === 2) cells[this.col + 1] = "";
        this.col += w;
        this.wrapPending = this.col >= this.columns;
      }
    }
  }

  private newRow(): void {
    this.row++;
    this.col = 0;
    this.wrapPending = false;
    while (this.rows.length <= this.row) this.rows.push([]);
  }

  text(): string {
    return this.rows
      .map((r) => r.join("").trimEnd())
      .join("\n")
      .replace(/\n+$/, "");
  }
}

test("markdown: a fenced code block is framed and colored, its text untouched; tables get separators", () => {
  const answer = "```ts\nconst a = **b**;\n```\n| a | b |\n|---|---|\n| 1 | 2 |\n";
  expect(render(answer)).toBe("╭─ ts\n│ const a = **b**;\n╰─\n a │ b\n───┼───\n 1 │ 2");
  const out = colored(answer);
  expect(out).toContain(color.bold(color.cyan("const")));
  expect(out).toContain(" a = **b**;");
});

test("issue 27: an unfinished line shows its whole words rendered as they arrive (the word being written waits) and is rendered in full once complete, however the deltas cut it", () => {
  const md = new MarkdownStream(color, () => 80);
  const term = new Terminal(80);
  term.write(md.push("Tit"));
  expect(term.text()).toBe("");
  term.write(md.push("le words\nEdited **cal"));
  expect(term.text()).toBe("Title words\nEdited");
  term.write(md.push("c.py** and"));
  expect(term.text()).toBe("Title words\nEdited calc.py");
  term.write(md.push(" more.\nnext"));
  expect(term.text()).toBe("Title words\nEdited calc.py and more.");
  term.write(md.flush());
  expect(term.text()).toBe("Title words\nEdited calc.py and more.\nnext");
});

test("issue 27: at 40 columns a paragraph streamed in small pieces is word-wrapped as it streams: no row ever holds a piece of a word", () => {
  const words = Array.from({ length: 80 }, (_, i) => `w${i}${"x".repeat(i % 7)}`);
  const answer = `${words.join(" ")} **bold end** here\n`;
  const md = new MarkdownStream(color, () => 40);
  const term = new Terminal(40);
  const whole = new Set([...words, "bold", "end", "here"]);
  for (let i = 0; i < answer.length; i += 3) {
    term.write(md.push(answer.slice(i, i + 3)));
    // (Emphasis still open shows its mark until it closes.)
    for (const token of term.text().split(/\s+/).filter(Boolean))
      expect(whole.has(token.replace(/^\*\*/, ""))).toBe(true);
    for (const row of term.text().split("\n")) expect(textWidth(row)).toBeLessThan(40);
  }
  term.write(md.flush());
  expect(term.text().split(/\s+/).filter(Boolean)).toEqual([...words, "bold", "end", "here"]);
});

/** A sample answer with every kind of block, long paragraphs among them. */
const SAMPLE = [
  "## The parser",
  `The parser ${"reads **tokens** one at a time and `builds` the tree; ".repeat(6)}then it stops.`,
  "- a list item that is long enough to wrap on a narrow terminal, with *emphasis* in it",
  "```ts",
  "const tree = parse(source);\tindented",
  "```",
  "| name | count |",
  "|:-----|------:|",
  "| alpha | 1 |",
  "| a much longer name | 1000 |",
  "",
  "> a quote, and [a link](https://example.com/a/b) at the end",
  "Done.",
].join("\n");

for (const columns of [30, 80]) {
  test(`markdown: streamed in small pieces at ${columns} columns, the screen ends exactly as the answer rendered at once`, () => {
    const whole = new MarkdownStream(color, () => columns);
    const expected = new Terminal(columns);
    expected.write(whole.push(SAMPLE) + whole.flush());
    for (const chunk of [1, 3, 7]) {
      const md = new MarkdownStream(color, () => columns);
      const term = new Terminal(columns);
      for (let i = 0; i < SAMPLE.length; i += chunk) {
        term.write(md.push(SAMPLE.slice(i, i + chunk)));
        // What has arrived is on screen: the last whole word received is visible now (the word being written waits).
        const line = SAMPLE.slice(0, i + chunk)
          .split("\n")
          .pop()!;
        const word = line
          .slice(0, line.lastIndexOf(" ") + 1)
          .trim()
          .split(" ")
          .pop()!
          .replace(/[*`]/g, "");
        if (/^[\w.,;]+$/.test(word)) expect(term.text().replace(/\n/g, " ")).toContain(word);
      }
      term.write(md.flush());
      expect(term.text()).toBe(expected.text());
    }
    expect(expected.text()).toContain("Done.");
    expect(expected.text()).not.toContain("**tokens**");
  });
}

test("markdown: a table's columns are aligned (numbers to the right when the rule says so)", () => {
  const rows = render(
    "| name | count |\n|:-----|------:|\n| alpha | 1 |\n| a much longer name | 1000 |\nafter\n",
  ).split("\n");
  expect(rows.slice(0, 4)).toEqual([
    " name               │ count",
    "────────────────────┼───────",
    " alpha              │     1",
    " a much longer name │  1000",
  ]);
  expect(rows[4]).toBe("after");
});

test("markdown: output breaking into an unfinished line leaves it as shown; the rest follows, nothing above is erased", () => {
  const md = new MarkdownStream(color, () => 80);
  const term = new Terminal(80);
  term.write(md.push("first line\nhalf of **the"));
  md.commit();
  term.write("\n↳ steering: go on\n");
  term.write(md.push(" second** line\nlast"));
  term.write(md.flush());
  expect(term.text()).toBe("first line\nhalf of\n↳ steering: go on\n**the second** line\nlast");
});

test("markdown: the renderer stops the thinking spinner at the first words and shows the whole ones at once", () => {
  let active = false;
  const spinner = { start: () => (active = true), stop: () => (active = false), showTail() {} } as unknown as LiveLine;
  let written = "";
  const renderer = new EventRenderer(
    (s) => (written += s),
    color,
    spinner,
    () => 80,
    new MarkdownStream(color, () => 80),
  );
  renderer.render({ kind: "turn_start", data: {} } as SessionEvent);
  expect(active).toBe(true);
  renderer.render({ kind: "assistant_text_delta", data: { delta: "Looking at **the" } } as SessionEvent);
  expect(active).toBe(false);
  expect(written).toBe("Looking at");
  renderer.render({ kind: "assistant_text_delta", data: { delta: " parser**" } } as SessionEvent);
  renderer.render({ kind: "assistant_text_end", data: {} } as SessionEvent);
  const term = new Terminal(80);
  term.write(written);
  expect(term.text()).toBe("Looking at the parser");
  expect(written.endsWith("\n")).toBe(true);
});

test("markdown: code keeps its text and colors keywords, strings, numbers and comments", () => {
  const answer = "```py\ndef f(x):  # the rule\n    return 'a' + 42\n```\n";
  expect(render(answer)).toBe("╭─ py\n│ def f(x):  # the rule\n│     return 'a' + 42\n╰─");
  const out = colored(answer);
  expect(out).toContain(color.dim("# the rule"));
  expect(out).toContain(color.green("'a'"));
  expect(out).toContain(color.yellow("42"));
});

test("markdown: prose wraps at word boundaries to the width, list items under their text", () => {
  const md = new MarkdownStream(color, () => 30);
  const out = strip(md.push("- a **long** item that goes on past the edge of a narrow terminal\n"));
  const rows = out.trimEnd().split("\n");
  expect(rows.length).toBeGreaterThan(2);
  for (const row of rows) expect(row.length).toBeLessThanOrEqual(29);
  expect(rows[0].startsWith("• a long item")).toBe(true);
  expect(rows[1].startsWith("  ")).toBe(true);
  expect(rows.join(" ").replace(/\s+/g, " ")).toBe("• a long item that goes on past the edge of a narrow terminal");
});
