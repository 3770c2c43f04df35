/**
 * docs/conformance.md cites, for each spec item, the tests that pin it: a link to the test file
 * followed by the tests' names in code spans. This script reads every test name the suite declares
 * (`test`, `it`, `describe`, with their `.skipIf(…)` / `.if(…)` / `.each(…)` forms; a name built
 * from a template matches any text where it has `${…}`) and checks that each cited test exists in
 * the cited file, so the table cannot rot. test/conformance.test.ts runs it with the suite;
 * `bun scripts/conformance.ts` prints the coverage and what is missing, `--list FILE…` the names
 * a test file declares.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";

export const ROOT = resolve(import.meta.dirname, "..");
export const TABLE = join(ROOT, "docs", "conformance.md");

/** One test (or describe block) as the source declares it. */
export interface DeclaredTest {
  /** The name; a template keeps its `${…}` parts as written. */
  name: string;
  line: number;
  /** Matches a concrete name: the template's `${…}` parts match any text. */
  pattern: RegExp;
}

const CALLERS = new Set(["test", "it", "describe"]);

/** `test`, `test.skipIf(x)`, `describe.each(rows)`, `it.only` … : the callee names a test function. */
function isTestCallee(callee: ts.Expression): boolean {
  if (ts.isIdentifier(callee)) return CALLERS.has(callee.text);
  if (ts.isPropertyAccessExpression(callee)) return isTestCallee(callee.expression);
  if (ts.isCallExpression(callee)) return isTestCallee(callee.expression);
  return false;
}

/** The name argument as text with `${…}` holes, or null when it is not built from strings. */
function nameOf(node: ts.Expression, source: ts.SourceFile): { text: string; parts: string[] } | null {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))
    return { text: node.text, parts: [node.text] };
  if (ts.isTemplateExpression(node)) {
    const parts = [node.head.text];
    let text = node.head.text;
    for (const span of node.templateSpans) {
      text += `\${${span.expression.getText(source)}}${span.literal.text}`;
      parts.push(span.literal.text);
    }
    return { text, parts };
  }
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const left = nameOf(node.left, source);
    const right = nameOf(node.right, source);
    if (!left && !right) return null;
    const l = left ?? { text: `\${${node.left.getText(source)}}`, parts: ["", ""] };
    const r = right ?? { text: `\${${node.right.getText(source)}}`, parts: ["", ""] };
    const parts = [...l.parts.slice(0, -1), l.parts.at(-1)! + r.parts[0]!, ...r.parts.slice(1)];
    return { text: l.text + r.text, parts };
  }
  if (ts.isParenthesizedExpression(node)) return nameOf(node.expression, source);
  return null;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The tests and describe blocks one test file declares. */
