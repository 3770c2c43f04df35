/**
 * apply_patch: a 200-hunk patch on a 10 MB file, and one patch touching 100 files. Each run
 * flips the edits back and forth so every run does the same work on the same sizes.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalEnvironment } from "../../lib/env/local.ts";
import { createToolRegistry } from "../../tools/registry.ts";
import { type BenchRow, medianMs, ms } from "./measure.ts";

const LINE = "    const value = computeSomething(alpha, beta, gamma); // a typical line of code";

export async function rows(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "gong-bench-patch-"));
  const env = new LocalEnvironment({ root: dir });
  const registry = createToolRegistry({ cwd: dir, env, preset: ["apply_patch"] });
  const apply = async (input: string) => {
    const r = await registry.execute("apply_patch", { input });
    if (r.status !== "success") throw new Error(r.text);
  };
  try {
    const big = await bigFile(dir, apply);
    const many = await manyFiles(dir, apply);
    return [
      { area: "apply-patch", name: "200-hunk patch on a 10 MB file", value: ms(big), target: "≤ 50 ms" },
      { area: "apply-patch", name: "patch touching 100 files", value: ms(many) },
    ];
  } finally {
    await env.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** 10 MB of code with 200 marker functions spread through it; each hunk renames one marker's value. */
async function bigFile(dir: string, apply: (p: string) => Promise<void>): Promise<number> {
  const total = Math.ceil((10 * 1024 * 1024) / (LINE.length + 1));
  const every = Math.floor(total / 200);
  const lines: string[] = [];
  for (let i = 0; i < total; i++) {
    if (i % every === 0 && i / every < 200) lines.push(`def marker_${i / every}():`, "    state = 'A'");
    else lines.push(LINE);
  }
  writeFileSync(join(dir, "big.py"), `${lines.join("\n")}\n`);
  const patchFor = (from: string, to: string) => {
    const out = ["*** Begin Patch", "*** Update File: big.py"];
    for (let k = 0; k < 200; k++)
      out.push(`@@ def marker_${k}():`, `-    state = '${from}'`, `+    state = '${to}'`, ` ${LINE}`);
    out.push("*** End Patch");
    return out.join("\n");
  };
  const forth = patchFor("A", "B");
  const back = patchFor("B", "A");
  let flip = false;
  return medianMs(() => apply((flip = !flip) ? forth : back));
}

async function manyFiles(dir: string, apply: (p: string) => Promise<void>): Promise<number> {
  const body = Array.from({ length: 40 }, (_, i) => `line ${i} of a small module`);
  for (let f = 0; f < 100; f++) writeFileSync(join(dir, `mod_${f}.txt`), `${["version = A", ...body].join("\n")}\n`);
  const patchFor = (from: string, to: string) => {
    const out = ["*** Begin Patch"];
    for (let f = 0; f < 100; f++)
      out.push(
        `*** Update File: mod_${f}.txt`,
        "@@",
        `-version = ${from}`,
        `+version = ${to}`,
        " line 0 of a small module",
      );
    out.push("*** End Patch");
    return out.join("\n");
  };
  const forth = patchFor("A", "B");
  const back = patchFor("B", "A");
  let flip = false;
  return medianMs(() => apply((flip = !flip) ? forth : back));
}
