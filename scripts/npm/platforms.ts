/**
 * gong's npm packages: the launcher package `gong` (the SDK, and a `gong` command that runs the
 * binary) and one package per release target carrying the compiled binary, chosen by npm through
 * its `os`, `cpu` and `libc` fields. Names follow Node's own words for the platform
 * (`process.platform`, `process.arch`), as the peers' packages do, so the launcher maps the machine
 * it runs on to a package name without a table.
 */
import { RELEASE_TARGETS, type Libc, type ReleaseTarget } from "../release/targets.ts";

/** The package users install: `npm i -g gong`, `npx gong`, `import … from "gong"`. */
export const LAUNCHER_PACKAGE = "gong";

export interface PlatformPackage {
  name: string;
  target: ReleaseTarget;
  /** npm's `os` and `cpu` values (Node's process.platform / process.arch). */
  os: "linux" | "darwin" | "win32";
  cpu: "x64" | "arm64";
  /** npm's `libc` value; Linux only. */
  libc?: Libc;
  /** The binary inside the package. */
  binary: string;
}

const NODE_OS = { linux: "linux", darwin: "darwin", windows: "win32" } as const;

export const PLATFORM_PACKAGES: readonly PlatformPackage[] = RELEASE_TARGETS.map((target) => {
  const os = NODE_OS[target.os];
  const musl = target.libc === "musl" ? "-musl" : "";
  return {
    name: `${LAUNCHER_PACKAGE}-${os}-${target.arch}${musl}`,
    target,
    os,
    cpu: target.arch,
    libc: target.libc,
    binary: os === "win32" ? "bin/gong.exe" : "bin/gong",
  };
});

/** The package for a machine, or undefined when gong has no build for it. */
export function platformPackageFor(os: string, cpu: string, libc: Libc | undefined): PlatformPackage | undefined {
  return PLATFORM_PACKAGES.find((p) => p.os === os && p.cpu === cpu && (p.libc === undefined || p.libc === libc));
}

/** "linux x64 (glibc)": a machine in words. */
export function describeMachine(os: string, cpu: string, libc?: string): string {
  return `${os} ${cpu}${libc ? ` ${libc}` : ""}`;
}
