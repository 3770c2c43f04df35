/**
 * The layers of gong and the imports allowed between them, written once (DESIGN: "Dependencies
 * point one way": cli, batch → core → agent → (profiles, setup, mcp, llm, store, checkpoints, web) →
 * gate → tools → env, output, envelope; batch never imports cli; tools never import the agent; the LLM layer
 * never imports tools). test/layering.test.ts fails on any import the table does not allow; `bun
 * scripts/layers.ts` prints the forbidden imports (exit 1 when there are any), `--graph` the
 * arrows between layers with their import counts.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "..");

/** Each layer and the source paths it holds (a folder ends in "/"); the longest match wins. */
export const LAYERS: Record<string, readonly string[]> = {
  cli: ["cli.ts", "lib/cli/"],
  batch: ["lib/batch/"],
  /** A stored session in other formats (ATIF, markdown, HTML, JSONL): reads the store, never the agent. */
  export: ["lib/export/"],
  /** OpenTelemetry: listens to a session's events (loaded only when asked for). */
  telemetry: ["lib/telemetry/"],
  /** A session from settings, flags-as-values, trust and the project's files: what every host calls. */
  core: ["lib/core/"],
  /** The public entry points: the SDK and the tools kit re-export from every layer below them. */
  sdk: ["mod.ts", "tools/mod.ts"],
  agent: ["lib/agent/"],
  /**
   * The one permission decision, below the agent and the setup that feed it rules and hooks: it
   * reads what each tool declares a call touches, so it sits above the tools.
   */
  gate: ["lib/gate/"],
  profiles: ["lib/profiles/"],
  tools: ["tools/"],
  llm: ["lib/llm/"],
  store: ["lib/store/"],
  checkpoints: ["lib/checkpoints/"],
  mcp: ["lib/mcp/"],
  setup: ["lib/setup/"],
  web: ["lib/web/"],
  testing: ["lib/testing/"],
  env: ["lib/env/", "lib/paths.ts"],
  output: ["lib/output/"],
  /** `gong update`: a release binary replaced by the release's newer build (the CLI's update.ts drives it). */
  update: ["lib/update/"],
  /** Leaves every layer may use: the envelope, the version, atomic temp files, hashes. */
  envelope: ["lib/envelope.ts", "lib/version.ts", "lib/temp-files.ts", "lib/hash.ts"],
};

const BASE = ["env", "output", "envelope"];
const MIDDLE = ["profiles", "gate", "tools", "llm", "store", "checkpoints", "mcp", "setup", "web", "testing"];

/** The layers each layer may import (besides itself). */
export const ALLOWED: Record<string, readonly string[]> = {
  cli: ["core", "agent", "batch", "export", "update", ...MIDDLE, ...BASE],
  batch: ["core", "agent", "llm", "store", ...BASE],
  core: ["agent", "telemetry", ...MIDDLE, ...BASE],
  export: ["store", "llm", ...BASE],
  telemetry: ["agent", "llm", ...BASE],
  sdk: ["agent", "batch", ...MIDDLE, ...BASE],
  agent: [...MIDDLE, ...BASE],
  /** A profile words what users bring (skills, custom agents) in its own tools, so it reads setup's types and loaders. */
  profiles: ["tools", "llm", "setup", ...BASE],
  tools: ["llm", "web", ...BASE],
  llm: ["env", "envelope"],
  store: ["llm", ...BASE],
  checkpoints: ["store", "llm", ...BASE],
  mcp: ["tools", "llm", ...BASE],
  setup: ["gate", "tools", "llm", "store", ...BASE],
  gate: ["tools", ...BASE],
  web: ["llm", ...BASE],
  /** The fake LLM server (llm's wire types) and stored sessions written in the store's format for tests and benchmarks. */
  testing: ["llm", "store", ...BASE],
  env: ["output", "envelope"],
  output: ["envelope"],
  update: ["envelope"],
  envelope: [],
};

/**
 * Imports against the table that stay for now, each with its reason, keyed "file -> layer". Any
 * other import the table forbids fails the test; an exception no longer needed fails it too.
 */
export const KNOWN_EXCEPTIONS: Record<string, string> = {
  "lib/setup/shell-hooks.ts -> agent":
    "Claude Code-format shell hooks adapt the session's Hooks interface and events (types only)",
};

export interface Import {
  from: string;
  to: string;
  fromLayer: string;
  toLayer: string;
}

/** The layer holding `path` (relative to the root, POSIX), or undefined outside every layer. */
export function layerOf(path: string): string | undefined {
  let best: { layer: string; length: number } | undefined;
  for (const [layer, prefixes] of Object.entries(LAYERS)) {
    for (const p of prefixes) {
      const hit = p.endsWith("/") ? path.startsWith(p) : path === p;
      if (hit && (!best || p.length > best.length)) best = { layer, length: p.length };
    }
  }
  return best?.layer;
}

/** Every source file of the layers (tests, scripts and examples are outside them). */
export function sourceFiles(root = ROOT): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.tsx?$/.test(name)) out.push(path);
    }
  };
  for (const top of ["lib", "tools"]) walk(join(root, top));
  for (const file of ["cli.ts", "mod.ts"]) if (existsSync(join(root, file))) out.push(join(root, file));
  return out.map((f) => relative(root, f).split("\\").join("/")).sort();
}

// Static imports and re-exports (`import … from`, `export … from`, bare `import "…"`) and dynamic `import("…")`.
const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^'"`;]*?\bfrom\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']/gm;

/** The project-internal imports of one file (relative specifiers resolved to root-relative paths). */
export function importsOf(file: string, root = ROOT): string[] {
  const source = readFileSync(join(root, file), "utf8").replace(/\/\*[\s\S]*?\*\//g, "");
  const out: string[] = [];
  for (const m of source.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (!spec.startsWith(".")) continue;
    out.push(
      relative(root, resolve(root, dirname(file), spec))
        .split("\\")
        .join("/"),
    );
  }
  return out;
}

/** Every import that crosses from one layer to another. */
export function crossings(root = ROOT): Import[] {
  const out: Import[] = [];
  for (const from of sourceFiles(root)) {
    const fromLayer = layerOf(from);
    if (!fromLayer) continue;
    for (const to of importsOf(from, root)) {
      const toLayer = layerOf(to);
      // Data files (examples/demo.json) belong to no layer.
      if (!toLayer || toLayer === fromLayer) continue;
      out.push({ from, to, fromLayer, toLayer });
    }
  }
  return out;
}

/** The imports the table forbids, as "file -> layer" keys with the imported files. */
export function violations(root = ROOT): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const i of crossings(root)) {
    if (ALLOWED[i.fromLayer]?.includes(i.toLayer)) continue;
    const key = `${i.from} -> ${i.toLayer}`;
    (out.get(key) ?? out.set(key, []).get(key)!).push(i.to);
  }
  return out;
}

if (import.meta.main) {
  const found = violations();
  const graph = new Map<string, number>();
  for (const i of crossings())
    graph.set(`${i.fromLayer} -> ${i.toLayer}`, (graph.get(`${i.fromLayer} -> ${i.toLayer}`) ?? 0) + 1);
  if (process.argv.includes("--graph")) for (const [arrow, n] of [...graph].sort()) console.log(`${arrow}  (${n})`);
  const fresh = [...found.keys()].filter((k) => !(k in KNOWN_EXCEPTIONS));
  for (const key of fresh) console.log(`FORBIDDEN ${key}: ${found.get(key)!.join(", ")}`);
  process.exitCode = fresh.length > 0 ? 1 : 0;
}
