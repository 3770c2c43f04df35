/**
 * Issue 23: the layering written once in scripts/layers.ts holds — every import of every source
 * file goes the way ARCHITECTURE.md's "Dependencies point one way" allows, or is a listed exception.
 * Issue 34: and no modules import each other round about, type-only imports included.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { cycles, KNOWN_EXCEPTIONS, layerOf, sourceFiles, violations } from "../scripts/layers.ts";
import { tempDir } from "./helpers/temp.ts";

describe("issue 23 layering: imports point one way", () => {
  test("no source file imports a layer the table forbids (besides the listed exceptions)", () => {
    const found = violations();
    const fresh = [...found]
      .filter(([key]) => !(key in KNOWN_EXCEPTIONS))
      .map(([key, files]) => `${key} (${files.join(", ")})`);
    expect(fresh).toEqual([]);
  });

  test("every listed exception is still needed (remove it once the import is gone)", () => {
    const found = violations();
    expect(Object.keys(KNOWN_EXCEPTIONS).filter((key) => !found.has(key))).toEqual([]);
  });

  test("every source file belongs to a layer", () => {
    expect(sourceFiles().filter((f) => layerOf(f) === undefined)).toEqual([]);
  });

  test("a forbidden import is caught: tools importing the agent, the LLM layer importing tools, a dynamic import", () => {
    const dir = tempDir("gong-layers-");
    try {
      const write = (path: string, text: string) => {
        mkdirSync(dirname(join(dir.dir, path)), { recursive: true });
        writeFileSync(join(dir.dir, path), text);
      };
      write("lib/agent/session.ts", "export const x = 1;\n");
      write("tools/read.ts", 'import { x } from "../lib/agent/session.ts";\nexport const y = x;\n');
      write("tools/grep.ts", 'import {\n  type A,\n} from "../lib/envelope.ts";\n');
      write("lib/envelope.ts", "export type A = 1;\n");
      write("lib/llm/client.ts", 'export const load = () => import("../../tools/read.ts");\n');
      write("lib/llm/types.ts", '/* import { y } from "../../tools/read.ts"; */\nexport type T = 1;\n');
      expect([...violations(dir.dir).keys()].sort()).toEqual(["lib/llm/client.ts -> tools", "tools/read.ts -> agent"]);
    } finally {
      dir.cleanup();
    }
  });

  test("issue 34: no import cycle between modules anywhere in lib/ and tools/, type-only imports included", () => {
    expect(cycles().map((c) => c.path.join(" -> "))).toEqual([]);
  });

  test("issue 34: a cycle is caught whatever carries it: type-only imports, a re-export, an import() type", () => {
    const dir = tempDir("gong-cycles-");
    try {
      const write = (path: string, text: string) => {
        mkdirSync(dirname(join(dir.dir, path)), { recursive: true });
        writeFileSync(join(dir.dir, path), text);
      };
      // The agent's types in a circle: events take a payload type from the loop that emits them.
      write("lib/agent/events.ts", 'import type { StopReason } from "./loop.ts";\nexport type Ev = StopReason;\n');
      write("lib/agent/loop.ts", 'import type { Ev } from "./stream.ts";\nexport type StopReason = "done";\n');
      write("lib/agent/stream.ts", 'export type { Ev } from "./events.ts";\n');
      // Two files of one folder: a type named through import().
      write("lib/testing/a.ts", 'export type A = import("./b.ts").B;\n');
      write("lib/testing/b.ts", 'import type { A } from "./a.ts";\nexport type B = A | 1;\n');
      // No cycle: a leaf both import.
      write("lib/llm/types.ts", "export type T = 1;\n");
      write("lib/llm/client.ts", 'import type { T } from "./types.ts";\nexport type C = T;\n');
      write("tools/read.ts", 'import type { T } from "../lib/llm/types.ts";\nexport type R = T;\n');
      const found = cycles(dir.dir);
      expect(found.map((c) => c.modules)).toEqual([
        ["lib/agent/events.ts", "lib/agent/loop.ts", "lib/agent/stream.ts"],
        ["lib/testing/a.ts", "lib/testing/b.ts"],
      ]);
      expect(found[0].path).toEqual([
        "lib/agent/events.ts",
        "lib/agent/loop.ts",
        "lib/agent/stream.ts",
        "lib/agent/events.ts",
      ]);
    } finally {
      dir.cleanup();
    }
  });

  test("issue 34: the shell-hook adapter takes the agent's words from the vocabulary, with no exception", () => {
    expect(Object.keys(KNOWN_EXCEPTIONS).filter((key) => key.startsWith("lib/setup/"))).toEqual([]);
    expect(layerOf("lib/agent/vocabulary.ts")).toBe("vocabulary");
  });
});
