/**
 * Checks of the release binaries: each one's headers match its platform (for Linux: the loader and
 * the libraries it needs), and each one this machine can run — natively or under qemu-user-static —
 * starts, prints its version and completes the scripted demo task. A Linux binary runs only when
 * its C library's loader and every library it needs are here, where that loader looks (a musl
 * loader from Debian's `musl` package comes without a musl libstdc++); otherwise its headers are
 * all that is checked.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
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
  /** Where the machine's files are looked for (default "/"; tests point it at a tree of their own). */
  root?: string;
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

/**
 * The argv prefix that runs the target's binary here ([] natively), or why it cannot run here.
 * `needed`: the libraries the binary's headers name (each must be where its loader looks).
 */
export function runnerFor(target: ReleaseTarget, host: Host, needed: readonly string[] = []): string[] | string {
  if (target.os !== host.os) return `a ${target.os} binary cannot run on ${host.os}`;
  const here = (path: string) => existsSync(join(host.root ?? "/", path));
  if (target.libc && target.libc === "musl" && !here(loaderOf(target.arch, "musl"))) {
    return `needs musl's loader ${loaderOf(target.arch, "musl")} and a musl libstdc++, which this machine does not have`;
  }
  if (target.libc && target.libc !== host.libc && !here(loaderOf(target.arch, target.libc))) {
    return `needs ${target.libc}'s loader ${loaderOf(target.arch, target.libc)}, which this machine does not have`;
  }
  if (target.libc === "musl") {
    const missing = missingLibraries(needed, muslSearchPath(target.arch, host.root ?? "/"), target.arch, host);
    if (missing.length > 0)
      return `needs ${missing.join(", ")} built for musl (where its loader looks: ${muslSearchPath(target.arch, "/").join(", ")}), which this machine does not have`;
  }
  if (target.arch === host.arch) return [];
  if (target.arch !== "arm64" || host.os !== "linux")
    return `${target.arch} binaries cannot run on this ${host.arch} machine`;
  const qemu = findExecutable(["qemu-aarch64-static", "qemu-aarch64"], host.pathEnv);
  if (!qemu) return "qemu-user-static is not installed (apt-get install qemu-user-static)";
  if (target.libc === "glibc" && !here(join(ARM64_SYSROOT, "lib", "ld-linux-aarch64.so.1"))) {
    return `the arm64 C library is not installed (${ARM64_SYSROOT}/lib/ld-linux-aarch64.so.1 missing; apt-get install libc6-arm64-cross)`;
  }
  if (target.libc === "glibc") {
    const missing = missingLibraries(needed, [join(ARM64_SYSROOT, "lib")], target.arch, host);
    if (missing.length > 0) return `the arm64 C library lacks ${missing.join(", ")} in ${ARM64_SYSROOT}/lib`;
  }
  return target.libc === "glibc" ? [qemu, "-L", ARM64_SYSROOT] : [qemu];
}

const CPU = { x64: "x86_64", arm64: "aarch64" } as const;

/**
 * The folders musl's loader searches (its `/etc/ld-musl-<cpu>.path`: paths separated by newlines
 * or colons; without it, /lib, /usr/local/lib and /usr/lib), read under `root`.
 */
export function muslSearchPath(arch: Arch, root: string): string[] {
  try {
    return readFileSync(join(root, `etc/ld-musl-${CPU[arch]}.path`), "utf8")
      .split(/[\n:]/)
      .map((line) => line.trim())
      .filter(Boolean);
  } catch {
    return ["/lib", "/usr/local/lib", "/usr/lib"];
  }
}

/** The libraries of `needed` that are in none of `dirs` (under the host's root); the C library's own names come with its loader. */
function missingLibraries(needed: readonly string[], dirs: readonly string[], arch: Arch, host: Host): string[] {
  const own = new Set([`libc.musl-${CPU[arch]}.so.1`, "libc.so", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"]);
  return needed.filter((lib) => !own.has(lib) && !dirs.some((dir) => existsSync(join(host.root ?? "/", dir, lib))));
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
