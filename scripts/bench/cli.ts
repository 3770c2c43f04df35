/**
 * The product as a user runs it: the compiled binary's size, `gong --version`, and a two-turn task
 * (one bash call, then a text answer) against the fake server — wall time and the child's peak RSS;
 * and what `gong -p` loads before it knows what the run needs (scripts/startup-modules.ts).
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { startupModules } from "../startup-modules.ts";
import { mb, median, ms, type BenchRow } from "./measure.ts";

const ROOT = join(import.meta.dir, "../..");

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
console.log(JSON.stringify({ code, wall: performance.now() - t, rss: proc.resourceUsage()?.maxRSS ?? 0 }));
`;

export async function runOnce(
  cmd: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ wall: number; rssMb: number }> {
  const probe = Bun.spawn([process.execPath, "-e", PROBE, cwd, ...cmd], { env, stdout: "pipe", stderr: "inherit" });
  const out = JSON.parse(await new Response(probe.stdout).text()) as { code: number; wall: number; rss: number };
  await probe.exited;
  if (out.code !== 0) throw new Error(`${cmd.join(" ")} exited with ${out.code}`);
  return { wall: out.wall, rssMb: out.rss / 2 ** 20 };
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
    const build = Bun.spawnSync([process.execPath, join(ROOT, "scripts/build.ts"), "--outdir", dir], {
      stdout: "ignore",
      stderr: "pipe",
    });
    if (build.exitCode !== 0) throw new Error(build.stderr.toString());
    const binary = join(dir, "gong");
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, GONG_HOME: join(dir, "home") };

    const version = await series(20, [binary, "--version"], dir, env);
    // Each run: a tool call, then (seeing its result) a text answer.
    const fake = await startFakeLlm({
      script: (request) =>
        JSON.stringify(request.body).includes("tool_result")
          ? { text: "done" }
          : { toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] },
    });
    const task = await series(
      10,
      [
        binary,
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
      ],
      dir,
      env,
    );
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
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
