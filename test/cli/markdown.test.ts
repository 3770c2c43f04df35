/** Markdown rendered line by line as an answer streams (color on). */
import { expect, test } from "bun:test";
import { MarkdownStream } from "../../lib/cli/markdown.ts";
import { makeStyle } from "../../lib/cli/render.ts";

const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "");
const color = makeStyle(true);

function render(answer: string, chunk = 3): string {
  const md = new MarkdownStream(color, () => 80);
  let out = "";
  for (let i = 0; i < answer.length; i += chunk) out += md.push(answer.slice(i, i + chunk));
  return out + md.flush();
}

test("markdown: headings, emphasis, inline code, lists and links lose their marks and gain style", () => {
  const out = render("## Summary\nEdited **calc.py** and *one* test: run `npm test`.\n- first\n1. one\n- [x] done\nSee [docs](https://x.dev).");
  expect(strip(out)).toBe("Summary\nEdited calc.py and one test: run npm test.\n• first\n1. one\n✔ done\nSee docs (https://x.dev).");
  expect(out).toContain(color.bold("calc.py"));
  expect(out).toContain(color.cyan("npm test"));
  expect(out).toContain("\x1b[3mone\x1b[23m");
});

test("markdown: a fenced code block is framed and colored, its text untouched; tables get separators", () => {
  const out = render("```ts\nconst a = **b**;\n```\n| a | b |\n|---|---|\n| 1 | 2 |\n");
  expect(strip(out)).toBe("╭─ ts\n│ const a = **b**;\n╰─\n a │ b \n───┼───\n 1 │ 2 \n");
  expect(out).toContain(color.bold(color.cyan("const")));
  expect(out).toContain(" a = **b**;");
});

test("markdown: a line is printed once it is complete, however the deltas cut it", () => {
  const md = new MarkdownStream(color, () => 80);
  expect(md.push("# Tit")).toBe("");
  expect(md.pending).toBe(true);
  expect(strip(md.push("le\nnext"))).toBe("Title\n");
  expect(strip(md.flush())).toBe("next");
});

test("markdown: code keeps its text and colors keywords, strings, numbers and comments", () => {
  const out = render("```py\ndef f(x):  # the rule\n    return 'a' + 42\n```\n");
  expect(strip(out)).toBe("╭─ py\n│ def f(x):  # the rule\n│     return 'a' + 42\n╰─\n");
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
