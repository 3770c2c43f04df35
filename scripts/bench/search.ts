/**
 * Search figures: grep and find on a generated tree of 20,000 files, each with the fast binary
 * (rg / fd) and with the built-in TypeScript fallback; and the bash tool printing 1 GB.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { searchGlob } from "../../lib/env/search/glob.ts";
import { searchGrep } from "../../lib/env/search/grep.ts";
import { findExecutable } from "../../lib/env/search/which.ts";
import { type BenchRow, gigabyteProbe, mb, medianMs, ms } from "./measure.ts";

const FILES = 20_000;
const PER_DIR = 100;
const FAST_PATH = process.env.PATH ?? "/usr/bin:/bin";
/** A PATH with neither rg nor fd on it. */
const NO_TOOLS_PATH = "/nonexistent";

function makeTree(root: string): void {
  const words = ["alpha", "beta", "gamma", "delta", "render", "update", "value", "index", "result", "config"];
  for (let d = 0; d < FILES / PER_DIR; d++) {
    const dir = join(root, `pkg${d % 10}`, `mod${d}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < PER_DIR; f++) {
      const lines: string[] = [];
      for (let l = 0; l < 60; l++)
        lines.push(`export const ${words[(d + f + l) % 10]}${l} = ${words[(f * l) % 10]}(${l}); // line ${l}`);
      if ((d * PER_DIR + f) % 997 === 0) lines.push("// needle: the rare marker");
      writeFileSync(join(dir, `file${f}.${f % 3 === 0 ? "ts" : "js"}`), `${lines.join("\n")}\n`);
    }
  }
  writeFileSync(join(root, ".gitignore"), "pkg9/mod9/\n");
}

export async function rows(): Promise<BenchRow[]> {
  const root = mkdtempSync(join(tmpdir(), "gong-bench-search-"));
  const out: BenchRow[] = [];
  try {
    makeTree(root);
    const grep = (pathEnv: string) => () =>
      searchGrep({ pattern: "needle: \\w+", path: root, limit: 1000 }, { root, pathEnv });
    const glob = (pathEnv: string) => () =>
      searchGlob({ pattern: "**/file1*.ts", path: root, limit: 100_000 }, { root, pathEnv });
    const hasRg = findExecutable(["rg"], FAST_PATH) !== null;
    const hasFd = findExecutable(["fd", "fdfind"], FAST_PATH) !== null;

    const rgMs = hasRg ? await medianMs(grep(FAST_PATH), { warmup: 1, runs: 5 }) : NaN;
    const tsGrepMs = await medianMs(grep(NO_TOOLS_PATH), { warmup: 1, runs: 5 });
    out.push({ area: "search", name: `grep 20k files, ripgrep`, value: hasRg ? ms(rgMs) : "rg missing" });
    out.push({
      area: "search",
      name: `grep 20k files, TypeScript fallback`,
      value: ms(tsGrepMs),
      target: hasRg ? `≤ 3× rg (${(tsGrepMs / rgMs).toFixed(1)}×)` : undefined,
    });

    const fdMs = hasFd ? await medianMs(glob(FAST_PATH), { warmup: 1, runs: 5 }) : NaN;
    const tsGlobMs = await medianMs(glob(NO_TOOLS_PATH), { warmup: 1, runs: 5 });
    out.push({ area: "search", name: `find 20k files, fd`, value: hasFd ? ms(fdMs) : "fd missing" });
    out.push({
      area: "search",
      name: `find 20k files, TypeScript fallback`,
      value: ms(tsGlobMs),
      target: hasFd ? `≤ 3× fd (${(tsGlobMs / fdMs).toFixed(1)}×)` : undefined,
    });
    out.push(...(await bashGigabyte()));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return out;
}

/** The bash tool on 1 GB of output: memory must stay bounded (rolling window + spill file). */
async function bashGigabyte(): Promise<BenchRow[]> {
  const { seconds, growthMb } = await gigabyteProbe("bash-tool");
  return [
    { area: "search", name: "bash tool, 1 GB of output: time", value: ms(seconds * 1000) },
    {
      area: "search",
      name: "bash tool, 1 GB of output: RSS growth",
      value: mb(growthMb),
      target: "≤ 64 MB (the event limit is held)",
    },
  ];
}
