/**
 * The search engines behind ExecutionEnvironment.grep/glob, each scenario run against both
 * engines: the fast binary (rg / fd, when installed) and the TypeScript fallback (a PATH
 * without them).
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { searchGlob } from "../../lib/env/search/glob.ts";
import { searchGrep } from "../../lib/env/search/grep.ts";
import { findExecutable } from "../../lib/env/search/which.ts";

const FAST_PATH = process.env.PATH ?? "";
const NO_TOOLS_PATH = "/nonexistent-gong-bin";
const hasRg = findExecutable(["rg"], FAST_PATH) !== null;
const hasFd = findExecutable(["fd", "fdfind"], FAST_PATH) !== null;

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "gong-search-")));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function files(tree: Record<string, string | Uint8Array>): void {
  for (const [rel, content] of Object.entries(tree)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), content);
  }
}

const grepEngines = [
  { engine: "ripgrep", pathEnv: FAST_PATH, missing: !hasRg },
  { engine: "typescript", pathEnv: NO_TOOLS_PATH, missing: false },
] as const;

for (const { engine, pathEnv, missing } of grepEngines) {
  describe(`grep engine: ${engine}`, () => {
    const grep = (pattern: string, extra: Partial<Parameters<typeof searchGrep>[0]> = {}) =>
      searchGrep({ pattern, path: root, ...extra }, { root, pathEnv });
    const matchesOf = async (pattern: string, extra = {}) =>
      (await grep(pattern, extra)).lines.filter((l) => l.kind === "match").map((l) => `${l.file}:${l.line}`);

    test.skipIf(missing)("reports which engine ran", async () => {
      files({ "a.txt": "x\n" });
      expect((await grep("x")).engine).toBe(engine);
    });

    test.skipIf(missing)("nested .gitignore files apply per directory, deeper rules win", async () => {
      files({
        ".gitignore": "*.log\nbuild/\n",
        "app.log": "hit\n",
        "build/out.txt": "hit\n",
        "src/keep.txt": "hit\n",
        "src/.gitignore": "local.txt\n!wanted.log\n",
        "src/local.txt": "hit\n",
        "src/wanted.log": "hit\n",
        "other/local.txt": "hit\n",
      });
      expect(await matchesOf("hit")).toEqual(["other/local.txt:1", "src/keep.txt:1", "src/wanted.log:1"]);
    });

    test.skipIf(missing)(".ignore files count, the .git directory never does", async () => {
      files({ ".ignore": "secret.txt\n", "secret.txt": "hit\n", ".git/config": "hit\n", ".env": "hit\n" });
      expect(await matchesOf("hit")).toEqual([".env:1"]);
    });

    test.skipIf(missing)(
      "searching a subdirectory honours the root .gitignore and keeps root-relative paths",
      async () => {
        files({ ".gitignore": "gen.ts\n", "src/gen.ts": "hit\n", "src/main.ts": "hit\n" });
        expect(await matchesOf("hit", { path: join(root, "src") })).toEqual(["src/main.ts:1"]);
      },
    );

    test.skipIf(missing)(
      "a glob without '/' matches names at any depth; with '/' paths below the searched directory",
      async () => {
        files({ "a.ts": "hit\n", "lib/b.ts": "hit\n", "lib/deep/c.ts": "hit\n", "lib/d.js": "hit\n" });
        expect(await matchesOf("hit", { glob: "*.ts" })).toEqual(["a.ts:1", "lib/b.ts:1", "lib/deep/c.ts:1"]);
        expect(await matchesOf("hit", { glob: "lib/*.ts" })).toEqual(["lib/b.ts:1"]);
        expect(await matchesOf("hit", { glob: "deep/*.ts", path: join(root, "lib") })).toEqual(["lib/deep/c.ts:1"]);
        expect(await matchesOf("hit", { glob: "!*.ts" })).toEqual(["lib/d.js:1"]);
      },
    );

    test.skipIf(missing)("context lines are marked and never repeated when contexts overlap", async () => {
      files({ "f.txt": "a\nhit1\nb\nhit2\nc\nd\n" });
      const r = await grep("hit", { context: 1 });
      expect(r.lines.map((l) => `${l.line}${l.kind[0]}`)).toEqual(["1c", "2m", "3c", "4m", "5c"]);
    });

    test.skipIf(missing)("exactly `limit` matches is not 'limit reached'; one more is", async () => {
      files({ "f.txt": "x1\nx2\nx3\n" });
      const exact = await grep("x", { limit: 3 });
      expect([exact.matchCount, exact.limitReached]).toEqual([3, false]);
      const cut = await grep("x", { limit: 2, context: 1 });
      expect([cut.matchCount, cut.limitReached]).toEqual([2, true]);
      // The last kept match keeps its after-context, but the dropped match is not shown as context.
      expect(cut.lines.map((l) => `${l.line}${l.kind[0]}`)).toEqual(["1m", "2m"]);
    });

    test.skipIf(missing)("after-context of the last kept match is kept", async () => {
      files({ "f.txt": "x1\nplain\nx2\n" });
      const r = await grep("x", { limit: 1, context: 1 });
      expect(r.lines.map((l) => `${l.line}${l.kind[0]}`)).toEqual(["1m", "2c"]);
      expect(r.limitReached).toBe(true);
    });

    test.skipIf(missing)("binary files are skipped", async () => {
      files({ "img.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0x68, 0x69, 0x74, 0x0a]), "t.txt": "hit\n" });
      expect(await matchesOf("hit")).toEqual(["t.txt:1"]);
    });

    test.skipIf(missing)("an invalid regex is INVALID_PARAM", async () => {
      files({ "f.txt": "x\n" });
      await expect(grep("foo(")).rejects.toMatchObject({ code: "INVALID_PARAM" });
    });

    test.skipIf(missing)("ignore case, literal text, a pattern starting with '-', CRLF lines", async () => {
      files({ "f.txt": "Hello\r\nfoo.bar(baz)\r\n-flag\r\n" });
      expect((await grep("hello", { ignoreCase: true })).lines.map((l) => l.text)).toEqual(["Hello"]);
      expect((await grep("foo.bar(", { literal: true })).lines.map((l) => l.text)).toEqual(["foo.bar(baz)"]);
      expect((await grep("-flag")).lines.map((l) => l.line)).toEqual([3]);
    });

    test.skipIf(missing)("a file path is searched directly, whatever the glob", async () => {
      files({ "notes.md": "one\nhit\n" });
      expect(await matchesOf("hit", { path: join(root, "notes.md"), glob: "*.ts" })).toEqual(["notes.md:2"]);
    });

    test.skipIf(missing)("symlinks are not followed while walking", async () => {
      files({ "real/a.txt": "hit\n" });
      symlinkSync(join(root, "real"), join(root, "linkdir"));
      symlinkSync(join(root, "real/a.txt"), join(root, "link.txt"));
      expect(await matchesOf("hit")).toEqual(["real/a.txt:1"]);
    });

    test.skipIf(missing)("a missing path is NOT_FOUND; an aborted signal rejects", async () => {
      await expect(grep("x", { path: join(root, "missing") })).rejects.toMatchObject({ code: "NOT_FOUND" });
      files({ "f.txt": "x\n" });
      const controller = new AbortController();
      controller.abort();
      await expect(grep("x", { signal: controller.signal })).rejects.toBeDefined();
    });
  });
}

const globEngines = [
  { engine: "fd", pathEnv: FAST_PATH, missing: !hasFd },
  { engine: "typescript", pathEnv: NO_TOOLS_PATH, missing: false },
] as const;

for (const { engine, pathEnv, missing } of globEngines) {
  describe(`glob engine: ${engine}`, () => {
    const glob = (pattern: string, extra: Partial<Parameters<typeof searchGlob>[0]> = {}) =>
      searchGlob({ pattern, path: root, ...extra }, { root, pathEnv });
    const sorted = async (pattern: string, extra = {}) => (await glob(pattern, extra)).paths.sort();

    test.skipIf(missing)("reports which engine ran", async () => {
      files({ "a.txt": "" });
      expect((await glob("*.txt")).engine).toBe(engine);
    });

    test.skipIf(missing)(
      "names at any depth, '**' paths, '/' patterns anchored at the searched directory",
      async () => {
        files({ "a.ts": "", "src/b.ts": "", "src/deep/c.ts": "", "src/d.js": "" });
        expect(await sorted("*.ts")).toEqual(["a.ts", "src/b.ts", "src/deep/c.ts"]);
        expect(await sorted("**/*.ts")).toEqual(["a.ts", "src/b.ts", "src/deep/c.ts"]);
        expect(await sorted("src/*.ts")).toEqual(["src/b.ts"]);
        expect(await sorted("deep/*.ts", { path: join(root, "src") })).toEqual(["src/deep/c.ts"]);
      },
    );

    test.skipIf(missing)("directories end with '/', newest first", async () => {
      files({ "old.txt": "", "mid/x": "", "new.txt": "" });
      utimesSync(join(root, "old.txt"), 1_000_000, 1_000_000);
      utimesSync(join(root, "mid"), 2_000_000, 2_000_000);
      utimesSync(join(root, "new.txt"), 3_000_000, 3_000_000);
      expect((await glob("*", { path: root })).paths.filter((p) => p !== "mid/x")).toEqual([
        "new.txt",
        "mid/",
        "old.txt",
      ]);
    });

    test.skipIf(missing)("nested .gitignore files, .fdignore, and .git are honoured", async () => {
      files({
        ".gitignore": "*.log\n",
        "a.log": "",
        "sub/.gitignore": "x.txt\n",
        "sub/x.txt": "",
        "y/x.txt": "",
        ".fdignore": "z.txt\n",
        "z.txt": "",
        ".git/HEAD": "",
      });
      expect(await sorted("*.{txt,log}")).toEqual(["y/x.txt"]);
    });

    test.skipIf(missing)("inside a git repository the same rules hold", async () => {
      files({
        ".git/HEAD": "ref: refs/heads/main\n",
        ".gitignore": "ignored.txt\n",
        "ignored.txt": "",
        "kept.txt": "",
        "sub/.gitignore": "b.txt\n",
        "sub/b.txt": "",
      });
      expect(await sorted("*.txt")).toEqual(["kept.txt"]);
    });

    test.skipIf(missing)("symlinks are listed but not descended into", async () => {
      files({ "real/a.txt": "" });
      symlinkSync(join(root, "real"), join(root, "linkdir"));
      symlinkSync(join(root, "real/a.txt"), join(root, "alias.txt"));
      expect(await sorted("*")).toEqual(["alias.txt", "linkdir", "real/", "real/a.txt"]);
    });

    test.skipIf(missing)("exactly `limit` results is not 'limit reached'; one more is", async () => {
      files({ "1.txt": "", "2.txt": "", "3.txt": "" });
      const exact = await glob("*.txt", { limit: 3 });
      expect([exact.paths.length, exact.limitReached]).toEqual([3, false]);
      const cut = await glob("*.txt", { limit: 2 });
      expect([cut.paths.length, cut.limitReached]).toEqual([2, true]);
    });

    test.skipIf(missing)(
      "a file path, an empty or a negated pattern is INVALID_PARAM, a missing path NOT_FOUND",
      async () => {
        files({ "f.txt": "" });
        await expect(glob("*", { path: join(root, "f.txt") })).rejects.toMatchObject({ code: "INVALID_PARAM" });
        await expect(glob(" ")).rejects.toMatchObject({ code: "INVALID_PARAM" });
        await expect(glob("!*.txt")).rejects.toMatchObject({ code: "INVALID_PARAM" });
        await expect(glob("*", { path: join(root, "nope") })).rejects.toMatchObject({ code: "NOT_FOUND" });
      },
    );

    test.skipIf(missing)("an aborted signal rejects", async () => {
      files({ "f.txt": "" });
      const controller = new AbortController();
      controller.abort();
      await expect(glob("*", { signal: controller.signal })).rejects.toBeDefined();
    });
  });
}
