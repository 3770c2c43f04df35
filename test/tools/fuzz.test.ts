/**
 * Hardening: every registered tool is called thousands of times with random JSON arguments
 * (wrong types, nulls, huge strings, odd Unicode, traversal paths, junk keys). No exception may
 * escape and every result must be a valid envelope. Random commands given to bash are kept
 * harmless (a quoted echo) and short (timeout 1 s); everything else about its arguments is random.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { envelopeProblems } from "../../lib/envelope.ts";
import { findMatches, fuzzyNormalize, mapFuzzy, splice } from "../../tools/edit-match.ts";
import { createWorkspace, type Workspace } from "../helpers/workspace.ts";

/** Tools whose bad input must always be a specific error, never INTERNAL_ERROR. */
const FILE_TOOLS = ["read", "write", "edit", "ls", "grep", "find"];

let ws: Workspace;
beforeAll(() => {
  ws = createWorkspace("gong-fuzz-");
  ws.write("a.txt", "alpha\nbeta \u201Cgamma\u201D\n");
  ws.write("dir/b.txt", "b\r\n");
  ws.write("bin.dat", new Uint8Array([0, 1, 2, 3]));
});
afterAll(() => ws.dispose());

/** mulberry32: a seeded generator so a failure can be replayed. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
  return { next, int, pick };
}
type Rng = ReturnType<typeof rng>;

const ODD = [
  "\u0000",
  "\uFEFF",
  "\u202F",
  "\u2018",
  "\u201D",
  "\u2014",
  "\u00A0",
  "e\u0301",
  "🌍",
  "\uD800",
  "\r\n",
  "\r",
  "\t",
  "..",
  "/",
  "~",
  "$(rm -rf /)",
  "%2e%2e",
  "\\",
  "'",
  '"',
];
const PATHS = [
  "a.txt",
  "dir",
  "dir/b.txt",
  "bin.dat",
  "missing.txt",
  "../../etc/passwd",
  "/etc/passwd",
  "~",
  "~/x",
  "~/../../etc",
  "",
  " ",
  ".",
  "..",
  "@a.txt",
  "dir/../../..",
  "new/file.txt",
  "a.txt/child",
];

function randomString(r: Rng): string {
  switch (r.int(6)) {
    case 0:
      return r.pick(PATHS);
    case 1:
      return Array.from({ length: r.int(8) }, () => r.pick(ODD)).join("");
    case 2:
      return "x".repeat(r.pick([255, 256, 4097, 20_000]));
    case 3:
      return String.fromCharCode(...Array.from({ length: r.int(30) }, () => r.int(0x3000)));
    default:
      return r.pick(["alpha", "beta", "gamma", "\u201Cgamma\u201D", "b", "*", "**/*.txt", "[", "(", "a|b"]);
  }
}

function randomValue(r: Rng, depth = 0): unknown {
  switch (r.int(depth > 1 ? 7 : 9)) {
    case 0:
      return null;
    case 1:
      return r.pick([0, -1, 1, 1.5, 2001, 1e12, Number.MAX_SAFE_INTEGER, -0]);
    case 2:
      return r.next() < 0.5;
    case 3:
    case 4:
    case 5:
      return randomString(r);
    case 6:
      return undefined;
    case 7:
      return Array.from({ length: r.int(3) }, () => randomValue(r, depth + 1));
    default:
      return { nested: randomValue(r, depth + 1) };
  }
}

/** Arguments for `tool`: each known field omitted, random, or of the right type; sometimes junk keys or no object at all. */
function randomArgs(r: Rng, tool: string, fields: string[]): unknown {
  if (r.next() < 0.05) return randomValue(r);
  // Half the calls are well-typed (so they reach the tool's own code), half are type chaos.
  const typed = r.next() < 0.5;
  const args: Record<string, unknown> = {};
  for (const field of fields) {
    const roll = r.next();
    if (roll < (typed ? 0.1 : 0.2)) continue;
    args[field] = typed || roll >= 0.6 ? plausible(r, field) : randomValue(r);
  }
  if (tool === "bash") {
    // Only harmless commands: a quoted echo of random text, with a short timeout.
    if (typeof args.command === "string")
      args.command = `echo '${String(args.command).replaceAll("'", "").slice(0, 200)}'`;
    if (typeof args.command === "string") args.timeout = 1;
  }
  if (r.next() < 0.1) args[randomString(r).slice(0, 20) || "junk"] = randomValue(r);
  return args;
}

