/**
 * Which platform package this machine needs and where its binary is: shared by the launcher
 * (bin/gong) and the install step (bin/install.js) of the `gong` package. Runs under Node (both
 * are bundled to CommonJS), so it uses only Node's built-ins.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Libc } from "../release/targets.ts";
import { describeMachine, PLATFORM_PACKAGES, platformPackageFor, type PlatformPackage } from "./platforms.ts";

/**
 * The C library, decided as npm decides it when it picks an optional dependency by `libc` (so the
 * launcher looks for the package npm installed): `/usr/bin/ldd` names it, else Node's report does.
 */
export function detectLibc(): Libc | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    const ldd = readFileSync("/usr/bin/ldd", "utf8");
    if (ldd.includes("musl")) return "musl";
    if (ldd.includes("GNU C Library")) return "glibc";
  } catch {
    // No ldd (minimal images): ask Node.
  }
  const report = process.report?.getReport() as
    | { header?: { glibcVersionRuntime?: string }; sharedObjects?: string[] }
    | undefined;
  if (report?.header?.glibcVersionRuntime) return "glibc";
  if (report?.sharedObjects?.some((file) => file.includes("libc.musl-") || file.includes("ld-musl-"))) return "musl";
  return undefined;
}

export type Located =
  | { ok: true; pkg: PlatformPackage; binary: string }
  | { ok: false; pkg?: PlatformPackage; sentence: string };

/** The binary of this machine's platform package, resolved from `from` (a file of the gong package). */
export function locateBinary(from: string, version: string): Located {
  const libc = detectLibc();
  const machine = describeMachine(process.platform, process.arch, libc);
  const pkg = platformPackageFor(process.platform, process.arch, libc);
  if (!pkg) {
    const builds = PLATFORM_PACKAGES.map((p) => describeMachine(p.os, p.cpu, p.libc)).join(", ");
    return { ok: false, sentence: `gong has no build for this machine (${machine}); there are builds for ${builds}.` };
  }
  let dir: string | undefined;
  try {
    dir = dirname(createRequire(from).resolve(`${pkg.name}/package.json`));
  } catch {
    dir = undefined;
  }
  const binary = dir && join(dir, pkg.binary);
  if (!binary || !existsSync(binary)) {
    return {
      ok: false,
      pkg,
      sentence: `gong needs the package ${pkg.name} on this machine (${machine}), and it is not installed: install gong again without --omit=optional or --no-optional (npm install -g gong), or add ${pkg.name}@${version} beside it.`,
    };
  }
  return { ok: true, pkg, binary };
}
