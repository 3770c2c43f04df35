/**
 * Checkpoint figures: a checkpoint of a 10,000-file, 200 MB tree when nothing changed (stat only)
 * and after 10 files changed; store growth over 100 turns that each change one line of a 1 MB
 * file; a rewind that puts 100 changed files back. Everything lives under os.tmpdir() and is removed.
 */
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Checkpointer } from "../../lib/checkpoints/checkpointer.ts";
import { SessionStore } from "../../lib/store/index.ts";
import { mb, median, ms, type BenchRow } from "./measure.ts";

const AREA = "checkpoints";

/** 10,000 files of 20 KB (200 MB) in 100 folders, with a .gitignore and an ignored node_modules. */
function bigTree(root: string): void {
  writeFileSync(join(root, ".gitignore"), "node_modules/\n*.log\n");
  const chunk = Buffer.alloc(20 * 1024);
  for (let d = 0; d < 100; d++) {
    mkdirSync(join(root, `dir${d}`));
    for (let f = 0; f < 100; f++) {
      chunk.writeUInt32LE(d * 100 + f, 0); // every file different
      chunk.fill(97 + ((d + f) % 26), 4);
      writeFileSync(join(root, `dir${d}`, `file${f}.txt`), chunk);
    }
  }
  mkdirSync(join(root, "node_modules", "pkg"), { recursive: true });
  writeFileSync(join(root, "node_modules", "pkg", "index.js"), "x");
}

function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? dirBytes(path) : statSync(path).size;
  }
  return total;
}

const take = (c: Checkpointer, store: SessionStore) =>
  c.take("turn", (record) => store.appendCustom("checkpoint", record).id);

export async function rows(): Promise<BenchRow[]> {
  const out: BenchRow[] = [];
  const base = mkdtempSync(join(tmpdir(), "gong-bench-checkpoints-"));
  try {
    const root = join(base, "tree");
    const home = join(base, "home");
    mkdirSync(root);
    bigTree(root);
    const store = SessionStore.create({ cwd: root, persist: false });
    const first = performance.now();
    take(new Checkpointer(root, { home }), store);
    const firstMs = performance.now() - first;
    // A fresh checkpointer per run, as a new gong process would be (its stat cache read from the store)…
    const cold: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      take(new Checkpointer(root, { home }), store);
      cold.push(performance.now() - t);
    }
    // …and the same one turn after turn, as in a running session.
    const warm = new Checkpointer(root, { home });
    take(warm, store);
    const unchanged: number[] = [];
    for (let i = 0; i < 9; i++) {
      const t = performance.now();
      take(warm, store);
      unchanged.push(performance.now() - t);
    }
    const changed: number[] = [];
    for (let i = 0; i < 7; i++) {
      for (let f = 0; f < 10; f++)
        writeFileSync(join(root, `dir${f * 7}`, `file${f}.txt`), `changed ${i} ${f}\n`.repeat(1000));
      const t = performance.now();
      take(warm, store);
      changed.push(performance.now() - t);
    }
    // The floor: listing and lstat-ing the same tree, nothing else.
    const floor: number[] = [];
    for (let i = 0; i < 9; i++) {
      const t = performance.now();
      for (let d = 0; d < 100; d++)
        for (const e of readdirSync(join(root, `dir${d}`))) lstatSync(`${root}/dir${d}/${e}`);
      floor.push(performance.now() - t);
    }
    out.push({
      area: AREA,
      name: "first checkpoint of a 10,000-file 200 MB tree (hash + store everything)",
      value: ms(firstMs),
    });
    out.push({
      area: AREA,
      name: "checkpoint, nothing changed: in a session / a new process (stat cache from the store)",
      value: `${ms(median(unchanged))} / ${ms(median(cold))}`,
      target: "≤ 50 ms",
    });
    out.push({ area: AREA, name: "checkpoint after 10 files changed", value: ms(median(changed)) });
    out.push({
      area: AREA,
      name: "for reference: bare readdir + lstat of the same 10,000 files",
      value: ms(median(floor)),
    });

    // Rewind of 100 changed files (to the checkpoint before they changed).
    const before = take(warm, store);
    for (let f = 0; f < 100; f++) writeFileSync(join(root, `dir${f}`, `file${f}.txt`), `rewritten ${f}\n`);
    take(warm, store);
    warm.markSeen(store.id);
    const t = performance.now();
    const result = warm.rewind(store, before.entryId!, { conversation: false });
    out.push({
      area: AREA,
      name: "rewind of 100 changed files (20 KB each)",
      value: `${ms(performance.now() - t)} (${result.changes.length} files)`,
    });

    // Store growth: 100 turns, each changing one line of a 1 MB file.
    const small = join(base, "small");
    const home2 = join(base, "home2");
    mkdirSync(small);
    const lines = Array.from({ length: 16384 }, (_, i) => `line ${String(i).padStart(5, "0")} ${"x".repeat(51)}`);
    writeFileSync(join(small, "data.txt"), `${lines.join("\n")}\n`);
    const s2 = SessionStore.create({ cwd: small, persist: false });
    const c2 = new Checkpointer(small, { home: home2 });
    take(c2, s2);
    const start = dirBytes(join(home2, "checkpoints"));
    for (let i = 0; i < 100; i++) {
      lines[(i * 97) % lines.length] = `line changed in turn ${i}`;
      writeFileSync(join(small, "data.txt"), `${lines.join("\n")}\n`);
      take(c2, s2);
    }
    const grown = dirBytes(join(home2, "checkpoints")) - start;
    out.push({
      area: AREA,
      name: "store growth over 100 turns, each changing one line of a 1 MB file (blobs deflated)",
      value: `${mb(grown / 2 ** 20)} (${mb(grown / 100 / 2 ** 20)} per turn)`,
    });
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
  return out;
}
