/**
 * A seeded generator of apply_patch cases for the differential suite against codex: small random
 * trees, and random edits rendered as V4A patches the way models write them — three lines of
 * context, trailing whitespace stripped, blank context lines without their space, `@@` headers
 * naming a nearby line, `*** End of File`, adds, deletes, moves — plus broken patches.
 *
 * The same seed always gives the same cases. scripts/record-apply-patch.ts runs codex on them and
 * stores the results under test/fixtures/apply-patch/; the test suite only reads those fixtures.
 *
 * Files always end with a newline and carry no BOM: there gong deliberately differs from codex
 * (codex adds a missing final newline and cannot match a BOM-prefixed first line).
 */

export interface PatchCase {
  id: string;
  /** What the case exercises, for reading failures. */
  kind: string;
  /** The tree before: relative path → content. */
  files: Record<string, string>;
  patch: string;
}

/** mulberry32: small, fast, and the same in every runtime. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)],
    chance: (p: number) => next() < p,
  };
}
type Rng = ReturnType<typeof rng>;

const WORDS = [
  "alpha",
  "beta",
  "gamma",
  "delta",
  "omega",
  "count",
  "total",
  "value",
  "item",
  "node",
  "path",
  "user",
  "name",
  "size",
  "index",
  "cache",
  "queue",
  "token",
];
const FANCY = [
  "\u201Cquoted\u201D",
  "it\u2019s",
  "a \u2013 b",
  "x \u2014 y",
  "non\u00A0breaking",
  "\u2018single\u2019",
  "minus \u2212 one",
];

function codeLine(r: Rng): string {
  const w = () => r.pick(WORDS);
  const indent = " ".repeat(r.pick([0, 0, 2, 4, 4, 8]));
  const body = r.pick([
    () => `def ${w()}_${r.int(1, 99)}(${w()}):`,
    () => `${w()} = ${w()} + ${r.int(0, 9)}`,
    () => `return ${w()}`,
    () => `if ${w()} > ${r.int(0, 50)}:`,
    () => `# ${w()} ${w()} ${w()}`,
    () => `print("${w()}")`,
    () => `}`,
    () => `let ${w()} = "${r.pick(FANCY)}";`,
    () => `${w()}.${w()}(${r.int(0, 9)})`,
  ])();
  return indent + body;
}

/** A file's lines: code, some blank lines, some repeated lines, some trailing whitespace. */
function fileLines(r: Rng, n: number): string[] {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    if (r.chance(0.12)) lines.push("");
    else if (lines.length > 3 && r.chance(0.08)) lines.push(r.pick(lines.filter((l) => l !== "")) ?? codeLine(r));
    else lines.push(codeLine(r) + (r.chance(0.08) ? r.pick([" ", "  ", "\t"]) : ""));
  }
  return lines;
}

function render(lines: string[], crlf: boolean): string {
  return lines.map((l) => l + (crlf ? "\r\n" : "\n")).join("");
}

/** How the model writes a line of the file in a patch. */
function asModelWrites(r: Rng, line: string, fuzz: { indent: boolean; fold: boolean }): string {
  let out = line.replace(/[ \t]+$/, ""); // models drop trailing whitespace
  if (fuzz.indent && out.trim() !== "" && r.chance(0.5)) out = out.replace(/^ */, r.pick(["", " ", "  "]));
  if (fuzz.fold) {
    out = out
      .replace(/[\u201C\u201D]/g, '"')
      .replace(/[\u2018\u2019]/g, "'")
      .replace(/[\u2013\u2014\u2212]/g, "-")
      .replace(/\u00A0/g, " ");
  }
  return out;
}

interface Edit {
  start: number;
  remove: number;
  add: string[];
}

