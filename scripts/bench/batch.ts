/**
 * `gong batch` against the ways people run many tasks today: a shell loop of `gong -p`,
 * `xargs -P K`, then `gong batch` on the local runner and on a private one-node Slurm, K = 1, 4, 8.
 * Each task is 3 scripted turns with `sleep` standing for the work. Per row: wall time, overhead per
 * task ((wall − ideal) × K / n, ideal = ⌈n/K⌉ × work) and scaling efficiency (wall at K=1 / (K × wall)).
 * Default: 8 tasks of ~3 s. GONG_BENCH_BATCH=full: 16 and 64 tasks of ~5 s (takes long);
 * GONG_BENCH_BATCH=16 (or 64): that size alone, tasks of ~5 s.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import type { BenchRow } from "./measure.ts";

const ROOT = join(import.meta.dir, "../..");
const CLI = join(ROOT, "cli.ts");
const CHOSEN = process.env.GONG_BENCH_BATCH;
const FULL = CHOSEN === "full" || /^\d+$/.test(CHOSEN ?? "");
const SIZES = CHOSEN === "full" ? [16, 64] : FULL ? [Number(CHOSEN)] : [8];
const TURN_SLEEP_S = FULL ? 5 / 3 : 1;
const WORK_S = TURN_SLEEP_S * 3;
const WORKERS = [1, 4, 8];

function sh(command: string, cwd: string, env: NodeJS.ProcessEnv): number {
  const t = performance.now();
  const r = spawnSync("sh", ["-c", command], { cwd, env, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${command.slice(0, 80)}… exited with ${r.status}: ${r.stderr.slice(-300)}`);
  return (performance.now() - t) / 1000;
}

export async function rows(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "gong-bench-batch-"));
  const env = { ...process.env, GONG_HOME: join(dir, "home"), NO_COLOR: "1" };
  const script = join(dir, "script.json");
  const turn = (text: string) => ({
    text,
    toolCalls: [{ name: "bash", arguments: { command: `sleep ${TURN_SLEEP_S.toFixed(3)}` } }],
  });
  writeFileSync(script, JSON.stringify([turn("one"), turn("two"), { ...turn("three") }, { text: "Done." }]));
  mkdirSync(join(dir, "project"));
  const gong = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)}`;
  const model = `fake/${script}`;
  const out: BenchRow[] = [];
  const slurmDir = join(dir, "slurm");
  mkdirSync(slurmDir);
  const started = spawnSync(join(ROOT, "test/batch/slurm/start.sh"), [slurmDir, "8"], { encoding: "utf8" });
  const slurmConf = started.status === 0 ? started.stdout.trim() : undefined;
  try {
    for (const n of SIZES) {
      const tasks = join(dir, `tasks-${n}.jsonl`);
      writeFileSync(
        tasks,
        `${Array.from({ length: n }, (_, i) =>
          JSON.stringify({ id: `t${i}`, prompt: `task ${i}`, workdir: join(dir, "project") }),
        ).join("\n")}\n`,
      );
      writeFileSync(join(dir, `prompts-${n}`), `${Array.from({ length: n }, (_, i) => `task-${i}`).join("\n")}\n`);
      const row = (method: string, k: number, wall: number, base: number | undefined, target?: string) => {
        const ideal = Math.ceil(n / k) * WORK_S;
        const overhead = ((wall - ideal) * k) / n;
        const eff = base === undefined ? 1 : base / (k * wall);
        out.push({
          area: "batch",
          name: `${n} tasks · ${method} · K=${k}`,
          value: `${wall.toFixed(1)} s wall · ${overhead.toFixed(2)} s/task overhead · eff ${eff.toFixed(2)}`,
          target,
        });
      };
      const one = `${gong} -p --output-format json --no-session --model ${JSON.stringify(model)} --cwd ${JSON.stringify(join(dir, "project"))}`;
      row(
        "shell loop",
        1,
        sh(`while read p; do ${one} "$p" >/dev/null || exit 1; done < prompts-${n}`, dir, env),
        undefined,
      );
      const xargsWall: Record<number, number> = {};
      for (const k of WORKERS) {
        xargsWall[k] = sh(`xargs -P ${k} -I{} ${one} {} < prompts-${n} >/dev/null`, dir, env);
        row("xargs -P K", k, xargsWall[k], xargsWall[1]);
      }
      const local: Record<number, number> = {};
      for (const k of WORKERS) {
        const o = join(dir, `local-${n}-${k}`);
        local[k] = sh(
          `${gong} batch ${JSON.stringify(tasks)} --out ${JSON.stringify(o)} --workers ${k} --model ${JSON.stringify(model)} --isolation none`,
          dir,
          env,
        );
        row(
          "gong batch local",
          k,
          local[k],
          local[1],
          `within 5 % of xargs (${(((local[k] - xargsWall[k]) / xargsWall[k]) * 100).toFixed(1)} %)${k === 8 ? "; eff ≥ 0.85" : ""}`,
        );
      }
      if (!slurmConf) {
        out.push({
          area: "batch",
          name: `${n} tasks · gong batch slurm`,
          value: `not measured: ${started.stderr.trim().split("\n").at(-1)}`,
        });
        continue;
      }
      const slurm: Record<number, number> = {};
      for (const k of WORKERS) {
        const o = join(dir, `slurm-${n}-${k}`);
        slurm[k] = sh(
          `${gong} batch ${JSON.stringify(tasks)} --out ${JSON.stringify(o)} --runner slurm --workers ${k} --model ${JSON.stringify(model)} --isolation none`,
          dir,
          { ...env, SLURM_CONF: slurmConf },
        );
        row("gong batch slurm", k, slurm[k], slurm[1], `overhead ≤ 1.5 s/task${k === 8 ? "; eff ≥ 0.85" : ""}`);
      }
    }
  } finally {
    spawnSync(join(ROOT, "test/batch/slurm/stop.sh"), [slurmDir]);
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
