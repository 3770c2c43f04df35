/**
 * gong as npm installs it: the packages of scripts/npm/build.ts published to a loopback registry
 * (verdaccio), then per platform `npm install -g gong` as that platform (npm's --os/--cpu/--libc):
 * its wall time and the disk it takes; and `gong --version` started through what npm put on PATH —
 * the binary itself where the install step ran, the Node launcher where it did not
 * (--ignore-scripts, bunx, pnpm) — against the binary run directly. This machine's binary is built
 * here; other platforms are measured when `npm run release` left their builds in dist/release.
 * Without the install step only the first run goes through Node (the launcher then gives way to the
 * binary); Windows keeps the launcher, so there every run costs Node's start-up, measured here alone.
 */
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildBinary, releaseTargetOf, writeSums } from "../build.ts";
import { buildPackages } from "../npm/build.ts";
import { describeMachine, PLATFORM_PACKAGES } from "../npm/platforms.ts";
import { startRegistry } from "../npm/registry.ts";
import { runOnce, series } from "./cli.ts";
import { mb, median, ms, type BenchRow } from "./measure.ts";

const ROOT = join(import.meta.dir, "../..");
const INSTALL_RUNS = 3;

/** Bytes on disk under `dir`, a file with several names (the install step's hard link) counted once, as du does. */
function diskBytes(dir: string, seen = new Set<string>()): number {
  let total = 0;
  for (const name of readdirSync(dir)) {
    const stat = lstatSync(join(dir, name));
    if (stat.isDirectory()) total += diskBytes(join(dir, name), seen);
    else if (!seen.has(`${stat.dev}:${stat.ino}`)) {
      seen.add(`${stat.dev}:${stat.ino}`);
      total += stat.blocks * 512;
    }
  }
  return total;
}

export async function rows(): Promise<BenchRow[]> {
  const host = releaseTargetOf();
  if (!host) return [{ area: "install", name: "npm packages", value: "no release target for this machine" }];
  const dir = mkdtempSync(join(tmpdir(), "gong-bench-install-"));
  const registry = await startRegistry(join(dir, "registry"));
  try {
    const release = join(dir, "release");
    mkdirSync(release);
    const files = [host.file];
    await buildBinary(join(release, host.file));
    for (const p of PLATFORM_PACKAGES) {
      const built = join(ROOT, "dist/release", p.target.file);
      if (p.target === host || !existsSync(built)) continue;
      copyFileSync(built, join(release, p.target.file));
      files.push(p.target.file);
    }
    writeSums(release, files);
    const packages = await buildPackages(release, join(dir, "npm"), () => {});
    const home = join(dir, "home");
    mkdirSync(home);
    copyFileSync(registry.npmrc, join(home, ".npmrc"));
    for (const dep of ["valibot"]) registry.publish(join(ROOT, "node_modules", dep), { HOME: home });
    for (const pkg of packages.publishOrder) registry.publish(pkg, { HOME: home });
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      npm_config_cache: join(dir, "npm-cache"),
      GONG_HOME: join(home, ".gong"),
    };

    const out: BenchRow[] = [];
    for (const p of PLATFORM_PACKAGES.filter((p) => files.includes(p.target.file))) {
      const flags = [`--os=${p.os}`, `--cpu=${p.cpu}`, ...(p.libc ? [`--libc=${p.libc}`] : [])];
      const times: number[] = [];
      let bytes = 0;
      for (let i = 0; i < INSTALL_RUNS; i++) {
        const prefix = join(dir, `global-${p.name}-${i}`);
        const t = performance.now();
        const npm = Bun.spawnSync(["npm", "install", "-g", "gong", "--prefix", prefix, ...flags], {
          env,
          stdout: "ignore",
          stderr: "pipe",
        });
        times.push(performance.now() - t);
        if (npm.exitCode !== 0) throw new Error(`npm install for ${p.name} failed: ${npm.stderr.toString()}`);
        bytes = diskBytes(prefix);
        rmSync(prefix, { recursive: true, force: true });
      }
      const machine = describeMachine(p.os, p.cpu, p.libc);
      out.push(
        { area: "install", name: `npm i -g gong (${machine}): wall`, value: ms(median(times)) },
        { area: "install", name: `npm i -g gong (${machine}): disk`, value: mb(bytes / 2 ** 20) },
      );
    }

    // Start-up through what npm put on PATH, against the binary itself.
    const withScripts = join(dir, "global");
    Bun.spawnSync(["npm", "install", "-g", "gong", "--prefix", withScripts], { env, stdout: "ignore" });
    const direct = await series(20, [join(release, host.file), "--version"], dir, env);
    const linked = await series(20, [join(withScripts, "bin", "gong"), "--version"], dir, env);
    // Without the install step the Node launcher starts the binary once, and gives way to it.
    const firstRuns: number[] = [];
    for (let i = 0; i < INSTALL_RUNS; i++) {
      const prefix = join(dir, `global-no-scripts-${i}`);
      Bun.spawnSync(["npm", "install", "-g", "gong", "--prefix", prefix, "--ignore-scripts"], {
        env,
        stdout: "ignore",
      });
      firstRuns.push((await runOnce([join(prefix, "bin", "gong"), "--version"], dir, env)).wall);
    }
    const node = await series(20, ["node", "-e", "0"], dir, env);
    out.push(
      { area: "install", name: "gong --version: the binary directly", value: ms(direct.wall) },
      {
        area: "install",
        name: "gong --version via npm's gong: added",
        value: ms(linked.wall - direct.wall),
        target: "≤ 20 ms",
      },
      {
        area: "install",
        name: "the same, no install step (--ignore-scripts, bunx): first run, added",
        value: ms(median(firstRuns) - direct.wall),
      },
      { area: "install", name: "Node's start-up (a launcher that stays: Windows)", value: ms(node.wall) },
    );
    return out;
  } finally {
    await registry.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
