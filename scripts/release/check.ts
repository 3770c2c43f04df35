/**
 * Checks of the release binaries: each one's headers match its platform (for Linux: the loader and
 * the libraries it needs), and each one this machine can run — natively or under qemu-user-static —
 * starts, prints its version and completes the scripted demo task.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { arch as hostArch, tmpdir } from "node:os";
import { join } from "node:path";
import { findExecutable } from "../../lib/env/search/which.ts";
import type { Arch, ExecutableFormat } from "./executable-format.ts";
import { allowedLibraries, type Libc, loaderOf, type ReleaseTarget } from "./targets.ts";

const FORMAT_OF = { linux: "elf", darwin: "macho", windows: "pe" } as const;
const FORMAT_NAMES = {
  elf: "an ELF (Linux) file",
  macho: "a Mach-O (macOS) file",
  pe: "a PE (Windows) file",
  unknown: "not an executable",
} as const;
/** Where Debian's libc6-arm64-cross puts the arm64 C library (qemu's -L). */
const ARM64_SYSROOT = "/usr/aarch64-linux-gnu";

/** Everything wrong with a binary's headers for its target; empty when it is right. */
export function formatProblems(target: ReleaseTarget, format: ExecutableFormat): string[] {
  const want = FORMAT_OF[target.os];
  if (format.kind !== want) return [`is ${FORMAT_NAMES[format.kind]}, not ${FORMAT_NAMES[want]}`];
  const problems: string[] = [];
  if (format.arch !== target.arch) problems.push(`is built for ${format.arch}, not ${target.arch}`);
  if (format.kind === "elf" && target.libc) {
    const loader = loaderOf(target.arch, target.libc);
    if (format.interpreter !== loader)
      problems.push(`asks for the loader ${format.interpreter ?? "(none)"}, not ${loader}`);
    const allowed = allowedLibraries(target.arch, target.libc);
    const foreign = format.needed.filter((lib) => !allowed.includes(lib));
    if (foreign.length > 0) problems.push(`needs ${foreign.join(", ")}, beyond ${allowed.join(", ")}`);
  }
  return problems;
}

export interface Host {
  os: NodeJS.Platform;
  arch: Arch | "other";
  libc?: Libc;
  pathEnv: string;
}

export function thisHost(): Host {
  const arch = hostArch() === "x64" ? "x64" : hostArch() === "arm64" ? "arm64" : "other";
  const libc =
    arch === "other"
      ? undefined
      : existsSync(loaderOf(arch, "glibc"))
        ? "glibc"
        : existsSync(loaderOf(arch, "musl"))
          ? "musl"
          : undefined;
  return { os: process.platform, arch, libc, pathEnv: process.env.PATH ?? "" };
}

/** The argv prefix that runs the target's binary here ([] natively), or why it cannot run here. */
export function runnerFor(target: ReleaseTarget, host: Host): string[] | string {
  if (target.os !== host.os) return `a ${target.os} binary cannot run on ${host.os}`;
  if (target.libc && target.libc !== host.libc && !existsSync(loaderOf(target.arch, target.libc))) {
    return `needs ${target.libc}'s loader ${loaderOf(target.arch, target.libc)}${target.libc === "musl" ? " and a musl libstdc++" : ""}, which this machine does not have`;
  }
  if (target.arch === host.arch) return [];
  if (target.arch !== "arm64" || host.os !== "linux")
    return `${target.arch} binaries cannot run on this ${host.arch} machine`;
  const qemu = findExecutable(["qemu-aarch64-static", "qemu-aarch64"], host.pathEnv);
  if (!qemu) return "qemu-user-static is not installed (apt-get install qemu-user-static)";
  if (target.libc === "glibc" && !existsSync(join(ARM64_SYSROOT, "lib", "ld-linux-aarch64.so.1"))) {
    return `the arm64 C library is not installed (${ARM64_SYSROOT}/lib/ld-linux-aarch64.so.1 missing; apt-get install libc6-arm64-cross)`;
  }
  return target.libc === "glibc" ? [qemu, "-L", ARM64_SYSROOT] : [qemu];
}

export interface RunCheck {
  version: string;
  /** The scripted demo task finished and its fixed script printed the greeting. */
  task: boolean;
  problems: string[];
}

/** `--version` and the built-in scripted task (write, run, edit, run again), in a temp project. */
export async function runBinary(runner: string[], binary: string, expectedVersion: string): Promise<RunCheck> {
  const problems: string[] = [];
  const work = mkdtempSync(join(tmpdir(), "gong-release-check-"));
  try {
    const env = { PATH: process.env.PATH ?? "", HOME: work, GONG_HOME: join(work, ".gong") };
    const version = await run([...runner, binary, "--version"], work, env);
    if (version.code !== 0 || version.stdout.trim() !== `gong ${expectedVersion}`)
      problems.push(`--version printed '${version.stdout.trim()}${version.stderr.trim()}' (exit ${version.code})`);
    const task = await run(
      [...runner, binary, "--model", "fake/demo", "--no-session", "-p", "fix greet.sh"],
      work,
      env,
    );
    const done = task.code === 0 && task.stdout.includes("Hello, gong!");
    if (!done)
      problems.push(
        `the scripted task failed (exit ${task.code}): ${(task.stderr || task.stdout).trim().slice(0, 300)}`,
      );
    return { version: version.stdout.trim(), task: done, problems };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function run(
  argv: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn(argv, { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

/** One sentence when a binary is not for this machine (wrong OS, CPU or C library); undefined when it is. */
export function mismatchSentence(file: string, format: ExecutableFormat, host: Host): string | undefined {
  if (format.kind === "unknown")
    return `${file} is not an executable gong can check; download it again and verify it against SHA256SUMS.`;
  const os = format.kind === "elf" ? "linux" : format.kind === "macho" ? "darwin" : "windows";
  const libc =
    format.kind === "elf" && format.interpreter?.includes("musl")
      ? "musl"
      : format.kind === "elf"
        ? "glibc"
        : undefined;
  const builtFor = `${os} ${format.arch}${libc ? ` (${libc})` : ""}`;
  const here = `${host.os} ${host.arch}${host.libc ? ` (${host.libc})` : ""}`;
  if (os === host.os && format.arch === host.arch && (libc === undefined || libc === host.libc)) return undefined;
  const want =
    host.arch === "other"
      ? "a build for this machine"
      : `gong-${host.os === "win32" ? "windows" : host.os}-${host.arch}${host.libc === "musl" ? "-musl" : ""}${host.os === "win32" ? ".exe" : ""}`;
  return `${file} is built for ${builtFor}, but this machine is ${here}: download ${want} instead.`;
}
