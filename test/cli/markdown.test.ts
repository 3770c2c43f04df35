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
  expect(out).toContain(color.cyan("const a = **b**;"));
});

test("markdown: a line is printed once it is complete, however the deltas cut it", () => {
  const md = new MarkdownStream(color, () => 80);
  expect(md.push("# Tit")).toBe("");
  expect(md.pending).toBe(true);
  expect(strip(md.push("le\nnext"))).toBe("Title\n");
  expect(strip(md.flush())).toBe("next");
});
