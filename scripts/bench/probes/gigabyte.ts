/**
 * One 1 GB-of-output run in a fresh process, so its memory growth is not skewed by what other
 * benches allocated before. `bun gigabyte.ts exec|bash-tool` prints {seconds, growthMb, ok}.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalEnvironment } from "../../../lib/env/local.ts";
import { createToolRegistry } from "../../../tools/registry.ts";
import { peakRssGrowthMb } from "../measure.ts";

const mode = process.argv[2];
const dir = mkdtempSync(join(tmpdir(), "gong-bench-1g-"));
const env = new LocalEnvironment({ root: dir, tempDir: dir, maxTimeoutMs: 600_000, removeSpillsOnCleanup: true });
const registry = createToolRegistry({ cwd: dir, env });
const run = async (bytes: number) => {
  const command = `head -c ${bytes} /dev/zero | tr '\\0' a`;
  if (mode === "exec") {
    const r = await env.exec(command, { timeoutMs: 600_000 });
    return r.totalBytes === bytes;
  }
  const r = await registry.execute("bash", { command, timeout: 600 });
  return r.data.total_bytes === bytes;
};

try {
  await env.initialize();
  // Warm-up so one-time allocations (JIT, allocator arenas) are not counted as growth.
  await run(50_000_000);
  const started = performance.now();
  const { result: ok, growthMb } = await peakRssGrowthMb(() => run(1_000_000_000));
  console.log(JSON.stringify({ seconds: (performance.now() - started) / 1000, growthMb, ok }));
} finally {
  await env.cleanup();
  rmSync(dir, { recursive: true, force: true });
}
