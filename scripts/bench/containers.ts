/**
 * Minimal containers (issue 25): `gong --version` and a two-turn task (one command, then the
 * answer; the scripted model inside the binary) on the host and inside the minimal root (bubblewrap,
 * busybox sh, the C library only, no network), the bare cost of entering that root, the cost of the
 * start-up probe of programs on PATH, and the size of every release binary.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { programsOnPath } from "../../lib/env/programs.ts";
import { buildBinary } from "../build.ts";
import { minimalRootCommand, minimalRootHost } from "../release/minimal-root.ts";
import { RELEASE_TARGETS } from "../release/targets.ts";
import { series } from "./cli.ts";
import { mb, median, ms, type BenchRow } from "./measure.ts";

const SCRIPT = [{ toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] }, { text: "done" }];

export async function rows(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "gong-bench-containers-"));
  try {
    const out: BenchRow[] = [];
    const work = join(dir, "work");
    const home = join(dir, "home");
    mkdirSync(work);
    mkdirSync(home);
    writeFileSync(join(work, "script.json"), JSON.stringify(SCRIPT));
    const binary = join(dir, "gong");
    await buildBinary(binary);
    const task = ["--model", "fake/script.json", "--no-session", "-p", "say hi"];
    const hostEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, GONG_HOME: join(home, ".gong") };

    out.push({
      area: "containers",
      name: "gong --version, host: wall",
      value: ms((await series(15, [binary, "--version"], work, hostEnv)).wall),
    });
    out.push({
      area: "containers",
      name: "two-turn task (command + answer), host: wall",
      value: ms((await series(8, [binary, ...task], work, hostEnv)).wall),
    });

    const host = minimalRootHost();
    if (typeof host === "string")
      out.push({ area: "containers", name: "minimal root", value: `not measured: ${host}` });
    else {
      const inRoot = (args: string[]) => minimalRootCommand({ host, binary, work, home, args });
      const enter = inRoot([]);
      const bare = [...enter.slice(0, enter.indexOf("--") + 1), "/bin/true"];
      out.push({
        area: "containers",
        name: "entering the minimal root (bwrap + busybox true): wall",
        value: ms((await series(15, bare, work, hostEnv)).wall),
      });
      out.push({
        area: "containers",
        name: "gong --version, minimal root: wall",
        value: ms((await series(15, inRoot(["--version"]), work, hostEnv)).wall),
      });
      out.push({
        area: "containers",
        name: "two-turn task, minimal root (command through sh): wall",
        value: ms((await series(8, inRoot(task), work, hostEnv)).wall),
      });
    }

    // The probe of rg, fd, git, bash, python3, node: a fresh PATH each time, so nothing is cached.
    const path = process.env.PATH ?? "";
    const times: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      programsOnPath(`${path}:/nonexistent-gong-${i}`);
      times.push(performance.now() - t);
    }
    out.push({
      area: "containers",
      name: `start-up probe of 6 programs (${path.split(":").length} PATH dirs, uncached)`,
      value: ms(median(times)),
      target: "≤ 1 ms",
    });

    for (const t of RELEASE_TARGETS) {
      const file = join(dir, t.file);
      await buildBinary(file, { target: t.bun });
      out.push({
        area: "containers",
        name: `release binary size: ${t.file}`,
        value: mb(statSync(file).size / 2 ** 20),
      });
      rmSync(file);
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
