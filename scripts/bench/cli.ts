/**
 * The product as a user runs it: the compiled binary's size, `gong --version`, and a two-turn task
 * (one bash call, then a text answer) against the fake server — wall time and the child's peak RSS;
 * and what `gong -p` loads before it knows what the run needs (scripts/startup-modules.ts).
 *
 * With GONG_BENCH_BASELINE=<another gong binary> (an earlier build), the two-turn task also runs
 * in alternating pairs, this build then that one, then the other way round, so both meet the same
 * machine load: the rows compare them. The baseline is copied beside the fresh build first — the
 * peak RSS of a binary depends on how its file sits in the page cache (a fresh copy of the same
 * file measures a few MB more than one written an hour before).
 */
import { copyFileSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { startupModules } from "../startup-modules.ts";
import { mb, median, ms, type BenchRow, compiledGong } from "./measure.ts";

/**
 * Runs `cmd` from a fresh Bun process that reports the child's wall time and peak RSS: the peak
 * RSS of children is kept per parent (getrusage), so measuring from this long-lived bench process
 * would report the largest child any earlier bench started.
 */
const PROBE = `
const [cwd, ...cmd] = process.argv.slice(1);
const t = performance.now();
const proc = Bun.spawn(cmd, { cwd, stdout: "ignore", stderr: "ignore" });
const code = await proc.exited;
const usage = proc.resourceUsage();
const cpu = usage ? Number(usage.cpuTime.user + usage.cpuTime.system) / 1000 : 0;
console.log(JSON.stringify({ code, wall: performance.now() - t, rss: usage?.maxRSS ?? 0, cpu }));
`;

interface Run {
  wall: number;
  rssMb: number;
  /** User + system CPU time of the child, milliseconds. */
  cpu: number;
}

export async function runOnce(cmd: string[], cwd: string, env: Record<string, string>): Promise<Run> {
  const probe = Bun.spawn([process.execPath, "-e", PROBE, cwd, ...cmd], { env, stdout: "pipe", stderr: "inherit" });
  const out = JSON.parse(await new Response(probe.stdout).text()) as {
    code: number;
    wall: number;
    rss: number;
    cpu: number;
  };
  await probe.exited;
  if (out.code !== 0) throw new Error(`${cmd.join(" ")} exited with ${out.code}`);
  return { wall: out.wall, rssMb: out.rss / 2 ** 20, cpu: out.cpu };
}

/** `n` alternating pairs of `a` and `b` (after one warm-up each): the medians of each. */
async function pairs(n: number, a: string[], b: string[], cwd: string, env: Record<string, string>) {
  await runOnce(a, cwd, env);
  await runOnce(b, cwd, env);
  const runs: [Run[], Run[]] = [[], []];
  for (let i = 0; i < n; i++) {
    const order = i % 2 === 0 ? [0, 1] : [1, 0];
    for (const k of order) runs[k].push(await runOnce(k === 0 ? a : b, cwd, env));
  }
  return runs.map((r) => ({
    wall: median(r.map((x) => x.wall)),
    cpu: median(r.map((x) => x.cpu)),
    rss: median(r.map((x) => x.rssMb)),
  }));
}

/** The fake model of the two-turn task: a bash call, then (seeing its result) a text answer. */
export function twoTurnModel() {
  return startFakeLlm({
    script: (request) =>
      JSON.stringify(request.body).includes("tool_result")
        ? { text: "done" }
        : { toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] },
  });
}

/** The two-turn task's flags, against the fake model at `anthropicUrl`. */
export function twoTurnArgs(anthropicUrl: string): string[] {
  return [
    ...["--model", "anthropic/claude-haiku-4-5", "--base-url", anthropicUrl, "--api-key", "bench"],
    ...["--profile", "default", "--no-session", "-p", "say hi"],
  ];
}

export async function series(n: number, cmd: string[], cwd: string, env: Record<string, string>) {
  await runOnce(cmd, cwd, env);
  const runs = [];
  for (let i = 0; i < n; i++) runs.push(await runOnce(cmd, cwd, env));
  return { wall: median(runs.map((r) => r.wall)), rss: median(runs.map((r) => r.rssMb)) };
}

export async function rows(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "gong-bench-cli-"));
  try {
    const { binary, env } = compiledGong(dir);

    const version = await series(20, [binary, "--version"], dir, env);
    // Each run: a tool call, then (seeing its result) a text answer.
    const fake = await startFakeLlm({
      script: (request) =>
        JSON.stringify(request.body).includes("tool_result")
          ? { text: "done" }
          : { toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] },
    });
    const taskArgs = [
      "--model",
      "anthropic/claude-haiku-4-5",
      "--base-url",
      fake.baseUrls.anthropic,
      "--api-key",
      "bench",
      "--profile",
      "default",
      "-p",
      "say hi",
    ];
    const task = await series(10, [binary, ...taskArgs], dir, env);
    const baseline = process.env.GONG_BENCH_BASELINE;
    const paired = baseline ? await pairedRows(baseline, binary, taskArgs, dir, env) : [];
    await fake.close();

    const loaded = startupModules();
    const lines = [...loaded.own.values()].reduce((a, b) => a + b, 0);
    return [
      {
        area: "cli",
        name: "modules loaded by gong -p (static imports)",
        value: `${loaded.own.size} (${lines} lines), ${loaded.packages.size} npm packages`,
      },
      { area: "cli", name: "binary size (dist/gong)", value: mb(statSync(binary).size / 2 ** 20), target: "≤ 120 MB" },
      { area: "cli", name: "gong --version: wall", value: ms(version.wall), target: "≤ 20 ms" },
      { area: "cli", name: "gong --version: peak RSS", value: mb(version.rss) },
      { area: "cli", name: "two-turn task (bash + answer), binary: wall", value: ms(task.wall), target: "≤ 100 ms" },
      { area: "cli", name: "two-turn task, binary: peak RSS", value: mb(task.rss), target: "≤ 80 MB" },
      ...paired,
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The two-turn task, this build against the baseline binary in 20 alternating pairs. */
async function pairedRows(
  baseline: string,
  binary: string,
  args: string[],
  dir: string,
  env: Record<string, string>,
): Promise<BenchRow[]> {
  const copy = join(dir, "gong-baseline");
  copyFileSync(baseline, copy);
  const [now, before] = await pairs(20, [binary, ...args], [copy, ...args], dir, env);
  const row = (name: string, value: string): BenchRow => ({ area: "cli", name, value, target: "no regression" });
  return [
    row("binary size: this build / baseline", `${statSync(binary).size} / ${statSync(baseline).size} bytes`),
    row("two-turn task, alternating pairs: wall, this build / baseline", `${ms(now.wall)} / ${ms(before.wall)}`),
    row("two-turn task, alternating pairs: CPU, this build / baseline", `${ms(now.cpu)} / ${ms(before.cpu)}`),
    row("two-turn task, alternating pairs: peak RSS, this build / baseline", `${mb(now.rss)} / ${mb(before.rss)}`),
  ];
}
