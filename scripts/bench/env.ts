/**
 * Execution environment figures: command start-up cost, memory under huge output, the SIGTERM →
 * SIGKILL grace as a command that ignores SIGTERM meets it, and what the death watch costs (once
 * per process and per command), beside the per-command wrapper it replaces (setpriv --pdeathsig).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deathWatch } from "../../lib/env/death-watch.ts";
import { LocalEnvironment } from "../../lib/env/local.ts";
import { findExecutable } from "../../lib/env/search/which.ts";
import { type BenchRow, gigabyteProbe, mb, median, medianMs, ms } from "./measure.ts";

/** Timeout of the grace probe: the command has started well before it. */
const GRACE_TIMEOUT_MS = 300;

export async function rows(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "gong-bench-env-"));
  const env = new LocalEnvironment({ root: dir, maxTimeoutMs: 600_000 });
  try {
    await env.initialize();
    const spawnExit = await medianMs(() => env.exec("true"), { warmup: 5, runs: 50 });
    // The floor: bash itself, started synchronously with nothing around it.
    const bareBash = await medianMs(() => spawnSync("bash", ["-c", "true"]), { warmup: 5, runs: 50 });

    // The grace: from the timeout to the answer, for a command that ignores SIGTERM (default 2 s).
    const grace: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const r = await env.exec("trap '' TERM; sleep 60", { timeoutMs: GRACE_TIMEOUT_MS });
      if (!r.timedOut) throw new Error("the grace probe did not time out");
      grace.push(performance.now() - started - GRACE_TIMEOUT_MS);
    }

    // The death watch: started with the first command (already, above); each command writes two lines.
    const writes = 10_000;
    const watch = deathWatch();
    const t = performance.now();
    for (let i = 0; i < writes; i++) {
      watch.coverGroup(4_000_000 + i);
      watch.releaseGroup(4_000_000 + i);
    }
    const perCommandUs = ((performance.now() - t) / writes) * 1000;
    const watcherStart = await medianMs(() => spawnSync("sh", ["-c", ":"]), { warmup: 3, runs: 20 });
    const setpriv = findExecutable(["setpriv"], process.env.PATH ?? "");
    const wrapped = setpriv
      ? await medianMs(() => spawnSync(setpriv, ["--pdeathsig", "KILL", "bash", "-c", "true"]), { warmup: 5, runs: 50 })
      : undefined;

    const { seconds, growthMb } = await gigabyteProbe("exec");

    return [
      { area: "env", name: "exec `true` (spawn → exit → result)", value: ms(spawnExit), target: "≤ 5 ms" },
      { area: "env", name: "bare `bash -c true` (spawnSync, reference)", value: ms(bareBash) },
      {
        area: "env",
        name: "a command ignoring SIGTERM at its timeout: timeout → answer (SIGTERM, the grace, SIGKILL)",
        value: ms(median(grace)),
        target: "≈ 2 s",
      },
      {
        area: "env",
        name: "death watch: per command (two pipe writes) / starting it once (an `sh`, spawnSync for reference)",
        value: `${perCommandUs.toFixed(1)} µs / ${ms(watcherStart)}`,
      },
      {
        area: "env",
        name: "what it replaces: `setpriv --pdeathsig KILL bash -c true` minus bare `bash -c true`, per command",
        value: wrapped === undefined ? "setpriv not installed" : ms(wrapped - bareBash),
      },
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
