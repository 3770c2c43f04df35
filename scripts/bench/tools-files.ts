/**
 * File tools: edit of a 10 MB file (exact and fuzzy match), and read of a window near the end
 * of a 1 GB file (time, and RSS growth: the file is streamed, never held).
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalEnvironment } from "../../lib/env/local.ts";
import { createToolRegistry } from "../../tools/registry.ts";
import { type BenchRow, mb, medianMs, ms, peakRssGrowthMb } from "./measure.ts";

const LINE = "const value = computeSomething(alpha, beta, gamma); // a typical line of code\n";

export async function rows(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "gong-bench-files-"));
  const env = new LocalEnvironment({ root: dir });
  const registry = createToolRegistry({ cwd: dir, env });
  try {
    // The read runs first so its RSS growth is not blurred by the heap the 10 MB edits leave behind.
    const read = await readRows(dir, registry);
    return [...(await editRows(dir, registry)), ...read];
  } finally {
    await env.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

type Registry = ReturnType<typeof createToolRegistry>;

async function editRows(dir: string, registry: Registry): Promise<BenchRow[]> {
  const half = LINE.repeat(Math.ceil((5 * 1024 * 1024) / LINE.length));
  writeFileSync(join(dir, "ten.txt"), `${half}let marker = "FIRST";\n${half}`);
  let flip = false;
  const exact = await medianMs(async () => {
    const [from, to] = flip ? ["SECOND", "FIRST"] : ["FIRST", "SECOND"];
    flip = !flip;
    const r = await registry.execute("edit", {
      path: "ten.txt",
      old_text: `let marker = "${from}";`,
      new_text: `let marker = "${to}";`,
    });
    if (r.status !== "success") throw new Error(r.text);
  });

  // Curly quotes in the file, ASCII quotes in old_text: the fuzzy path with its position map.
  writeFileSync(join(dir, "ten-fuzzy.txt"), `${half}let marker = \u201CFIRST\u201D;\n${half}`);
  let state = "FIRST";
  const fuzzy = await medianMs(
    async () => {
      const next = state === "FIRST" ? "SECOND" : "FIRST";
      const r = await registry.execute("edit", {
        path: "ten-fuzzy.txt",
        old_text: `let marker = "${state}";`,
        new_text: `let marker = \u201C${next}\u201D;`,
      });
      if (r.status !== "success") throw new Error(r.text);
      state = next;
    },
    { warmup: 1, runs: 5 },
  );
  return [
    { area: "tools-files", name: "edit 10 MB file (exact match)", value: ms(exact), target: "≤ 100 ms" },
    { area: "tools-files", name: "edit 10 MB file (fuzzy match)", value: ms(fuzzy) },
  ];
}

async function readRows(dir: string, registry: Registry): Promise<BenchRow[]> {
  const file = join(dir, "gigabyte.log");
  const totalLines = writeGigabyte(file);
  const args = { path: "gigabyte.log", start_line: totalLines - 99, limit: 100 };
  const { result, growthMb } = await peakRssGrowthMb(() => registry.execute("read", args));
  if (result.status !== "success" || result.stats.total_lines !== totalLines)
    throw new Error(`unexpected read result: ${result.text.slice(0, 200)}`);
  const time = await medianMs(() => registry.execute("read", args), { warmup: 0, runs: 3 });
  rmSync(file);
  return [
    { area: "tools-files", name: "read 1 GB file, last 100 lines (time)", value: ms(time) },
    {
      area: "tools-files",
      name: "read 1 GB file, last 100 lines (RSS growth)",
      value: mb(growthMb),
      target: "≤ 50 MB",
    },
  ];
}

/** 1 GiB of lines, written 1 MiB at a time; returns the line count. */
function writeGigabyte(path: string): number {
  const block = Buffer.from(LINE.repeat(Math.floor((1024 * 1024) / LINE.length)));
  const linesPerBlock = Math.floor((1024 * 1024) / LINE.length);
  const fd = openSync(path, "w");
  try {
    for (let i = 0; i < 1024; i++) writeSync(fd, block);
  } finally {
    closeSync(fd);
  }
  return linesPerBlock * 1024;
}