/** 1-3 non-overlapping edits, with at least 3 untouched lines between them. */
function randomEdits(r: Rng, n: number): Edit[] {
  const edits: Edit[] = [];
  let from = 0;
  const count = r.int(1, 3);
  for (let k = 0; k < count && from <= n; k++) {
    const start = r.int(from, Math.min(n, from + 8));
    const remove = Math.min(n - start, r.int(0, 3));
    const add = Array.from({ length: remove === 0 ? r.int(1, 3) : r.int(0, 3) }, () => codeLine(r));
    edits.push({ start, remove, add });
    from = start + remove + 7;
  }
  return edits;
}

/** Renders edits of `lines` as the hunks of one Update File section. */
function hunks(r: Rng, lines: string[], edits: Edit[], fuzz: { indent: boolean; fold: boolean }): string[] {
  const out: string[] = [];
  let prevEnd = 0;
  for (const e of edits) {
    // Now and then the header names the first removed line itself, with no context above it (as the
    // spec's own example does; docs/conformance.md: 004 Appendix A): codex rejects that, gong takes
    // it unless told not to.
    const selfNamed = e.remove > 0 && lines[e.start].trim() !== "" && r.chance(0.05);
    const ctxBefore = selfNamed ? 0 : Math.min(3, e.start - prevEnd);
    const ctxStart = e.start - ctxBefore;
    const ctxAfterEnd = Math.min(lines.length, e.start + e.remove + 3);
    // A header names a line before the context, after the previous hunk; prefer definitions.
    const candidates: number[] = [];
    for (let i = prevEnd; i < ctxStart; i++) if (lines[i].trim() !== "") candidates.push(i);
    const defs = candidates.filter((i) => /def |if /.test(lines[i]));
    const header = selfNamed
      ? e.start
      : r.chance(0.6) && candidates.length > 0
        ? defs.length > 0 && r.chance(0.7)
          ? r.pick(defs)
          : r.pick(candidates)
        : -1;
    out.push(header >= 0 ? `@@ ${lines[header].replace(/[ \t]+$/, "")}` : "@@");
    const ctx = (l: string) => {
      const w = asModelWrites(r, l, fuzz);
      return w === "" && r.chance(0.6) ? "" : ` ${w}`;
    };
    for (let i = ctxStart; i < e.start; i++) out.push(ctx(lines[i]));
    for (let i = e.start; i < e.start + e.remove; i++) out.push(`-${asModelWrites(r, lines[i], fuzz)}`);
    for (const a of e.add) out.push(`+${a}`);
    for (let i = e.start + e.remove; i < ctxAfterEnd; i++) out.push(ctx(lines[i]));
    // At the end of the file models sometimes mark it; now and then they mark a hunk that is not.
    if ((ctxAfterEnd === lines.length && r.chance(0.4)) || r.chance(0.02)) out.push("*** End of File");
    prevEnd = ctxAfterEnd;
  }
  return out;
}

function newPath(r: Rng, taken: Set<string>): string {
  for (;;) {
    const dir = r.pick(["", "src/", "lib/", "src/util/", "docs/"]);
    const p = `${dir}${r.pick(WORDS)}_${r.int(1, 999)}.${r.pick(["py", "ts", "txt", "md"])}`;
    if (!taken.has(p)) {
      taken.add(p);
      return p;
    }
  }
}