function plausible(r: Rng, field: string): unknown {
  if (["start_line", "limit", "context", "timeout"].includes(field)) return r.pick([1, 2, 3, 10, 500, 2000]);
  if (["replace_all", "ignore_case", "literal"].includes(field)) return r.next() < 0.5;
  return randomString(r);
}

describe("fuzz", () => {
  test("every tool answers random arguments with a valid envelope", async () => {
    const r = rng(20_240_611);
    const defs = ws.registry.definitions();
    expect(defs.map((d) => d.name)).toEqual(["read", "write", "edit", "bash", "grep", "find", "ls"]);
    let calls = 0;
    for (const def of defs) {
      const fields = Object.keys(def.parameters.properties as object);
      const rounds = def.name === "bash" ? 150 : 450;
      for (let i = 0; i < rounds; i++) {
        const args = randomArgs(r, def.name, fields);
        let result: unknown;
        try {
          result = await ws.registry.execute(def.name, args);
        } catch (e) {
          throw new Error(`${def.name} threw for ${JSON.stringify(args)?.slice(0, 300)}: ${e}`);
        }
        const problems = envelopeProblems(result);
        if (problems.length > 0)
          throw new Error(
            `${def.name} gave an invalid envelope for ${JSON.stringify(args)?.slice(0, 300)}: ${problems.join("; ")}`,
          );
        const code = (result as { error?: { code: string; message: string } }).error;
        if (FILE_TOOLS.includes(def.name) && code?.code === "INTERNAL_ERROR") {
          throw new Error(
            `${def.name} reported an internal error for ${JSON.stringify(args)?.slice(0, 300)}: ${code.message}`,
          );
        }
        calls++;
      }
    }
    expect(calls).toBe(6 * 450 + 150);
    // Atomic writes leave no temp files, whatever was thrown at them.
    expect(readdirSync(ws.root, { recursive: true }).filter((n) => String(n).endsWith(".tmp"))).toEqual([]);
  }, 60_000);

  test("the fuzzy form with positions equals the plain fuzzy form", () => {
    const r = rng(7);
    const alphabet = [
      "a",
      "b",
      " ",
      "  ",
      "\t",
      "\n",
      "\r\n",
      "\r",
      "\u2018",
      "\u2019",
      "\u201C",
      "\u2014",
      "\u2212",
      "\u00A0",
      "\u3000",
      "e\u0301",
      "\u0301",
      "\u00E9",
      "🌍",
      "\uFEFF",
    ];
    for (let i = 0; i < 2000; i++) {
      const text = Array.from({ length: r.int(40) }, () => r.pick(alphabet)).join("");
      const mapped = mapFuzzy(text);
      expect(mapped.text).toBe(fuzzyNormalize(text));
      for (let k = 0; k < mapped.text.length; k++) {
        expect(mapped.start(k)).toBeLessThan(mapped.end(k));
        expect(mapped.end(k)).toBeLessThanOrEqual(text.length);
      }
    }
  });

  test("a found match always maps back to text that normalises to the old text", () => {
    const r = rng(11);
    const alphabet = ["x", "y", " ", "\n", "\r\n", "\u2019", "'", "\u2013", "-", "\u00A0", "   \n"];
    let checked = 0;
    for (let i = 0; i < 3000; i++) {
      const content = Array.from({ length: 5 + r.int(30) }, () => r.pick(alphabet)).join("");
      const from = r.int(content.length);
      const old = content
        .slice(from, from + 1 + r.int(8))
        .replaceAll("\u2019", "'")
        .replaceAll("\u2013", "-");
      const match = findMatches(content, old, true);
      if (!match.ok) continue;
      checked++;
      for (const [s, e] of match.spans) expect(fuzzyNormalize(content.slice(s, e))).toBe(fuzzyNormalize(old));
      const result = splice(content, match.spans, "#");
      expect(result.length).toBeLessThanOrEqual(content.length + match.spans.length);
    }
    expect(checked).toBeGreaterThan(1000);
  });
});
