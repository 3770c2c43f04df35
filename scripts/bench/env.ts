/** Execution environment figures: command start-up cost and memory under huge output. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalEnvironment } from "../../lib/env/local.ts";
import { type BenchRow, gigabyteProbe, mb, medianMs, ms } from "./measure.ts";

export async function rows(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "gong-bench-env-"));
  const env = new LocalEnvironment({ root: dir, maxTimeoutMs: 600_000 });
  try {
    await env.initialize();
    const spawnExit = await medianMs(() => env.exec("true"), { warmup: 5, runs: 50 });
    // The floor: bash itself, started synchronously with nothing around it.
    const bareBash = await medianMs(() => spawnSync("bash", ["-c", "true"]), { warmup: 5, runs: 50 });

    const { seconds, growthMb } = await gigabyteProbe("exec");

    return [
      { area: "env", name: "exec `true` (spawn → exit → result)", value: ms(spawnExit), target: "≤ 5 ms" },
      { area: "env", name: "bare `bash -c true` (spawnSync, reference)", value: ms(bareBash) },
      {
        area: "env",
        name: "exec 1 GB of output: wall time",
        value: `${seconds.toFixed(2)} s (${(1000 / seconds).toFixed(0)} MB/s)`,
      },
      { area: "env", name: "exec 1 GB of output: RSS growth", value: mb(growthMb), target: "≤ 50 MB" },
    ];
  } finally {
    await env.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}
