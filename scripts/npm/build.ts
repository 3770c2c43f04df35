/**
 * Builds gong's npm packages from a release directory (what `npm run release` writes: the binaries
 * and SHA256SUMS):
 *
 *   bun scripts/npm/build.ts [--release dist/release] [--out dist/npm]
 *
 * writes one directory per package, ready for `npm publish DIR`: one per platform whose binary is
 * in the release (checked against SHA256SUMS), and the launcher package `gong` — the SDK (bundled
 * JavaScript and its type declarations), the `gong` command (a Node launcher, replaced by the
 * binary itself at install where install scripts run) and every platform package as an optional
 * dependency, which npm installs only on the platform its `os`, `cpu` and `libc` name. Publish the
 * platform packages before the launcher (`publishOrder`), so an install never meets a launcher
 * whose binaries are not there yet.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { sha256Hex } from "../../lib/hash.ts";
import { parseSums } from "../../lib/update/sums.ts";
import { VERSION } from "../../lib/version.ts";
import { describeMachine, LAUNCHER_PACKAGE, PLATFORM_PACKAGES, type PlatformPackage } from "./platforms.ts";
import { bundleSdk, emitDeclarations, packageExports, rootPackage, RUNTIME_DEPENDENCIES } from "./sdk.ts";

const ROOT = resolve(import.meta.dir, "../..");

export interface BuiltPackages {
  /** The package directories, platform packages first, the launcher last. */
  publishOrder: string[];
  /** Release files that were not there, so their packages were not built. */
  missing: string[];
}

export async function buildPackages(release: string, out: string, log: (line: string) => void = console.log) {
  const sumsFile = join(release, "SHA256SUMS");
  if (!existsSync(sumsFile)) throw new Error(`${sumsFile} does not exist: build the release first (npm run release).`);
  const sums = parseSums(readFileSync(sumsFile, "utf8"));
  rmSync(out, { recursive: true, force: true });
  const built: BuiltPackages = { publishOrder: [], missing: [] };
  const platforms: PlatformPackage[] = [];
  for (const pkg of PLATFORM_PACKAGES) {
    const binary = join(release, pkg.target.file);
    if (!existsSync(binary)) {
      built.missing.push(pkg.target.file);
      continue;
    }
    const dir = join(out, pkg.name);
    writePlatformPackage(pkg, binary, sums.get(pkg.target.file), dir);
    platforms.push(pkg);
    built.publishOrder.push(dir);
    log(`${pkg.name.padEnd(24)} ${size(statSync(join(dir, pkg.binary)).size)}`);
  }
  const launcher = join(out, LAUNCHER_PACKAGE);
  const declarations = await writeLauncherPackage(launcher, platforms);
  built.publishOrder.push(launcher);
  log(`${LAUNCHER_PACKAGE.padEnd(24)} the launcher, the SDK and ${declarations} type declaration files`);
  if (built.missing.length > 0)
    log(`not built (not in ${release}): ${built.missing.join(", ")}; npm run release builds every platform`);
  return built;
}

function writePlatformPackage(pkg: PlatformPackage, binary: string, expected: string | undefined, dir: string): void {
  const actual = sha256Hex(readFileSync(binary));
  if (actual !== expected)
    throw new Error(`${binary} does not match its SHA256SUMS entry (${expected ?? "none"}): build the release again.`);
  mkdirSync(join(dir, "bin"), { recursive: true });
  copyFileSync(binary, join(dir, pkg.binary));
  chmodSync(join(dir, pkg.binary), 0o755);
  writeJson(join(dir, "package.json"), {
    name: pkg.name,
    version: VERSION,
    description: `The gong executable for ${describeMachine(pkg.os, pkg.cpu, pkg.libc)}; the gong package installs it.`,
    license: rootPackage().license,
    os: [pkg.os],
    cpu: [pkg.cpu],
    ...(pkg.libc ? { libc: [pkg.libc] } : {}),
    files: ["bin"],
    // Package managers that keep packages zipped (Yarn PnP) must unpack this one: it is executed.
    preferUnplugged: true,
  });
}

/**
 * Writes the `gong` package; returns how many declaration files it ships. Its optional
 * dependencies are the platform packages built beside it, so it never names a package that will
 * not be published (Deno refuses an install that does; npm and Bun skip it with a warning).
 */
async function writeLauncherPackage(dir: string, platforms: readonly PlatformPackage[]): Promise<number> {
  const bin = join(dir, "bin");
  mkdirSync(bin, { recursive: true });
  for (const [source, name] of [
    ["launcher.ts", "gong"],
    ["install.ts", "install.js"],
  ] as const) {
    const result = await Bun.build({ entrypoints: [join(import.meta.dir, source)], target: "node", format: "cjs" });
    if (!result.success) throw new Error(`bundling ${source} failed: ${result.logs.map(String).join("; ")}`);
    writeFileSync(join(bin, name), `#!/usr/bin/env node\n${await result.outputs[0].text()}`);
  }
  chmodSync(join(bin, "gong"), 0o755);
  // The package's own files are ES modules; these two are CommonJS (no module loader to start).
  writeJson(join(bin, "package.json"), { type: "commonjs" });
  await bundleSdk(join(dir, "dist"));
  const declarations = emitDeclarations(join(dir, "dist")).length;
  copyFileSync(join(ROOT, "README.md"), join(dir, "README.md"));
  const root = rootPackage();
  writeJson(join(dir, "package.json"), {
    name: LAUNCHER_PACKAGE,
    version: VERSION,
    description: root.description,
    license: root.license,
    type: "module",
    bin: { gong: "bin/gong" },
    exports: { ...packageExports(), "./package.json": "./package.json" },
    types: packageExports()["."].types,
    files: ["bin", "dist"],
    scripts: { postinstall: "node bin/install.js" },
    // process.getBuiltinModule (the SDK's lazy node:crypto) came with Node 20.16.
    engines: { node: ">=20.16" },
    dependencies: Object.fromEntries(RUNTIME_DEPENDENCIES.map((dep) => [dep, root.dependencies[dep]])),
    optionalDependencies: Object.fromEntries(platforms.map((p) => [p.name, VERSION])),
  });
  return declarations;
}

function writeJson(file: string, value: unknown): void {
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

const size = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

if (import.meta.main) {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { release: { type: "string" }, out: { type: "string" } },
  });
  const release = resolve(values.release ?? join(ROOT, "dist/release"));
  const out = resolve(values.out ?? join(ROOT, "dist/npm"));
  try {
    const built = await buildPackages(release, out);
    console.log(
      `wrote ${out}; publish in this order: ${built.publishOrder.map((d) => `npm publish ${d}`).join(" && ")}`,
    );
  } catch (e) {
    console.error((e as Error).message);
    process.exit(1);
  }
}
