import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { anchors, brokenLinks, pages, ROOT, slug } from "../scripts/doc-links.ts";

test("every relative link and anchor in README.md, ARCHITECTURE.md, CONTRIBUTING.md and docs/*.md resolves", () => {
  expect(brokenLinks()).toEqual([]);
});

test("anchors are GitHub's: punctuation dropped, spaces to hyphens, repeats numbered", () => {
  expect(slug("003 §J: the test scenarios")).toBe("003-j-the-test-scenarios");
  expect(slug("The `gong` command")).toBe("the-gong-command");
  expect(slug("J.1 edit")).toBe("j1-edit");
  expect([...anchors("# A\n\n## B\n\n```sh\n# not a heading\n```\n\n## B\n")]).toEqual(["a", "b", "b-1"]);
});

test("every page of docs/ is linked from the README's documentation table", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const table = readme.slice(readme.indexOf("## Documentation"));
  const linked = new Set([...table.matchAll(/\]\((docs\/[^)#]+\.md)\)/g)].map((m) => m[1]));
  expect(pages().filter((p) => p.startsWith("docs/") && !linked.has(p))).toEqual([]);
});

test("each page starts with a title and a paragraph saying what it covers", () => {
  const openings = pages().map((page) => {
    const lines = readFileSync(join(ROOT, page), "utf8").split("\n");
    const first = lines.findIndex((l, i) => i > 0 && l.trim() !== "");
    return { page, title: /^# \S/.test(lines[0] ?? ""), opening: lines[first] ?? "" };
  });
  // A paragraph, not a heading, a table, a list, a code block or a quote.
  const bad = openings.filter((o) => !o.title || /^(#|\||[-*+] |\d+\. |```|~~~|>)/.test(o.opening));
  expect(bad).toEqual([]);
});
