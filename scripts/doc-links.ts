/**
 * The pages a newcomer walks — README.md, ARCHITECTURE.md, CONTRIBUTING.md and docs/*.md — link
 * to each other and to the code by relative paths and `#anchors`. This finds every such link that
 * leads nowhere: a file that does not exist, or an anchor no heading of the target page makes
 * (GitHub's rule: lower case, punctuation dropped, spaces to hyphens, `-1`, `-2` … for repeats).
 * Links inside code blocks and code spans are not links. test/docs-links.test.ts runs it;
 * `bun scripts/doc-links.ts` prints what is broken.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "..");

/** The pages checked, root-relative. */
export function pages(root = ROOT): string[] {
  const docs = readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`);
  return ["README.md", "ARCHITECTURE.md", "CONTRIBUTING.md", ...docs];
}

/** The text of a page with fenced code blocks and code spans blanked out (line numbers kept). */
function withoutCode(markdown: string): string {
  return markdown
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, (block) => block.replace(/[^\n]/g, " "))
    .replace(/(`+)[\s\S]*?[^`]\1(?!`)/g, (span) => " ".repeat(span.length));
}

/** GitHub's anchor for a heading's text. */
export function slug(heading: string): string {
  return heading
    .replace(/`/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors a page's headings make. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const text = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const m of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

export interface Link {
  page: string;
  line: number;
  target: string;
}

/** The relative links of a page (inline `[text](target)` and `[label]: target` definitions). */
export function relativeLinks(page: string, root = ROOT): Link[] {
  const text = withoutCode(readFileSync(join(root, page), "utf8"));
  const links: Link[] = [];
  const add = (target: string, index: number) => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return; // http:, https:, mailto: …
    links.push({ page, line: text.slice(0, index).split("\n").length, target });
  };
  for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) add(m[1]!, m.index!);
  for (const m of text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)) add(m[1]!, m.index!);
  return links;
}

/** Every broken link of the pages, as "page:line: target — why". */
export function brokenLinks(root = ROOT): string[] {
  const problems: string[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchorsOf = (file: string) => {
    if (!anchorCache.has(file)) anchorCache.set(file, anchors(readFileSync(join(root, file), "utf8")));
    return anchorCache.get(file)!;
  };
  for (const page of pages(root)) {
    for (const { line, target } of relativeLinks(page, root)) {
      const [path, anchor] = target.split("#", 2) as [string, string | undefined];
      const file = path === "" ? page : relative(root, resolve(root, dirname(page), decodeURI(path)));
      const where = `${page}:${line}: ${target}`;
      if (file.startsWith("..") || !existsSync(join(root, file))) {
        problems.push(`${where} — ${file} does not exist`);
        continue;
      }
      if (anchor === undefined || anchor === "") continue;
      if (!file.endsWith(".md") || statSync(join(root, file)).isDirectory()) {
        problems.push(`${where} — an anchor into ${file}, which is not a markdown page`);
      } else if (!anchorsOf(file).has(anchor)) {
        problems.push(`${where} — ${file} has no heading with the anchor #${anchor}`);
      }
    }
  }
  return problems;
}

if (import.meta.main) {
  const problems = brokenLinks();
  for (const p of problems) console.log(p);
  console.log(problems.length ? `${problems.length} broken links.` : "Every relative link and anchor resolves.");
  process.exitCode = problems.length ? 1 : 0;
}
