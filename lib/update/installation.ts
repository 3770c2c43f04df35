/**
 * How the running gong was installed, which decides what `gong update` may do: a downloaded release
 * binary is replaced in place; a binary npm installed belongs to npm (replacing it would leave npm's
 * record wrong), so the answer is npm's command; gong run from source has no binary to replace.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join, sep } from "node:path";
import { BUILT_RELEASE_FILE } from "./build-info.ts";

export type Installation =
  | { kind: "release"; binary: string; file: string }
  | { kind: "npm"; packageDir: string; command: string }
  | { kind: "source"; runtime: string };

/** gong's npm packages: the launcher `gong` and `gong-<os>-<cpu>[-musl]` with the binary. */
const NPM_PACKAGE = /^gong(-(linux|darwin|win32)-(x64|arm64)(-musl)?)?$/;

export function currentInstallation(binary = process.execPath, releaseFile = BUILT_RELEASE_FILE): Installation {
  if (!releaseFile) return { kind: "source", runtime: basename(binary) };
  const packageDir = dirname(dirname(binary));
  if (NPM_PACKAGE.test(packageName(packageDir) ?? ""))
    return { kind: "npm", packageDir, command: npmCommand(packageDir) };
  return { kind: "release", binary, file: releaseFile };
}

function packageName(dir: string): string | undefined {
  const file = join(dir, "package.json");
  if (!existsSync(file)) return undefined;
  try {
    return (JSON.parse(readFileSync(file, "utf8")) as { name?: string }).name;
  } catch {
    return undefined;
  }
}

/**
 * The command that updates the npm installation holding `packageDir`: npx's and bunx's caches are
 * refreshed by asking for the latest version, a project's node_modules by installing it there,
 * npm's global folder (no package.json beside its node_modules) with -g.
 */
function npmCommand(packageDir: string): string {
  const parts = packageDir.split(sep);
  if (parts.includes("_npx")) return "npx gong@latest";
  if (parts.some((p) => /^\.?bunx-/.test(p))) return "bunx gong@latest";
  const first = parts.indexOf("node_modules");
  if (first < 0) return "npm install -g gong@latest";
  const owner = parts.slice(0, first).join(sep) || sep;
  if (existsSync(join(owner, "package.json"))) return `npm install gong@latest (in ${owner})`;
  return "npm install -g gong@latest";
}