/** One case: a tree and a patch of 1-3 operations, valid or (sometimes) broken. */
function makeCase(r: Rng, id: string): PatchCase {
  const files: Record<string, string> = {};
  const lineCache: Record<string, string[]> = {};
  const taken = new Set<string>();
  const fileCount = r.int(1, 4);
  for (let i = 0; i < fileCount; i++) {
    const p = newPath(r, taken);
    const lines = fileLines(r, r.int(3, 16));
    files[p] = render(lines, r.chance(0.12));
    lineCache[p] = lines;
  }
  const existing = Object.keys(files);
  const sections: string[] = [];
  const kinds: string[] = [];
  const ops = r.int(1, Math.min(3, existing.length + 1));
  const used = new Set<string>();
  for (let k = 0; k < ops; k++) {
    const free = existing.filter((p) => !used.has(p));
    const op =
      free.length === 0 ? "add" : r.pick(["update", "update", "update", "update", "add", "add-over", "delete", "move"]);
    if (op === "add" || op === "add-over") {
      // Adding a path that exists replaces the file (codex overwrites it).
      const p = op === "add-over" ? r.pick(free) : newPath(r, taken);
      used.add(p);
      const body = fileLines(r, r.int(0, 6)).map((l) => `+${l}`);
      sections.push(`*** Add File: ${p}`, ...body);
      kinds.push(op);
      continue;
    }
    const p = r.pick(free);
    used.add(p);
    if (op === "delete") {
      sections.push(`*** Delete File: ${p}`);
      kinds.push("delete");
      continue;
    }
    const lines = lineCache[p];
    const fuzz = { indent: r.chance(0.12), fold: r.chance(0.2) };
    const body = hunks(r, lines, randomEdits(r, lines.length), fuzz);
    if (op === "move") {
      const dest = r.chance(0.2) && free.length > 1 ? r.pick(free.filter((f) => f !== p)) : newPath(r, taken);
      used.add(dest);
      sections.push(`*** Update File: ${p}`, `*** Move to: ${dest}`, ...body);
      kinds.push("move");
    } else {
      sections.push(`*** Update File: ${p}`, ...body);
      kinds.push(`update${fuzz.indent ? "+indent" : ""}${fuzz.fold ? "+fold" : ""}`);
    }
  }
  let patchLines = ["*** Begin Patch", ...sections, "*** End Patch"];
  let kind = kinds.join(",");
  if (r.chance(0.18)) ({ patchLines, kind } = breakPatch(r, patchLines, kind, existing));
  let patch = patchLines.join("\n") + (r.chance(0.7) ? "\n" : "");
  if (r.chance(0.04)) patch = `<<'EOF'\n${patch}${patch.endsWith("\n") ? "" : "\n"}EOF\n`;
  return { id, kind, files, patch };
}

/** One way models get a patch wrong. */
function breakPatch(r: Rng, lines: string[], kind: string, existing: string[]): { patchLines: string[]; kind: string } {
  const out = [...lines];
  const how = r.int(0, 7);
  const bodyIdx = () => r.int(1, out.length - 2);
  switch (how) {
    case 0: {
      // A context or removed line that is not in the file.
      const i = out.findIndex((l) => l.startsWith("-") || (l.startsWith(" ") && l.trim() !== ""));
      if (i < 0) break;
      out[i] = `${out[i][0]}${out[i].slice(1)} not_in_file_${r.int(1, 99)}`;
      return { patchLines: out, kind: `${kind};bad-context` };
    }
    case 1:
      out.splice(out.length - 1, 0, `*** Update File: missing_${r.int(1, 99)}.txt`, "@@", "-x", "+y");
      return { patchLines: out, kind: `${kind};update-missing-file-last` };
    case 2:
      out.splice(out.length - 1, 0, `*** Delete File: missing_${r.int(1, 99)}.txt`);
      return { patchLines: out, kind: `${kind};delete-missing-file-last` };
    case 3:
      return { patchLines: out.slice(1), kind: `${kind};no-begin` };
    case 4:
      return { patchLines: out.slice(0, -1), kind: `${kind};no-end` };
    case 5:
      out.splice(bodyIdx(), 0, `*** ${r.pick(["Frobnicate", "Rename", "Modify"])} File: ${r.pick(existing)}`);
      return { patchLines: out, kind: `${kind};unknown-header` };
    case 6:
      return { patchLines: ["*** Begin Patch", "*** End Patch"], kind: "empty" };
    default: {
      const i = out.findIndex((l) => l === "@@" || l.startsWith("@@ "));
      if (i < 0) break;
      out.splice(i + 1, 0, "no prefix on this line");
      return { patchLines: out, kind: `${kind};unprefixed-line` };
    }
  }
  return { patchLines: out, kind };
}

export function generateCases(seed: number, count: number): PatchCase[] {
  const r = rng(seed);
  return Array.from({ length: count }, (_, i) => makeCase(r, `${seed}-${String(i).padStart(4, "0")}`));
}
