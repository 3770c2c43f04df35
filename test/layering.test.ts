/**
 * Issue 23: the layering written once in scripts/layers.ts holds — every import of every source
 * file goes the way DESIGN's "Dependencies point one way" allows, or is a listed exception.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { KNOWN_EXCEPTIONS, layerOf, sourceFiles, violations } from "../scripts/layers.ts";
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
});
