/**
 * Builds the single `gong` executable with `bun build --compile` (everything embedded).
 * Usage: bun scripts/build.ts [--all | --target bun-linux-arm64 ...] [--outdir dist]
 */
import { parseArgs } from "node:util";
import { join } from "node:path";

const TARGETS = ["bun-linux-x64", "bun-linux-arm64", "bun-darwin-x64", "bun-darwin-arm64", "bun-windows-x64"];

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { all: { type: "boolean" }, target: { type: "string", multiple: true }, outdir: { type: "string" } },
});
const outdir = values.outdir ?? join(import.meta.dir, "..", "dist");
const targets = values.all ? TARGETS : (values.target ?? []);
const root = join(import.meta.dir, "..");

async function build(target?: string): Promise<void> {
  const name = target ? `gong-${target.replace(/^bun-/, "")}${target.includes("windows") ? ".exe" : ""}` : "gong";
  const args = ["build", "--compile", "--minify", "--bytecode", "--sourcemap=none", join(root, "cli.ts"), "--outfile", join(outdir, name)];
  if (target) args.push("--target", target);
  const proc = Bun.spawn([process.execPath, ...args], { stdout: "inherit", stderr: "inherit", cwd: root });
  if ((await proc.exited) !== 0) throw new Error(`bun build failed for ${target ?? "this machine"}`);
}

if (targets.length === 0) await build();
else for (const t of targets) await build(t);
