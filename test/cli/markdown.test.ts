/** Markdown rendered as an answer streams: finished lines for good, the unfinished part pending (color on). */
import { expect, test } from "bun:test";
import type { SessionEvent } from "../../lib/agent/index.ts";
import { EventRenderer } from "../../lib/cli/event-renderer.ts";
import type { LiveLine } from "../../lib/cli/live-line.ts";
import { MarkdownStream } from "../../lib/cli/markdown.ts";
import { makeStyle } from "../../lib/cli/render.ts";
import { textWidth } from "../../lib/cli/text-width.ts";
import { VirtualTerminal } from "../helpers/vt.ts";

const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "");
const color = makeStyle(true);

/**
 * An answer streaming: what was committed, and what shows (the committed lines and, under them,
 * the pending part), as a terminal of `columns` shows it (colors dropped, rows right-trimmed).
 */
class Streamed {
  readonly md: MarkdownStream;
  committed = "";

  constructor(
    readonly columns = 80,
    rows?: number,
  ) {
    this.md = new MarkdownStream(color, () => columns, rows === undefined ? undefined : () => rows);
  }

  push(delta: string): this {
    this.committed += this.md.push(delta);
    return this;
  }

  flush(): this {
    this.committed += this.md.flush();
    return this;
  }

  /** The screen now. */
  text(): string {
    const term = new VirtualTerminal(this.columns);
    term.write(this.committed + this.md.pending());
    return term.text();
  }
}

