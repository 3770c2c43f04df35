/**
 * A throwaway workspace for tool tests: a temp project root (plus a temp HOME that is an allowed
 * extra root, for `~` paths), a LocalEnvironment over it and a registry, removed by `dispose()`.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { envelopeProblems, type ToolResponse } from "../../lib/envelope.ts";
import { LocalEnvironment } from "../../lib/env/local.ts";
import type { Observed } from "../../lib/output/policy.ts";
import { createToolRegistry, type ToolRegistry } from "../../tools/registry.ts";
import type { Tool } from "../../tools/types.ts";
import { coreObserver, runObserved } from "./observed.ts";
import { tempDir } from "./temp.ts";

export interface Workspace {
  /** Parent temp dir holding `root`, `home` and `outside`. */
  base: string;
  root: string;
  home: string;
  /** A directory outside every allowed root (for escape tests). */
  outside: string;
  env: LocalEnvironment;
  registry: ToolRegistry;
  /** Absolute path of a workspace-relative path. */
  path(rel: string): string;
  write(rel: string, content: string | Uint8Array): string;
  read(rel: string): string;
  bytes(rel: string): Uint8Array;
  /** Registers a profile's tools (profiles share some names, such as read_file: a test registers the one it speaks). */
  use(tools: readonly Tool[]): void;
  /** Execute a tool and check the result is a valid envelope. */
  run(name: string, args: unknown): Promise<ToolResponse>;
  /** Execute a tool as the agent does: its complete output, then the framework's cut with the default profile's limits. */
  seen(name: string, args: unknown): Promise<Observed & { response: ToolResponse }>;
  dispose(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export function createWorkspace(prefix = "gong-tools-"): Workspace {
  const temp = tempDir(prefix);
  const base = temp.dir;
  const root = join(base, "project");
  const home = join(base, "home");
  const outside = join(base, "outside");
  for (const d of [root, home, outside]) mkdirSync(d);
  const env = new LocalEnvironment({ root, home, extraRoots: [home] });
  const registry = createToolRegistry({ cwd: root, env });
  const path = (rel: string) => join(root, rel);
  const dispose = async () => {
    await env.cleanup();
    temp.cleanup();
  };
  return {
    base,
    root,
    home,
    outside,
    env,
    registry,
    path,
    write(rel, content) {
      const p = path(rel);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, content);
      return p;
    },
    read: (rel) => readFileSync(path(rel), "utf8"),
    use(tools) {
      for (const t of tools) registry.register(t);
    },
    bytes: (rel) => new Uint8Array(readFileSync(path(rel))),
    async run(name, args) {
      const result = await registry.execute(name, args);
      const problems = envelopeProblems(result);
      if (problems.length > 0) throw new Error(`invalid envelope from ${name}: ${problems.join("; ")}`);
      return result;
    },
    seen: (name, args) => runObserved(registry, coreObserver(root), name, args),
    dispose,
    [Symbol.asyncDispose]: dispose,
  };
}
