/**
 * The SDK inside the `gong` package: the entry points of package.json `exports` bundled to ES
 * modules that Node, Bun and Deno run (split, so what an entry loads lazily stays a separate
 * chunk), and their type declarations — only the files the entry points' types reach, with no
 * import of a package the consumer does not get. Every dependency is bundled except valibot, the
 * one dependency of the package: the tools kit's schemas are valibot schemas, in its types too.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");

/** The packages the published code imports; everything else is inside the bundle. */
export const RUNTIME_DEPENDENCIES = ["valibot"] as const;

interface RootPackage {
  description: string;
  license: string;
  exports: Record<string, string>;
  dependencies: Record<string, string>;
}

export function rootPackage(): RootPackage {
  return JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as RootPackage;
}

/** `./lib/testing/index.ts` → `lib/testing/index` (where its .js and .d.ts go under dist/). */
const stem = (source: string) => source.replace(/^\.\//, "").replace(/\.ts$/, "");

/** The published package's `exports`: each source entry of the repository's, built. */
export function packageExports(): Record<string, { types: string; default: string }> {
  const out: Record<string, { types: string; default: string }> = {};
  for (const [key, source] of Object.entries(rootPackage().exports))
    out[key] = { types: `./dist/${stem(source)}.d.ts`, default: `./dist/${stem(source)}.js` };
  return out;
}

/** Bundles the entry points into `dist` (ES modules for Node ≥ 20, Bun and Deno). */
export async function bundleSdk(dist: string): Promise<void> {
  const result = await Bun.build({
    entrypoints: Object.values(rootPackage().exports).map((source) => join(ROOT, source)),
    root: ROOT,
    outdir: dist,
    target: "node",
    format: "esm",
    splitting: true,
    external: [...RUNTIME_DEPENDENCIES],
    // Names stay, so a stack trace still reads; the layout does not.
    minify: { whitespace: true, syntax: true, identifiers: false },
    naming: { chunk: "chunks/[name]-[hash].[ext]" },
  });
  if (!result.success) throw new Error(`the SDK bundle failed: ${result.logs.map(String).join("; ")}`);
}

/** Writes the entry points' type declarations into `dist`; throws naming any import a consumer could not resolve. */
export function emitDeclarations(dist: string): string[] {
  const temp = mkdtempSync(join(tmpdir(), "gong-dts-"));
  try {
    const entries = Object.values(rootPackage().exports);
    // Declarations only, unchecked (tsc --noEmit checks the code): a few seconds instead of a minute.
    const tsc = Bun.spawnSync(
      [
        process.execPath,
        join(ROOT, "node_modules/typescript/bin/tsc"),
        ...entries,
        "--declaration",
        "--emitDeclarationOnly",
        "--noCheck",
        "--outDir",
        temp,
        "--rootDir",
        ".",
        "--target",
        "ES2022",
        "--module",
        "ESNext",
        "--moduleResolution",
        "bundler",
        "--lib",
        "ES2023,DOM",
        "--types",
        "node",
        "--allowImportingTsExtensions",
        "--resolveJsonModule",
        "--esModuleInterop",
        "--verbatimModuleSyntax",
        "--skipLibCheck",
        "--strict",
      ],
      { cwd: ROOT, stdout: "pipe", stderr: "pipe" },
    );
    if (tsc.exitCode !== 0)
      throw new Error(
        `tsc could not write the type declarations: ${(tsc.stdout.toString() || tsc.stderr.toString()).trim()}`,
      );
    const { files, problems } = declarationClosure(
      temp,
      entries.map((e) => `${stem(e)}.d.ts`),
    );
    if (problems.length > 0) throw new Error(`the published types would not compile: ${problems.join("; ")}`);
    for (const file of files) {
      const target = join(dist, file);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, withJsSpecifiers(readFileSync(join(temp, file), "utf8")));
    }
    return files;
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

// Specifiers of `import … from`, `export … from`, `import("…")`, and `/// <reference types="…" />`.
const SPECIFIER = /\bfrom\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)|<reference\s+types=["']([^"']+)["']/g;

/** Doc comments quote example imports (`import … from "gong"`); they are not imports. */
const withoutComments = (source: string) => source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/(?!\/).*$/gm, "");

/**
 * The declaration files `entries` reach (paths relative to `dir`), and a sentence for each import
 * of a package a consumer would not have: only Node's built-ins and the runtime dependencies.
 */
export function declarationClosure(dir: string, entries: string[]): { files: string[]; problems: string[] } {
  const seen = new Set<string>();
  const problems: string[] = [];
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    let source: string;
    try {
      source = readFileSync(join(dir, file), "utf8");
    } catch {
      problems.push(`${file} is imported but was not written`);
      return;
    }
    for (const m of withoutComments(source).matchAll(SPECIFIER)) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (spec.startsWith(".")) {
        visit(relative(dir, join(dir, dirname(file), spec)).replace(/\.(ts|js)$/, ".d.ts"));
      } else if (!isAvailable(spec)) {
        problems.push(`${file} imports '${spec}', which is bundled, not a dependency`);
      }
    }
  };
  for (const entry of entries) visit(entry);
  return { files: [...seen].sort(), problems };
}

function isAvailable(spec: string): boolean {
  if (spec.startsWith("node:") || spec === "node") return true;
  return RUNTIME_DEPENDENCIES.some((dep) => spec === dep || spec.startsWith(`${dep}/`));
}

/** `./x.ts` → `./x.js` in declarations: what every consumer (tsc's module resolutions, Deno) maps to x.d.ts. */
function withJsSpecifiers(source: string): string {
  return source.replace(/(\bfrom\s*["']|\bimport\(\s*["'])(\.{1,2}\/[^"']+)\.ts(["'])/g, "$1$2.js$3");
}