/** The screen after `answer` streamed in pieces of `chunk` characters. */
function render(answer: string, chunk = 3, columns = 80): string {
  const stream = new Streamed(columns);
  for (let i = 0; i < answer.length; i += chunk) stream.push(answer.slice(i, i + chunk));
  return stream.flush().text();
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

test("markdown: a fenced code block is framed and colored, its text untouched; tables get separators", () => {
  const answer = "```ts\nconst a = **b**;\n```\n| a | b |\n|---|---|\n| 1 | 2 |\n";
  expect(render(answer)).toBe("╭─ ts\n│ const a = **b**;\n╰─\n a │ b\n───┼───\n 1 │ 2");
  const out = colored(answer);
  expect(out).toContain(color.bold(color.cyan("const")));
  expect(out).toContain(" a = **b**;");
});

test("markdown: without colors (NO_COLOR) the answer is still laid out — frames, bullets, tables — with no escape sequence", () => {
  const md = new MarkdownStream(makeStyle(false), () => 80);
  const out =
    md.push("## Head\n- *item* with **bold**\n```\ncode\n```\n| a | b |\n|---|---|\n| 1 | 2 |\n") + md.flush();
  expect(out).not.toContain("\x1b");
  expect(out).toBe("Head\n• item with bold\n╭─ code\n│ code\n╰─\n a │ b\n───┼───\n 1 │ 2\n");
});

test("issue 27: an unfinished line shows its whole words rendered as they arrive (the word being written waits) and is rendered in full once complete, however the deltas cut it", () => {
  const stream = new Streamed();
  expect(stream.push("Tit").text()).toBe("");
  expect(stream.push("le words\nEdited **cal").text()).toBe("Title words\nEdited");
  expect(stream.push("c.py** and").text()).toBe("Title words\nEdited calc.py");
  expect(stream.push(" more.\nnext").text()).toBe("Title words\nEdited calc.py and more.");
  // Only finished lines are committed; what is being written stays pending.
  expect(strip(stream.committed)).toBe("Title words\nEdited calc.py and more.\n");
  expect(stream.flush().text()).toBe("Title words\nEdited calc.py and more.\nnext");
});

test("issue 27: at 40 columns a paragraph streamed in small pieces is word-wrapped as it streams: no row ever holds a piece of a word", () => {
  const words = Array.from({ length: 80 }, (_, i) => `w${i}${"x".repeat(i % 7)}`);
  const answer = `${words.join(" ")} **bold end** here\n`;
  const stream = new Streamed(40);
  const whole = new Set([...words, "bold", "end", "here"]);
  for (let i = 0; i < answer.length; i += 3) {
    const text = stream.push(answer.slice(i, i + 3)).text();
    // (Emphasis still open shows its mark until it closes.)
    for (const token of text.split(/\s+/).filter(Boolean)) expect(whole.has(token.replace(/^\*\*/, ""))).toBe(true);
    for (const row of text.split("\n")) expect(textWidth(row)).toBeLessThan(40);
  }
  expect(stream.flush().text().split(/\s+/).filter(Boolean)).toEqual([...words, "bold", "end", "here"]);
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
    const expected = new Streamed(columns).push(SAMPLE).flush().text();
    for (const chunk of [1, 3, 7]) {
      const stream = new Streamed(columns);
      for (let i = 0; i < SAMPLE.length; i += chunk) {
        const shown = stream.push(SAMPLE.slice(i, i + chunk)).text();
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
        if (/^[\w.,;]+$/.test(word) && !line.startsWith("|")) expect(shown.replace(/\n/g, " ")).toContain(word);
        for (const row of shown.split("\n")) expect(textWidth(row)).toBeLessThanOrEqual(columns);
      }
      expect(stream.flush().text()).toBe(expected);
    }
    expect(expected).toContain("Done.");
    expect(expected).not.toContain("**tokens**");
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

test("issue 40: a table shows rendered while it streams, each row as it completes, fitted to the width", () => {
  const stream = new Streamed(60);
  stream.push(
    "| Tool | What it does |\n|---|---|\n| bash | runs a shell command in the project directory and waits for it |\n| ed",
  );
  // Rendered already (no pipes), the cells wrapped within 60 columns, nothing committed yet.
  const shown = stream.text();
  expect(shown).not.toContain("|");
  expect(shown).toContain("│");
  expect(shown).toContain(" bash ");
  for (const row of shown.split("\n")) expect(textWidth(row)).toBeLessThan(60);
  expect(stream.committed).toBe("");
  stream.push("it | replaces text |\n\nafter the table\n");
  const done = stream.text();
  expect(done.split("\n").filter((r) => r.includes("│")).length).toBeGreaterThanOrEqual(4);
  expect(done).toContain(" edit ");
  expect(done.endsWith("after the table")).toBe(true);
});

test("issue 40: text taller than the rows the pending part may take is committed as it shows, the rest following", () => {
  const stream = new Streamed(40, 3);
  const words = Array.from({ length: 60 }, (_, i) => `word${i}`);
  for (const w of words) {
    stream.push(`${w} `);
    // The pending part never grows past its rows: the rows before it were committed.
    expect(stream.md.pending().split("\n").length).toBeLessThanOrEqual(3);
  }
  stream.push("end\n").flush();
  expect(strip(stream.committed).split(/\s+/).filter(Boolean)).toEqual([...words, "end"]);
});

test("issue 40: the live status stays up through the answer — thinking, then writing with the tokens so far; whole words show pending", () => {
  const labels: string[] = [];
  let tokens = 0;
  let active = false;
  const spinner = {
    start: (label: string) => {
      active = true;
      labels.push(label);
    },
    stop: () => {
      active = false;
    },
    setTokens: (n: number) => {
      tokens = n;
    },
    showTail() {},
  } as unknown as LiveLine;
  let written = "";
  const renderer = new EventRenderer(
    (s) => {
      written += s;
    },
    color,
    spinner,
    () => 80,
    new MarkdownStream(color, () => 80),
  );
  renderer.render({ kind: "turn_start", data: {} } as SessionEvent);
  expect(labels.at(-1)).toBe("thinking…");
  renderer.render({ kind: "assistant_text_delta", data: { delta: "Looking at **the" } } as SessionEvent);
  expect(active).toBe(true);
  expect(labels.at(-1)).toBe("writing…");
  expect(tokens).toBe(Math.ceil("Looking at **the".length / 4));
  expect(written).toBe("");
  expect(strip(renderer.pendingView().rows.join("\n"))).toBe("Looking at");
  renderer.render({ kind: "assistant_text_delta", data: { delta: " parser**" } } as SessionEvent);
  renderer.render({ kind: "assistant_text_end", data: {} } as SessionEvent);
  expect(strip(written)).toBe("Looking at the parser\n");
  expect(renderer.pendingView().rows).toEqual([]);
  expect(active).toBe(true);
});

test("markdown: code keeps its text and colors keywords, strings, numbers and comments", () => {
  const answer = "```py\ndef f(x):  # the rule\n    return 'a' + 42\n```\n";
  expect(render(answer)).toBe("╭─ py\n│ def f(x):  # the rule\n│     return 'a' + 42\n╰─");
  const out = colored(answer);
  expect(out).toContain(color.dim("# the rule"));
  expect(out).toContain(color.green("'a'"));
  expect(out).toContain(color.yellow("42"));
});

test("issue 40: a code line wider than the width wraps inside its frame at a space or after punctuation, never inside a word", () => {
  const line = "    const offset = tokenizer.current().position.offset + lookahead(tokens, at, { tok.offset });";
  const code = `\`\`\`ts\n${line}\n\`\`\`\n`;
  for (const columns of [40, 60]) {
    const body = render(code, 5, columns).split("\n").slice(1, -1);
    expect(body.length).toBeGreaterThan(1);
    for (const row of body) {
      expect(row.startsWith("│ ")).toBe(true);
      expect(textWidth(row)).toBeLessThan(columns);
    }
    // Every token of the line is whole on some row, and nothing is lost.
    const tokens = body.flatMap((r) => r.slice(2).trim().split(/\s+/));
    for (const word of ["tok.offset", "lookahead(tokens,", "const", "offset", "at,"]) expect(tokens).toContain(word);
    expect(
      body
        .map((r) => r.slice(2))
        .join("")
        .replace(/\s+/g, ""),
    ).toBe(line.replace(/\s+/g, ""));
  }
});

test("issue 40: a wrapped quote keeps its bar on every row; a numbered item's rows continue under its text", () => {
  const quote = render(`> ${"a quoted sentence that goes on ".repeat(5)}\n`).split("\n");
  expect(quote.length).toBeGreaterThan(1);
  for (const row of quote) expect(row.startsWith("│ ")).toBe(true);
  const items = render(`1. ${"an item that wraps ".repeat(5)}\n12. ${"another item ".repeat(5)}\n`, 3, 40).split("\n");
  expect(items[0].startsWith("1. an item")).toBe(true);
  expect(items[1]).toMatch(/^ {3}\S/);
  const twelve = items.findIndex((r) => r.startsWith("12."));
  expect(items[twelve + 1]).toMatch(/^ {4}\S/);
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
