/**
 * find tool: the J.6 scenarios (docs/conformance.md: 003 §F) through the registry and a real
 * LocalEnvironment, once with fd on PATH and once without it (the TypeScript fallback, status
 * "partial").
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { findExecutable } from "../../lib/env/search/which.ts";
import { createToolRegistry } from "../../tools/registry.ts";
import { makeWorkspace, type Workspace } from "../env/helpers.ts";
import { expectFallbackReported } from "./search-fallback.ts";

const FAST_PATH = process.env.PATH ?? "";
const hasFd = findExecutable(["fd", "fdfind"], FAST_PATH) !== null;
const FALLBACK_TEXT = "fd not found; used the built-in TypeScript search (slower)";

let ws: Workspace;
beforeEach(() => {
  ws = makeWorkspace("find-tool");
});
afterEach(() => ws.dispose());

function files(...paths: string[]): void {
  for (const rel of paths) {
    mkdirSync(dirname(join(ws.dir, rel)), { recursive: true });
    writeFileSync(join(ws.dir, rel), "");
  }
}

for (const { engine, pathEnv, missing } of [
  { engine: "fd", pathEnv: FAST_PATH, missing: !hasFd },
  { engine: "typescript", pathEnv: "/nonexistent-gong-bin", missing: false },
]) {
  const fallback = engine === "typescript";
  const find = (args: unknown) =>
    createToolRegistry({ cwd: ws.dir, env: ws.env({ baseEnv: { PATH: pathEnv } }) }).execute("find", args);
  const pathsOf = async (args: unknown) => ((await find(args)).data.paths as string[]).slice().sort();

  describe(`find [${engine}]`, () => {
    test.skipIf(missing)("find 1.1 hidden files are included", async () => {
      files(".secret/hidden.txt", "visible.txt");
      expect(await pathsOf({ pattern: "*.txt" })).toEqual([".secret/hidden.txt", "visible.txt"]);
    });

    test.skipIf(missing)("find 1.2 ** globs match at any depth, also below a given path", async () => {
      files("top.ex", "lib/a.ex", "lib/deep/er/b.ex", "lib/c.exs", "test/d.ex");
      expect(await pathsOf({ pattern: "**/*.ex" })).toEqual(["lib/a.ex", "lib/deep/er/b.ex", "test/d.ex", "top.ex"]);
      expect(await pathsOf({ pattern: "lib/**/*.ex" })).toEqual(["lib/a.ex", "lib/deep/er/b.ex"]);
      expect(await pathsOf({ pattern: "*.ex", path: "lib/deep" })).toEqual(["lib/deep/er/b.ex"]);
    });

    test.skipIf(missing)("find 1.3 no match is a result saying so, not an error", async () => {
      files("a.txt");
      const r = await find({ pattern: "*.xyz" });
      expect(r.status).toBe(fallback ? "partial" : "success");
      expect(r.text).toStartWith("No files found matching '*.xyz'");
      expect(r.data).toMatchObject({ paths: [], truncated: false });
    });

    test.skipIf(missing)("find 2.1 nested .gitignore files are honoured", async () => {
      files("ignored.txt", "kept.txt", "sub/local.txt", "other/local.txt");
      writeFileSync(join(ws.dir, ".gitignore"), "ignored.txt\n");
      writeFileSync(join(ws.dir, "sub/.gitignore"), "local.txt\n");
      expect(await pathsOf({ pattern: "*.txt" })).toEqual(["kept.txt", "other/local.txt"]);
    });

    test.skipIf(missing)(
      "find 2.1 engines list ignored files when asked, and match case as asked (smart case by default)",
      async () => {
        files("out/gen.md", "README.MD", "notes.md");
        writeFileSync(join(ws.dir, ".gitignore"), "out/\n");
        const env = ws.env({ baseEnv: { PATH: pathEnv } });
        const glob = async (options: { pattern: string; noIgnore?: boolean; ignoreCase?: boolean }) =>
          (await env.glob({ ...options, path: ws.dir })).paths.slice().sort();
        expect(await glob({ pattern: "*.md" })).toEqual(["README.MD", "notes.md"]);
        expect(await glob({ pattern: "*.MD" })).toEqual(["README.MD"]);
        expect(await glob({ pattern: "*.md", ignoreCase: false })).toEqual(["notes.md"]);
        expect(await glob({ pattern: "*.md", noIgnore: true })).toEqual(["README.MD", "notes.md", "out/gen.md"]);
      },
    );

    test.skipIf(missing)("find 2.2 past the limit the result is partial and says how to see more", async () => {
      files(...Array.from({ length: 12 }, (_, i) => `f${i}.txt`));
      const r = await find({ pattern: "*", limit: 5 });
      expect(r.status).toBe("partial");
      expect((r.data.paths as string[]).length).toBe(5);
      expect(r.data.truncated).toBe(true);
      expect(r.text).toContain("5 results limit reached. Use limit=10 for more, or refine pattern");
    });

    test.skipIf(missing)("find 2.3 symlinks are listed by name; linked directories are not entered", async () => {
      // Documented behaviour: symlinks are listed under their own name; a symlinked directory is
      // not entered, so files reachable only through it do not appear.
      files("target/inner.txt", "plain.txt");
      symlinkSync(join(ws.dir, "target"), join(ws.dir, "linked"));
      symlinkSync(join(ws.dir, "plain.txt"), join(ws.dir, "alias.txt"));
      expect(await pathsOf({ pattern: "*.txt" })).toEqual(["alias.txt", "plain.txt", "target/inner.txt"]);
      expect(await pathsOf({ pattern: "linked" })).toEqual(["linked"]);
    });

    test.skipIf(missing)("find 3.1 wrong argument types are INVALID_PARAM", async () => {
      for (const args of [{ pattern: [] }, { pattern: null }, {}, { pattern: "*", limit: -1 }]) {
        const r = await find(args);
        expect(r.status).toBe("error");
        expect(r.error?.code).toBe("INVALID_PARAM");
      }
    });

    test.skipIf(missing)("find lists newest first with directories marked", async () => {
      files("old.md", "docs/new.md");
      utimesSync(join(ws.dir, "old.md"), 1_000_000, 1_000_000);
      utimesSync(join(ws.dir, "docs"), 2_000_000, 2_000_000);
      const r = await find({ pattern: "*" });
      expect(r.data.paths).toEqual(["docs/new.md", "docs/", "old.md"]);
      expect(r.text).toContain("docs/new.md\ndocs/\nold.md");
    });

    test.skipIf(missing)("find on a missing directory is NOT_FOUND, on a file INVALID_PARAM", async () => {
      files("f.txt");
      expect((await find({ pattern: "*", path: "nope" })).error?.code).toBe("NOT_FOUND");
      expect((await find({ pattern: "*", path: "f.txt" })).error?.code).toBe("INVALID_PARAM");
    });

    test.skipIf(missing)(fallback ? "find fallback is reported" : "find with fd reports no fallback", async () => {
      files("a.txt");
      const r = await find({ pattern: "*.txt" });
      expectFallbackReported(r, fallback, FALLBACK_TEXT);
    });
  });
}
