/**
 * The layers of gong and the imports allowed between them, written once (ARCHITECTURE.md:
 * dependencies point one way: cli, batch → core → agent → (profiles, setup, mcp, llm, store, checkpoints, web) →
 * gate → tools → env, output, envelope; batch never imports cli; tools never import the agent; the LLM
 * layer never imports tools), and no import cycle between modules — type-only imports and `import()`
 * included. test/layering.test.ts fails on any import the table does not allow and on any cycle; `bun
 * scripts/layers.ts` prints both (exit 1 when there are any), `--graph` the arrows between layers
 * with their import counts.
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
  /**
   * The agent's vocabulary (events, stop reasons, the result, the hooks interface): a leaf the
   * loop's modules, the hosts and the adapters of other formats (setup's shell hooks) all speak.
   */
  vocabulary: ["lib/agent/vocabulary.ts"],
  profiles: ["lib/profiles/"],
  tools: ["tools/"],
  llm: ["lib/llm/"],
  store: ["lib/store/"],
  checkpoints: ["lib/checkpoints/"],
  mcp: ["lib/mcp/"],
  setup: ["lib/setup/"],
  web: ["lib/web/"],
  testing: ["lib/testing/"],
  env: ["lib/env/"],
  output: ["lib/output/"],
  /** `gong update`: a release binary replaced by the release's newer build (the CLI's update.ts drives it). */
  update: ["lib/update/"],
  /**
   * Leaves every layer may use: the envelope, the version, atomic writes and their temp files,
   * hashes, and the path rules (the one "is inside" check; the output layer needs it too).
   */
  envelope: ["lib/envelope.ts", "lib/version.ts", "lib/temp-files.ts", "lib/hash.ts", "lib/paths.ts"],
};

const BASE = ["env", "output", "envelope"];
const MIDDLE = ["profiles", "gate", "tools", "llm", "store", "checkpoints", "mcp", "setup", "web", "testing"];

/** The layers each layer may import (besides itself). */
export const ALLOWED: Record<string, readonly string[]> = {
  cli: ["core", "agent", "vocabulary", "batch", "export", "update", ...MIDDLE, ...BASE],
  batch: ["core", "agent", "vocabulary", "llm", "store", ...BASE],
  core: ["agent", "vocabulary", "telemetry", ...MIDDLE, ...BASE],
  export: ["store", "llm", ...BASE],
  telemetry: ["vocabulary", "llm", ...BASE],
  sdk: ["agent", "vocabulary", "batch", ...MIDDLE, ...BASE],
  agent: ["vocabulary", ...MIDDLE, ...BASE],
  vocabulary: ["tools", "llm", "mcp", "store", "envelope"],
  /** A profile words what users bring (skills, custom agents) in its own tools, so it reads setup's types and loaders. */
  profiles: ["vocabulary", "tools", "llm", "setup", ...BASE],
  tools: ["llm", "web", ...BASE],
  llm: ["env", "envelope"],
  store: ["llm", ...BASE],
  checkpoints: ["store", "llm", ...BASE],
  mcp: ["tools", "llm", ...BASE],
  setup: ["vocabulary", "gate", "tools", "llm", "store", ...BASE],
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
export const KNOWN_EXCEPTIONS: Record<string, string> = {};

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

/** A group of modules that import each other, round about, and one cycle through them. */
export interface Cycle {
  /** Every module of the group. */
  modules: string[];
  /** One cycle: the files in import order, the first repeated at the end (a.ts, b.ts, a.ts). */
  path: string[];
}

/** The import cycles between modules, type-only imports and `import()` included: one per group. */
export function cycles(root = ROOT): Cycle[] {
  const files = sourceFiles(root);
  const known = new Set(files);
  const edges = new Map(files.map((f) => [f, [...new Set(importsOf(f, root))].filter((t) => known.has(t))]));
  return stronglyConnected(files, edges)
    .filter((group) => group.length > 1 || edges.get(group[0])!.includes(group[0]))
    .map((group) => ({ modules: group, path: cycleThrough(group, edges) }));
}

/** Tarjan's strongly connected components of the import graph. */
function stronglyConnected(nodes: string[], edges: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node)!) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    groups.push(group.sort());
  };
  for (const node of nodes) if (!index.has(node)) visit(node);
  return groups;
}

/** One cycle inside a group that reach each other: the shortest way from its first file back to it. */
function cycleThrough(group: string[], edges: Map<string, string[]>): string[] {
  const inGroup = new Set(group);
  const start = group[0];
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of edges.get(node)!) {
      if (!inGroup.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (let at = node; at !== start; at = cameFrom.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, node);
        queue.push(next);
      }
    }
  }
  return [...group, start];
}

if (import.meta.main) {
  const found = violations();
  const graph = new Map<string, number>();
  for (const i of crossings())
    graph.set(`${i.fromLayer} -> ${i.toLayer}`, (graph.get(`${i.fromLayer} -> ${i.toLayer}`) ?? 0) + 1);
  if (process.argv.includes("--graph")) for (const [arrow, n] of [...graph].sort()) console.log(`${arrow}  (${n})`);
  const fresh = [...found.keys()].filter((k) => !(k in KNOWN_EXCEPTIONS));
  for (const key of fresh) console.log(`FORBIDDEN ${key}: ${found.get(key)!.join(", ")}`);
  const circles = cycles();
  for (const { modules, path } of circles)
    console.log(
      `CYCLE ${path.join(" -> ")}${modules.length > path.length - 1 ? ` (${modules.length} modules in all)` : ""}`,
    );
  process.exitCode = fresh.length > 0 || circles.length > 0 ? 1 : 0;
}
