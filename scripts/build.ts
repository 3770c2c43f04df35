/**
 * Builds the single `gong` executable with `bun build --compile` (everything embedded).
 *
 *   bun scripts/build.ts                     this machine's binary: dist/gong
 *   bun scripts/build.ts --target bun-linux-arm64 ...
 *   bun scripts/build.ts --all               every release platform (scripts/release/targets.ts),
 *                                            SHA256SUMS, and the checks of scripts/release/check.ts
 *   bun scripts/build.ts --check FILE        is FILE a build for this machine? (exit 2 and one sentence if not)
 *   --release-url URL                        with --all or a target: the address `gong update` of these
 *                                            binaries downloads from (where this release will be served)
 *
 * Bun fetches the runtime of another platform from the npm registry the first time it builds for it.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { sha256Hex } from "../lib/hash.ts";
import { BUILD_DEFINES } from "../lib/update/build-info.ts";
import { formatSums } from "../lib/update/sums.ts";
import { VERSION } from "../lib/version.ts";
import { formatProblems, mismatchSentence, runBinary, runnerFor, thisHost } from "./release/check.ts";
import { readExecutableFormat } from "./release/executable-format.ts";
import { RELEASE_TARGETS, type ReleaseTarget } from "./release/targets.ts";

const root = join(import.meta.dir, "..");

/** How many times later than usual the binary's JIT tiers code up (see buildBinary). */
const JIT_POLICY = 10;

export interface BuildOptions {
  /** Bun's --target (default: this machine). */
  target?: string;
  /** The address `gong update` downloads this release from (its files and SHA256SUMS). */
  releaseUrl?: string;
}

/** The release target a build for `bunTarget` (default: this machine) is. */
export function releaseTargetOf(bunTarget?: string): ReleaseTarget | undefined {
  if (bunTarget) return RELEASE_TARGETS.find((t) => t.bun === bunTarget);
  const host = thisHost();
  const os = host.os === "win32" ? "windows" : host.os;
  return RELEASE_TARGETS.find((t) => t.os === os && t.arch === host.arch && (!t.libc || t.libc === host.libc));
}

/**
 * Compiles cli.ts for `target` (default: this machine) into `outfile`, telling the binary which
 * release file it is (and where it updates from) for `gong update`. Split into ES module chunks,
 * so code behind a dynamic `import()` (the provider SDKs, MCP, the shell, rewind…) is parsed and
 * held in memory only when a run reaches it; one bundle would load all of it at start. The JIT
 * tiers up ten times later than usual: start-up code (schemas built once, settings read once) runs
 * a few thousand times and is done before an optimised copy would pay for itself, while the
 * optimising compiler costs a few MB of memory; code that stays hot is still optimised.
 */
export async function buildBinary(outfile: string, { target, releaseUrl }: BuildOptions = {}): Promise<void> {
  const args = [
    "build",
    "--compile",
    "--minify",
    "--bytecode",
    "--format",
    "esm",
    "--splitting",
    `--compile-jit-policy=${JIT_POLICY}`,
    "--sourcemap=none",
    join(root, "cli.ts"),
    "--outfile",
    outfile,
  ];
  if (target) args.push("--target", target);
  const file = releaseTargetOf(target)?.file;
  if (file) args.push("--define", `${BUILD_DEFINES.file}=${JSON.stringify(file)}`);
  if (releaseUrl) args.push("--define", `${BUILD_DEFINES.url}=${JSON.stringify(releaseUrl)}`);
  const proc = Bun.spawn([process.execPath, ...args], { stdout: "inherit", stderr: "inherit", cwd: root });
  if ((await proc.exited) !== 0) throw new Error(`bun build failed for ${target ?? "this machine"}`);
}

/** Writes `outdir`/SHA256SUMS for `files` (names inside `outdir`). */
export function writeSums(outdir: string, files: readonly string[]): void {
  writeFileSync(
    join(outdir, "SHA256SUMS"),
    formatSums(files.map((f) => [f, sha256Hex(readFileSync(join(outdir, f)))] as [string, string])),
  );
}

/** Builds every release target into `outdir`, writes SHA256SUMS, checks each binary; true when all checks pass. */
export async function release(
  outdir: string,
  log: (line: string) => void = console.log,
  releaseUrl?: string,
): Promise<boolean> {
  for (const t of RELEASE_TARGETS) await buildBinary(join(outdir, t.file), { target: t.bun, releaseUrl });
  writeSums(
    outdir,
    RELEASE_TARGETS.map((t) => t.file),
  );
  let ok = true;
  const host = thisHost();
  for (const t of RELEASE_TARGETS) {
    const file = join(outdir, t.file);
    const format = readExecutableFormat(file);
    const problems = formatProblems(t, format);
    const runner = runnerFor(t, host, format.kind === "elf" ? format.needed : []);
    let ran = `not run here: ${runner}`;
    if (Array.isArray(runner)) {
      const check = await runBinary(runner, file, VERSION);
      problems.push(...check.problems);
      ran = `${runner.length > 0 ? `ran under ${basename(runner[0])}` : "ran"}: ${check.version}, scripted task ${check.task ? "done" : "failed"}`;
    }
    const size = `${(statSync(file).size / 2 ** 20).toFixed(1)} MB`;
    log(
      `${problems.length === 0 ? "ok  " : "FAIL"} ${t.file.padEnd(24)} ${size.padStart(9)}  headers ${problems.length === 0 ? "right" : problems.join("; ")}; ${ran}`,
    );
    if (problems.length > 0) ok = false;
  }
  log(`wrote ${join(outdir, "SHA256SUMS")}`);
  return ok;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      all: { type: "boolean" },
      target: { type: "string", multiple: true },
      outdir: { type: "string" },
      check: { type: "string" },
      "release-url": { type: "string" },
    },
  });
  const outdir = resolve(values.outdir ?? join(root, "dist"));
  if (values.check) {
    const sentence = mismatchSentence(values.check, readExecutableFormat(values.check), thisHost());
    if (sentence) {
      console.error(sentence);
      process.exit(2);
    }
    console.log(`${values.check} is built for this machine.`);
  } else if (values.all) {
    if (!(await release(outdir, console.log, values["release-url"]))) process.exit(1);
  } else if (values.target?.length) {
    for (const t of values.target)
      await buildBinary(join(outdir, `gong-${t.replace(/^bun-/, "")}${t.includes("windows") ? ".exe" : ""}`), {
        target: t,
        releaseUrl: values["release-url"],
      });
  } else await buildBinary(join(outdir, "gong"), { releaseUrl: values["release-url"] });
}
