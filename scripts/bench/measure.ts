/** Shared measuring helpers for scripts/bench.ts: warm-up, several runs, medians. */

export interface BenchRow {
  area: string;
  name: string;
  value: string;
  target?: string;
}

export interface MeasureOptions {
  warmup?: number;
  runs?: number;
}

/** Median wall time in milliseconds of `fn` after warm-up runs. */
export async function medianMs(
  fn: () => unknown | Promise<unknown>,
  { warmup = 2, runs = 7 }: MeasureOptions = {},
): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return median(times);
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Runs `fn` while sampling RSS every few ms; returns its result and the RSS growth in MB. */
export async function peakRssGrowthMb<T>(
  fn: () => Promise<T>,
): Promise<{ result: T; growthMb: number; peakMb: number }> {
  Bun.gc(true);
  const base = process.memoryUsage.rss();
  let peak = base;
  const timer = setInterval(() => {
    const rss = process.memoryUsage.rss();
    if (rss > peak) peak = rss;
  }, 2);
  try {
    const result = await fn();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, growthMb: (peak - base) / 2 ** 20, peakMb: peak / 2 ** 20 };
  } finally {
    clearInterval(timer);
  }
}

export const ms = (v: number) => `${v < 10 ? v.toFixed(2) : v.toFixed(1)} ms`;
export const mb = (v: number) => `${v.toFixed(1)} MB`;

/** Runs scripts/bench/probes/gigabyte.ts in a fresh process (median of `runs`). */
export async function gigabyteProbe(
  mode: "exec" | "bash-tool" | "observed" | "line-50mb",
  runs = 3,
): Promise<{ seconds: number; growthMb: number; spillBytes?: number }> {
  const results: Array<{ seconds: number; growthMb: number; ok: boolean; spillBytes?: number }> = [];
  for (let i = 0; i < runs; i++) {
    const proc = Bun.spawn([process.execPath, `${import.meta.dir}/probes/gigabyte.ts`, mode], {
      stdout: "pipe",
      stderr: "inherit",
    });
    const out = JSON.parse(await new Response(proc.stdout).text());
    if ((await proc.exited) !== 0 || !out.ok) throw new Error(`the 1 GB ${mode} probe failed`);
    results.push(out);
  }
  return {
    seconds: median(results.map((r) => r.seconds)),
    growthMb: median(results.map((r) => r.growthMb)),
    spillBytes: Math.max(...results.map((r) => r.spillBytes ?? 0)),
  };
}

/** Compiles gong into `dir` (scripts/build.ts) and returns the binary with a quiet environment to run it in (HOME and GONG_HOME inside `dir`). */
export function compiledGong(dir: string): { binary: string; env: Record<string, string> } {
  const build = Bun.spawnSync([process.execPath, `${import.meta.dir}/../build.ts`, "--outdir", dir], {
    stdout: "ignore",
    stderr: "pipe",
  });
  if (build.exitCode !== 0) throw new Error(build.stderr.toString());
  return {
    binary: `${dir}/gong`,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, GONG_HOME: `${dir}/home` },
  };
}