export function declaredTests(file: string): DeclaredTest[] {
  const text = readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: DeclaredTest[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && isTestCallee(node.expression) && node.arguments.length > 0) {
      const name = nameOf(node.arguments[0]!, source);
      if (name) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        found.push({
          name: name.text,
          line,
          pattern: new RegExp(`^${name.parts.map(escapeRegExp).join("[\\s\\S]*")}$`),
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A citation in the table: the file (root-relative) and the test's name as cited. */
export interface Citation {
  row: string;
  file: string;
  name: string;
}

/** One row of a table in the document: its first cell (the spec item) and its last (the tests). */
export interface Row {
  item: string;
  tests: string;
  citations: Citation[];
}

const LINK = /\[[^\]]*\]\(([^)\s]+\.test\.ts)\)/g;

/** The code spans of a markdown fragment (`` `name` `` or ``` `` name with ` `` ```), trimmed as markdown does. */
function codeSpans(text: string): string[] {
  const spans: string[] = [];
  const re = /(`+)([\s\S]*?[^`])\1(?!`)/g;
  for (const m of text.matchAll(re)) {
    let span = m[2]!.replace(/\\\|/g, "|");
    if (span.startsWith(" ") && span.endsWith(" ") && span.trim()) span = span.slice(1, -1);
    spans.push(span);
  }
  return spans;
}

/** Splits a table line into its cells (a `\|` inside a cell does not split it). */
function cells(line: string): string[] {
  const inner = line.trim().replace(/^\|/, "").replace(/\|$/, "");
  return inner.split(/(?<!\\)\|/).map((c) => c.trim());
}

/** The rows of every table in the document (separator and header rows left out). */
export function tableRows(markdown: string): Row[] {
  const rows: Row[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.startsWith("|") || /^\|[\s:|-]+\|$/.test(line)) continue;
    if (/^\|[\s:|-]+\|$/.test(lines[i + 1] ?? "")) continue; // a header
    const row = cells(line);
    const item = row[0]!;
    const tests = row.at(-1)!;
    const citations: Citation[] = [];
    const links = [...tests.matchAll(LINK)];
    links.forEach((link, k) => {
      const file = relative(ROOT, resolve(join(ROOT, "docs"), link[1]!));
      const end = links[k + 1]?.index ?? tests.length;
      for (const name of codeSpans(tests.slice(link.index! + link[0].length, end)))
        citations.push({ row: item, file, name });
    });
    rows.push({ item, tests, citations });
  }
  return rows;
}

/** What is wrong with the table's citations: each a sentence naming the row, the file and the test. */
export function checkCitations(rows: Row[], root = ROOT): string[] {
  const problems: string[] = [];
  const cache = new Map<string, DeclaredTest[] | null>();
  const testsOf = (file: string) => {
    if (!cache.has(file)) {
      try {
        cache.set(file, declaredTests(join(root, file)));
      } catch {
        cache.set(file, null);
      }
    }
    return cache.get(file)!;
  };
  for (const row of rows) {
    if (row.citations.length === 0 && !/\bno test\b/.test(row.tests)) {
      problems.push(`row "${row.item}" cites no test and does not say "no test".`);
    }
    for (const { file, name } of row.citations) {
      const tests = testsOf(file);
      if (tests === null) problems.push(`row "${row.item}" cites ${file}, which does not exist.`);
      else if (!tests.some((t) => t.pattern.test(name) || t.name === name)) {
        problems.push(`row "${row.item}": ${file} declares no test named "${name}".`);
      }
    }
  }
  return problems;
}

/** A spec item a code comment points at: `{ doc: "004", section: "5.2" }`, `{ doc: "J.9", section: "4.5" }`. */
export interface SpecReference {
  file: string;
  doc: string;
  section?: string;
}

const REFERENCE = /docs\/conformance\.md[:,]?\s*([^);]*)/g;
const TOKEN = /\b(00[0-4])\b|\b(J\.\d+)(?: (\d+(?:\.\d+)*))?|§\s*([0-9A-Z][\w.]*)|Appendix A/g;

/** The spec items the comments of a source file cite as `(docs/conformance.md: 004 §5.2, J.9 4.5)`. */
export function specReferences(file: string, root = ROOT): SpecReference[] {
  // Comments joined into running text, so a citation wrapped over lines reads whole.
  const text = readFileSync(join(root, file), "utf8").replace(/\n\s*(\*(?!\/)|\/\/)\s?/g, " ");
  const refs: SpecReference[] = [];
  for (const m of text.matchAll(REFERENCE)) {
    let doc: string | undefined;
    let bare = false;
    for (const t of m[1]!.matchAll(TOKEN)) {
      if (t[1]) {
        if (bare && doc) refs.push({ file, doc });
        doc = t[1];
        bare = true;
      } else if (t[2]) {
        if (bare && doc) refs.push({ file, doc });
        refs.push({ file, doc: t[2], section: t[3] });
        doc = undefined;
        bare = false;
      } else if (doc) {
        refs.push({ file, doc, section: t[4] ?? "Appendix A" });
        bare = false;
      }
    }
    if (bare && doc) refs.push({ file, doc });
  }
  return refs;
}

/** Whether a row of the table is the item a reference names (`004 §7` names the rows of §7.1, §7.2 …). */
function names(ref: SpecReference, item: string): boolean {
  if (!item.startsWith(`${ref.doc} `) && !item.startsWith(`${ref.doc}:`)) return false;
  if (ref.section === undefined) return true;
  const mark = ref.section === "Appendix A" || ref.doc.startsWith("J.") ? ref.section : `§${ref.section}`;
  const at = item.indexOf(mark);
  return at >= 0 && !/[\w]/.test(item[at + mark.length] ?? "");
}

/** The references in code (lib/, tools/, scripts/, test/, mod.ts, cli.ts) that name no row of the table. */
export function unknownReferences(rows: Row[], root = ROOT): string[] {
  const files = ["lib", "tools", "scripts", "test"].flatMap((dir) =>
    filesUnder(join(root, dir), ".ts").map((f) => relative(root, f)),
  );
  const problems: string[] = [];
  for (const file of [...files, "mod.ts", "cli.ts"]) {
    for (const ref of specReferences(file, root)) {
      if (!rows.some((r) => names(ref, r.item))) {
        problems.push(
          `${file} cites ${ref.doc}${ref.section ? ` ${ref.section}` : ""}, which no row of docs/conformance.md names.`,
        );
      }
    }
  }
  return problems;
}

/** The files under `dir` whose names end in `suffix`, absolute and sorted (fixtures left out). */
function filesUnder(dir: string, suffix: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "fixtures" && entry.name !== "node_modules") out.push(...filesUnder(path, suffix));
    } else if (entry.name.endsWith(suffix)) out.push(path);
  }
  return out.sort();
}

/** Every test file of the suite, root-relative. */
export const testFiles = () => filesUnder(join(ROOT, "test"), ".test.ts").map((f) => relative(ROOT, f));

if (import.meta.main) {
  const args = process.argv.slice(2);
  if (args[0] === "--list") {
    for (const file of args.length > 1 ? args.slice(1) : testFiles()) {
      for (const t of declaredTests(resolve(file)))
        console.log(`${relative(ROOT, resolve(file))}:${t.line}\t${t.name}`);
    }
  } else {
    const rows = tableRows(readFileSync(TABLE, "utf8"));
    const withTest = rows.filter((r) => r.citations.length > 0).length;
    const problems = [...checkCitations(rows), ...unknownReferences(rows)];
    console.log(`${rows.length} rows: ${withTest} cite a test, ${rows.length - withTest} have none.`);
    for (const p of problems) console.log(`  ${p}`);
    process.exitCode = problems.length ? 1 : 0;
  }
}
