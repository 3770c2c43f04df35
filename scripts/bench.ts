/**
 * Performance figures for gong. Every area adds a module under scripts/bench/ exporting
 * `rows(): Promise<BenchRow[]>`. Usage: `bun scripts/bench.ts [area ...]`.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { BenchRow } from "./bench/measure.ts";

const dir = join(import.meta.dir, "bench");
const wanted = process.argv.slice(2);
const modules = readdirSync(dir)
  .filter((f) => f.endsWith(".ts") && f !== "measure.ts")
  .sort()
  .filter((f) => wanted.length === 0 || wanted.includes(f.replace(/\.ts$/, "")));

const rows: BenchRow[] = [];
for (const file of modules) {
  const mod = (await import(join(dir, file))) as { rows(): Promise<BenchRow[]> };
  const got = await mod.rows();
  rows.push(...got);
  for (const r of got) console.error(`  ${r.area} · ${r.name}: ${r.value}`);
}

const header = ["area", "measure", "median", "target"];
const table = rows.map((r) => [r.area, r.name, r.value, r.target ?? ""]);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
console.log(line(header));
console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
for (const row of table) console.log(line(row));
