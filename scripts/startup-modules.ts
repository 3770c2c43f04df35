/**
 * What `gong -p` loads before it knows what the run needs: the closure of static imports from the
 * binary's entry (cli.ts, then the two modules it always imports: own-secrets and the CLI). Dynamic
 * `import()` is not followed — it loads on demand. Type-only imports are skipped, as Bun's transpiler
 * drops them.
 *
 *   bun scripts/startup-modules.ts            counts: our modules and lines, npm packages
 *   bun scripts/startup-modules.ts --list     every module of ours, largest first, and each package
 */
import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

const ROOT = join(import.meta.dir, "..");
const ENTRIES = ["cli.ts", "lib/env/own-secrets.ts", "lib/cli/main.ts"];

export interface StartupModules {
  /** Our modules (root-relative paths) with their line counts. */
  own: Map<string, number>;
  /** npm packages reached, each with how many of its files load. */
  packages: Map<string, number>;
  /** Runtime built-ins imported (`node:fs` → "fs"), ours and the packages'. */
  builtins: Set<string>;
}

const transpilers = { ts: new Bun.Transpiler({ loader: "ts" }), js: new Bun.Transpiler({ loader: "js" }) };

/** The static import closure of the `gong -p` path. */
export function startupModules(root = ROOT): StartupModules {
  const own = new Map<string, number>();
  const packages = new Map<string, number>();
  const builtins = new Set<string>();
  const seen = new Set<string>();
  const queue = ENTRIES.map((e) => join(root, e));
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, "utf8");
    const pkg = packageOf(file);
    if (pkg) packages.set(pkg, (packages.get(pkg) ?? 0) + 1);
    else own.set(relative(root, file), source.split("\n").length);
    if (!/\.[cm]?[jt]sx?$/.test(file)) continue;
    const transpiler = /\.tsx?$/.test(file) ? transpilers.ts : transpilers.js;
    // A shebang line is not JavaScript to the scanner.
    for (const imp of transpiler.scanImports(source.replace(/^#!.*/, ""))) {
      if (imp.kind === "dynamic-import") continue;
      const target = resolveFrom(imp.path, dirname(file));
      if (target) queue.push(target);
      else builtins.add(imp.path.replace(/^node:/, ""));
    }
  }
  return { own, packages, builtins };
}

/** The file `spec` names, or undefined for a runtime built-in (`node:fs`, `fs`, `bun:sqlite`). */
function resolveFrom(spec: string, dir: string): string | undefined {
  if (/^(node|bun):/.test(spec)) return undefined;
  const path = Bun.resolveSync(spec, dir);
  // Built-ins named without the `node:` prefix resolve to themselves.
  return path.startsWith("/") ? path : undefined;
}

/** The npm package holding `file` ("@scope/name" or "name"), or undefined for our own modules. */
function packageOf(file: string): string | undefined {
  const at = file.lastIndexOf("/node_modules/");
  if (at < 0) return undefined;
  const parts = file.slice(at + "/node_modules/".length).split("/");
  return parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
}

if (import.meta.main) {
  const { own, packages, builtins } = startupModules();
  const lines = [...own.values()].reduce((a, b) => a + b, 0);
  console.log(
    `gong -p loads ${own.size} modules of ours (${lines} lines) and ${packages.size} npm packages (${[...packages.values()].reduce((a, b) => a + b, 0)} files).`,
  );
  if (process.argv.includes("--list")) {
    for (const [file, n] of [...own].sort((a, b) => b[1] - a[1])) console.log(`${String(n).padStart(6)}  ${file}`);
    for (const [pkg, n] of [...packages].sort((a, b) => b[1] - a[1]))
      console.log(`${String(n).padStart(6)}  files of ${pkg}`);
    console.log(`built-ins: ${[...builtins].sort().join(", ")}`);
  }
}
