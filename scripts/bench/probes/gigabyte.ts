/**
 * One huge-output run in a fresh process, so its memory growth is not skewed by what other
 * benches allocated before. `bun gigabyte.ts exec|bash-tool|observed|line-50mb` prints
 * {seconds, growthMb, ok, spillBytes?}.
 *
 * - exec: the environment alone (windows only);
 * - bash-tool: the bash tool through a registry (its capture held in memory, no spill);
 * - observed: the bash tool as the agent runs it (the observer's capture, the spill file, the cut);
 * - line-50mb: the same, one 50 MB line.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalEnvironment } from "../../../lib/env/local.ts";
import { createObserver } from "../../../lib/output/policy.ts";
import { CAPABILITY_LIMITS } from "../../../lib/profiles/tool-limits.ts";
import { createToolRegistry } from "../../../tools/registry.ts";
import { peakRssGrowthMb } from "../measure.ts";

const mode = process.argv[2];
const dir = mkdtempSync(join(tmpdir(), "gong-bench-1g-"));
const env = new LocalEnvironment({ root: dir, maxTimeoutMs: 600_000 });
const registry = createToolRegistry({ cwd: dir, env });
const observer = createObserver({ root: dir, env: {}, perTool: { bash: CAPABILITY_LIMITS.bash } });
const bytes = mode === "line-50mb" ? 50_000_000 : 1_000_000_000;

const run = async (size: number) => {
  const command = `head -c ${size} /dev/zero | tr '\\0' a`;
  if (mode === "exec") {
    const r = await env.exec(command, { timeoutMs: 600_000 });
    return r.totalBytes === size;
  }
  if (mode === "bash-tool") {
    const r = await registry.execute("bash", { command, timeout: 600 });
    return r.data.total_bytes === size;
  }
  const capture = observer.capture("bash");
  const r = await registry.execute("bash", { command, timeout: 600 }, { output: capture });
  const seen = await observer.observe("bash", r, { direction: "tail", capture });
  return r.data.total_bytes === size && seen.forModel.text.length < 31_000;
};

const spillBytes = () => {
  const spills = join(dir, "tool-output");
  try {
    return readdirSync(spills).reduce((n, f) => Math.max(n, statSync(join(spills, f)).size), 0);
  } catch {
    return 0;
  }
};

try {
  await env.initialize();
  // Warm-up so one-time allocations (JIT, allocator arenas) are not counted as growth.
  await run(mode === "line-50mb" ? 5_000_000 : 50_000_000);
  rmSync(join(dir, "tool-output"), { recursive: true, force: true });
  const started = performance.now();
  const { result: ok, growthMb } = await peakRssGrowthMb(() => run(bytes));
  console.log(
    JSON.stringify({ seconds: (performance.now() - started) / 1000, growthMb, ok, spillBytes: spillBytes() }),
  );
} finally {
  await env.cleanup();
  rmSync(dir, { recursive: true, force: true });
}
