/**
 * grep tool: the J.5 scenarios (docs/conformance.md: 003 §E) through the registry and a real
 * LocalEnvironment, once with ripgrep on PATH and once without it (the TypeScript fallback, status
 * "partial").
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { findExecutable } from "../../lib/env/search/which.ts";
import { coreObserver, runObserved } from "../helpers/observed.ts";
import { createToolRegistry } from "../../tools/registry.ts";
import { makeWorkspace, type Workspace } from "../env/helpers.ts";
import { expectFallbackReported } from "./search-fallback.ts";

const FAST_PATH = process.env.PATH ?? "";
const hasRg = findExecutable(["rg"], FAST_PATH) !== null;
const FALLBACK_TEXT = "ripgrep not found; used the built-in TypeScript search (slower)";

let ws: Workspace;
beforeEach(() => {
  ws = makeWorkspace("grep-tool");
});
afterEach(() => ws.dispose());

function files(tree: Record<string, string | Uint8Array>): void {
  for (const [rel, content] of Object.entries(tree)) {
    mkdirSync(dirname(join(ws.dir, rel)), { recursive: true });
    writeFileSync(join(ws.dir, rel), content);
  }
}

for (const { engine, pathEnv, missing } of [
  { engine: "ripgrep", pathEnv: FAST_PATH, missing: !hasRg },
  { engine: "typescript", pathEnv: "/nonexistent-gong-bin", missing: false },
]) {
  const fallback = engine === "typescript";
  const grep = (args: unknown) =>
    createToolRegistry({ cwd: ws.dir, env: ws.env({ baseEnv: { PATH: pathEnv } }) }).execute("grep", args);
  /** Status when nothing was cut: the fallback alone makes a result partial. */
  const whole = fallback ? "partial" : "success";

  describe(`grep [${engine}]`, () => {
    test.skipIf(missing)("grep 1.1 a search in one file reports file:line: text", async () => {
      files({ "file.txt": "one\ntwo\nhello world\n" });
      const r = await grep({ pattern: "hello", path: "file.txt" });
      expect(r.status).toBe(whole);
      expect(r.text).toContain("file.txt:3: hello world");
      expect(r.data.matches).toEqual([{ file: "file.txt", line: 3, text: "hello world" }]);
      expect(r.context.path_resolved).toBe("file.txt");
    });

    test.skipIf(missing)("grep 1.1 the engine searches ignored files when asked (gemini-cli's no_ignore)", async () => {
      files({ ".gitignore": "build/\n", "build/out.js": "needle\n", "src.js": "needle\n" });
      const env = ws.env({ baseEnv: { PATH: pathEnv } });
      const filesOf = async (noIgnore: boolean) =>
        [...new Set((await env.grep({ pattern: "needle", path: ws.dir, noIgnore })).lines.map((l) => l.file))].sort();
      expect(await filesOf(false)).toEqual(["src.js"]);
      expect(await filesOf(true)).toEqual(["build/out.js", "src.js"]);
    });

    test.skipIf(missing)("grep 1.2 directory with several files", async () => {
      files({ "d/a.txt": "a test\n", "d/b.txt": "nothing\n", "d/c.txt": "test again\ntest\n" });
      const r = await grep({ pattern: "test", path: "d" });
      expect(r.data.matches).toEqual([
        { file: "d/a.txt", line: 1, text: "a test" },
        { file: "d/c.txt", line: 1, text: "test again" },
        { file: "d/c.txt", line: 2, text: "test" },
      ]);
      expect(r.text).toStartWith("Found 3 matches for 'test' in 2 files:");
    });

    test.skipIf(missing)("grep 1.3 no match is a result saying so, not an error", async () => {
      files({ "file.txt": "nothing here\n" });
      const r = await grep({ pattern: "nonexistent", path: "file.txt" });
      expect(r.status).toBe(whole);
      expect(r.text).toStartWith("No matches found for 'nonexistent'");
      expect(r.data).toMatchObject({ matches: [], truncated: false });
    });

    test.skipIf(missing)("grep 2.1 limit counts matches; context lines are shown around them", async () => {
      files({ "f.txt": Array.from({ length: 10 }, (_, i) => `x${i}\nplain${i}`).join("\n") });
      const r = await grep({ pattern: "x", limit: 1, context: 1 });
      expect(r.status).toBe("partial");
      expect(r.data.matches).toEqual([{ file: "f.txt", line: 1, text: "x0" }]);
      expect(r.text).toContain("f.txt:1: x0\nf.txt-2- plain0");
      expect(r.text).toContain("1 matches limit reached. Use limit=2 for more, or refine pattern");
      expect(r.data.truncated).toBe(true);
    });

    test.skipIf(missing)("grep 2.2 escaped regex metacharacters match literally", async () => {
      files({ "f.txt": "foo.bar(baz)\nfooXbar(\n" });
      const r = await grep({ pattern: "foo\\.bar\\(" });
      expect(r.data.matches).toEqual([{ file: "f.txt", line: 1, text: "foo.bar(baz)" }]);
    });

    test.skipIf(missing)("grep 2.3 literal mode takes the pattern as plain text", async () => {
      files({ "f.txt": "foo.bar(baz)\nfooXbar(\n" });
      const r = await grep({ pattern: "foo.bar(", literal: true });
      expect(r.data.matches).toEqual([{ file: "f.txt", line: 1, text: "foo.bar(baz)" }]);
    });

    test.skipIf(missing)("grep 2.4 ignore_case matches regardless of case", async () => {
      files({ "f.txt": "Hello World\n" });
      expect((await grep({ pattern: "hello" })).data.matches).toEqual([]);
      expect((await grep({ pattern: "hello", ignore_case: true })).data.matches).toEqual([
        { file: "f.txt", line: 1, text: "Hello World" },
      ]);
    });

    test.skipIf(missing)(
      "grep 3.1 truncation: the tool returns every match, the framework cuts (20,000 characters, 200 lines)",
      async () => {
        files({ "big.txt": Array.from({ length: 2000 }, (_, i) => `common word ${i} ${"z".repeat(60)}`).join("\n") });
        const registry = createToolRegistry({ cwd: ws.dir, env: ws.env({ baseEnv: { PATH: pathEnv } }) });
        const r = await runObserved(registry, coreObserver(ws.dir), "grep", { pattern: "common", limit: 2000 });
        expect(r.response.text.split("\n").filter((l) => l.startsWith("big.txt:"))).toHaveLength(2000);
        expect((r.response.data.matches as unknown[]).length).toBe(2000);
        expect(r.truncated).toBe(true);
        expect(r.forModel.text.length).toBeLessThan(21_000);
        // 200 lines: the first 100 and the last 100, which hold the summary and any notice too.
        const shown = r.forModel.text.split("\n").filter((l) => l.startsWith("big.txt:")).length;
        expect(shown).toBe(fallback ? 197 : 199);
        expect(r.forModel.text).toContain(
          fallback ? "Lines 101-1903 of 2003 are not shown." : "Lines 101-1901 of 2001 are not shown.",
        );
      },
    );

    test.skipIf(missing)("grep 3.2 glob limits the search to matching file names", async () => {
      files({ "lib/a.ex": "test\n", "lib/b.js": "test\n", "c.ex": "test\n" });
      const r = await grep({ pattern: "test", glob: "*.ex" });
      expect((r.data.matches as { file: string }[]).map((m) => m.file)).toEqual(["c.ex", "lib/a.ex"]);
    });

    test.skipIf(missing)("grep 3.3 binary files are skipped", async () => {
      files({
        "pic.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0x74, 0x65, 0x73, 0x74, 0x0a]),
        "t.txt": "test\n",
      });
      const r = await grep({ pattern: "test" });
      expect(r.data.matches).toEqual([{ file: "t.txt", line: 1, text: "test" }]);
    });

    test.skipIf(missing)("grep 4.1 wrong argument types are INVALID_PARAM", async () => {
      for (const args of [
        { pattern: null },
        { pattern: 42 },
        {},
        { pattern: "x", limit: 0 },
        { pattern: "x", context: "2" },
      ]) {
        const r = await grep(args);
        expect(r.status).toBe("error");
        expect(r.error?.code).toBe("INVALID_PARAM");
      }
    });

    test.skipIf(missing)("grep invalid regex is INVALID_PARAM", async () => {
      files({ "f.txt": "x\n" });
      const r = await grep({ pattern: "foo(" });
      expect(r.error?.code).toBe("INVALID_PARAM");
      expect(r.error?.message).toContain("Invalid regex 'foo('");
    });

    test.skipIf(missing)("grep returns long lines whole", async () => {
      const line = `var hit = "${"q".repeat(900)}";`;
      files({ "min.js": `${line}\n` });
      const r = await grep({ pattern: "hit" });
      expect(r.text).toContain(`min.js:1: ${line}`);
    });

    test.skipIf(missing)("grep missing path is NOT_FOUND; outside the workspace ACCESS_DENIED", async () => {
      expect((await grep({ pattern: "x", path: "nope" })).error?.code).toBe("NOT_FOUND");
      expect((await grep({ pattern: "x", path: "/etc" })).error?.code).toBe("ACCESS_DENIED");
    });

    test.skipIf(missing)(fallback ? "grep fallback is reported" : "grep with ripgrep reports no fallback", async () => {
      files({ "f.txt": "x\n" });
      const r = await grep({ pattern: "x" });
      expectFallbackReported(r, fallback, FALLBACK_TEXT);
    });
  });
}
