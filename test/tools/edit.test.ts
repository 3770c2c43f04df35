import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ExecutionEnvironment } from "../../lib/env/types.ts";
import { createToolRegistry } from "../../tools/registry.ts";
import { makePng } from "../helpers/images.ts";
import { createWorkspace, type Workspace } from "../helpers/workspace.ts";

let ws: Workspace;
beforeAll(() => {
  ws = createWorkspace("gong-edit-");
});
afterAll(() => ws.dispose());

const edit = (path: string, old_text: string, new_text: string, extra: Record<string, unknown> = {}) =>
  ws.run("edit", { path, old_text, new_text, ...extra });

describe("J.1 1. basic replacement", () => {
  test("edit 1.1 an exact match is replaced and the diff is returned", async () => {
    ws.write("hello.txt", "Hello, world!");
    const r = await edit("hello.txt", "world", "testing");
    expect(r.status).toBe("success");
    expect(ws.read("hello.txt")).toBe("Hello, testing!");
    expect(r.text.startsWith("Successfully replaced text in hello.txt.")).toBe(true);
    expect(r.data).toMatchObject({ applied: true, replacements: 1, first_changed_line: 1 });
    expect(r.data.diff).toBe(
      "--- hello.txt\n+++ hello.txt\n@@ -1,1 +1,1 @@\n-Hello, world!\n\\ No newline at end of file\n+Hello, testing!\n\\ No newline at end of file\n",
    );
    expect(r.text).toContain(r.data.diff as string);
  });

  test("edit 1.2 old_text that is not in the file is INVALID_PARAM and the file is untouched", async () => {
    ws.write("hello2.txt", "Hello, world!");
    const r = await edit("hello2.txt", "nonexistent", "x");
    expect(r.error).toEqual({
      code: "INVALID_PARAM",
      message:
        "Could not find the exact text in hello2.txt. The old text must match exactly including all whitespace and newlines.",
    });
    expect(ws.read("hello2.txt")).toBe("Hello, world!");
  });

  test("edit 1.3 multiple occurrences refused", async () => {
    ws.write("foo.txt", "foo bar foo baz foo");
    const r = await edit("foo.txt", "foo", "qux");
    expect(r.error?.message).toBe(
      "Found 3 occurrences of the text in foo.txt. The text must be unique. Please provide more context to make it unique.",
    );
    expect(r.text).toContain("replace_all");
    expect(ws.read("foo.txt")).toBe("foo bar foo baz foo");
  });
});

describe("J.1 2. fuzzy matching", () => {
  test("edit 2.1 trailing spaces in the file do not stop a match (fuzzy)", async () => {
    ws.write("trail.txt", "line one   \nline two\n");
    const r = await edit("trail.txt", "line one\n", "replaced\n");
    expect(r.status).toBe("success");
    expect(r.data.fuzzy_match).toBe(true);
    expect(ws.read("trail.txt")).toBe("replaced\nline two\n");
  });

  test("edit 2.2 straight single quotes match curly ones in the file", async () => {
    ws.write("single.txt", "say \u2018hello\u2019 now");
    await edit("single.txt", "'hello'", "'world'");
    expect(ws.read("single.txt")).toBe("say 'world' now");
  });

  test("edit 2.3 straight double quotes match curly ones in the file", async () => {
    ws.write("double.txt", "print(\u201CHello\u201D)\n");
    await edit("double.txt", '"Hello"', '"World"');
    expect(ws.read("double.txt")).toBe('print("World")\n');
  });

  test("edit 2.4 ASCII hyphens match Unicode dashes in the file", async () => {
    ws.write("dash.txt", "range 1\u20132 \u2014 done\n");
    const r = await edit("dash.txt", "range 1-2 - done", "range 3-4");
    expect(r.status).toBe("success");
    expect(ws.read("dash.txt")).toBe("range 3-4\n");
  });

  test("edit 2.5 a plain space matches a non-breaking space in the file", async () => {
    ws.write("nbsp.txt", "a\u00A0b c\n");
    await edit("nbsp.txt", "a b", "ab");
    expect(ws.read("nbsp.txt")).toBe("ab c\n");
  });

  test("edit 2.6 an exact match is used before any fuzzy one", async () => {
    ws.write("ascii.txt", "keep   \nchange me\nkeep too   \n");
    const r = await edit("ascii.txt", "change me", "changed");
    expect(r.data.fuzzy_match).toBe(false);
    expect(ws.read("ascii.txt")).toBe("keep   \nchanged\nkeep too   \n");
  });

  test("edit 2.7 text that matches neither exactly nor fuzzily is not found", async () => {
    ws.write("other.txt", "something \u201Celse\u201D\n");
    const r = await edit("other.txt", "completely different", "x");
    expect(r.error?.message).toStartWith("Could not find the exact text in other.txt.");
  });

  test("edit 2.8 duplicates after fuzzy normalisation", async () => {
    ws.write("dup.txt", "hello   \nhello\n");
    const r = await edit("dup.txt", "hello", "bye");
    expect(r.error?.message).toStartWith("Found 2 occurrences of the text in dup.txt.");
    expect(ws.read("dup.txt")).toBe("hello   \nhello\n");
  });

  test("edit fuzzy match changes only the matched bytes", async () => {
    const before =
      "intro \u201Cq\u201D \u2014 x\u00A0y   \n\u2018a\u2019 line\u3000\ntarget \u201Cthis\u201D\u00A0one  \nend \u2013 \u2019z\u2019\u2002\n";
    ws.write("mixed.txt", before);
    const r = await edit("mixed.txt", 'target "this" one\n', "new line\n");
    expect(r.status).toBe("success");
    const start = before.indexOf("target");
    const end = before.indexOf("end ");
    expect(ws.read("mixed.txt")).toBe(`${before.slice(0, start)}new line\n${before.slice(end)}`);
  });

  test("edit fuzzy match excludes trailing whitespace after the match", async () => {
    ws.write("tail-ws.txt", "value = \u201Cx\u201D   \nnext\n");
    await edit("tail-ws.txt", 'value = "x"', "value = 1");
    expect(ws.read("tail-ws.txt")).toBe("value = 1   \nnext\n");
  });

  test("edit NFD text matches NFC old_text", async () => {
    ws.write("nfd.txt", "caf\u0065\u0301 au lait\n");
    const r = await edit("nfd.txt", "caf\u00e9", "tea");
    expect(r.status).toBe("success");
    expect(ws.read("nfd.txt")).toBe("tea au lait\n");
  });
});

describe("J.1 3. CRLF / BOM", () => {
  test("edit 3.1 LF old_text matches a CRLF file", async () => {
    ws.write("crlf1.txt", "one\r\ntwo\r\nthree\r\n");
    const r = await edit("crlf1.txt", "one\ntwo\n", "uno\ndos\n");
    expect(r.status).toBe("success");
    expect(ws.read("crlf1.txt")).toBe("uno\r\ndos\r\nthree\r\n");
  });

  test("edit 3.2 a CRLF file stays CRLF, new lines included", async () => {
    ws.write("crlf2.txt", "a\r\nb\r\nc\r\n");
    await edit("crlf2.txt", "b", "b1\nb2");
    const after = ws.read("crlf2.txt");
    expect(after).toBe("a\r\nb1\r\nb2\r\nc\r\n");
    expect(after.replaceAll("\r\n", "")).not.toContain("\n");
  });

  test("edit 3.3 an LF file stays LF even when new_text has CRLF", async () => {
    ws.write("lf.txt", "a\nb\nc\n");
    await edit("lf.txt", "b", "b1\r\nb2");
    expect(ws.read("lf.txt")).toBe("a\nb1\nb2\nc\n");
  });

  test("edit 3.4 mixed endings count as duplicates", async () => {
    ws.write("mixed-eol.txt", "hello\r\nworld\nhello\nworld\n");
    const r = await edit("mixed-eol.txt", "hello\nworld", "x");
    expect(r.error?.message).toStartWith("Found 2 occurrences of the text in mixed-eol.txt.");
  });

  test("edit 3.5 a UTF-8 BOM and CRLF endings are both kept", async () => {
    ws.write("bom.txt", "\uFEFFfirst\r\nsecond\r\n");
    await edit("bom.txt", "second", "2nd");
    expect(ws.read("bom.txt")).toBe("\uFEFFfirst\r\n2nd\r\n");
    expect([...ws.bytes("bom.txt").subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  });

  test("edit 3.5 old_text copied with the BOM still matches; a BOM in new_text is not doubled", async () => {
    ws.write("bom-span.txt", "\uFEFFfirst\nsecond\n");
    const r = await edit("bom-span.txt", "\uFEFFfirst\nsec", "\uFEFFFIRST\nsec");
    expect(r.status).toBe("success");
    expect(r.data.first_changed_line).toBe(1);
    expect(ws.read("bom-span.txt")).toBe("\uFEFFFIRST\nsecond\n");
    ws.write("no-bom.txt", "first\n");
    // A file without a BOM gets none from old_text: "\uFEFF" is then ordinary text that is not there.
    expect((await edit("no-bom.txt", "\uFEFFfirst", "x")).error?.code).toBe("INVALID_PARAM");
  });

  test("edit 3.2 CRLF file with fuzzy match and replace_all: every occurrence, CRLF kept, rest untouched", async () => {
    ws.write("crlf-fuzzy.txt", "a = \u201cx\u201d;  \r\nb\r\nkeep \u201cq\u201d\r\na = \u201cx\u201d;\r\nb\r\n");
    const r = await edit("crlf-fuzzy.txt", 'a = "x";\nb\n', "A\nB\n", { replace_all: true });
    expect(r.data).toMatchObject({ replacements: 2, fuzzy_match: true });
    expect(ws.read("crlf-fuzzy.txt")).toBe("A\r\nB\r\nkeep \u201cq\u201d\r\nA\r\nB\r\n");
  });

  test("edit a file with classic Mac line endings (lone CR) keeps them", async () => {
    ws.write("cr-only.txt", "one\rtwo\rthree");
    const r = await edit("cr-only.txt", "two\nthree", "2\n3");
    expect(r.status).toBe("success");
    expect(ws.read("cr-only.txt")).toBe("one\r2\r3");
  });

  test("edit mixed line endings outside the region stay as they were", async () => {
    ws.write("eol-mix.txt", "a\r\nb\nc\r\nd\n");
    await edit("eol-mix.txt", "c\n", "C\n");
    expect(ws.read("eol-mix.txt")).toBe("a\r\nb\nC\r\nd\n");
  });
});

describe("J.1 4. safety and edges", () => {
  test("edit 4.1 empty file and empty old_text", async () => {
    ws.write("empty.txt", "");
    const r = await edit("empty.txt", "", "content");
    expect(r.status).toBe("success");
    expect(ws.read("empty.txt")).toBe("content");
    const refused = await edit("empty.txt", "", "more");
    expect(refused.error?.code).toBe("INVALID_PARAM");
    expect(refused.error?.message).toStartWith("old_text must not be empty");
    expect(ws.read("empty.txt")).toBe("content");
  });

  test("edit 4.2 a 10 MB file is edited correctly", async () => {
    const line = "const value = 'some reasonably long line of code';\n";
    const count = Math.ceil((10 * 1024 * 1024) / line.length);
    const body = line.repeat(count);
    const content = `${body.slice(0, body.length / 2 - ((body.length / 2) % line.length))}UNIQUE_MARKER\n${body.slice(body.length / 2 - ((body.length / 2) % line.length))}`;
    ws.write("big.txt", content);
    const r = await edit("big.txt", "UNIQUE_MARKER", "REPLACED");
    expect(r.status).toBe("success");
    expect(ws.read("big.txt")).toBe(content.replace("UNIQUE_MARKER", "REPLACED"));
    expect(r.data.first_changed_line).toBe(content.slice(0, content.indexOf("UNIQUE")).split("\n").length);
  });

  test("edit 4.3 a replacement that changes nothing is refused", async () => {
    ws.write("same.txt", "hello");
    const r = await edit("same.txt", "hello", "hello");
    expect(r.error?.message).toBe("No changes made to same.txt. The replacement produced identical content.");
  });

  test("edit 4.4 concurrent edits do not corrupt", async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `item ${i}`);
    ws.write("shared.txt", `${lines.join("\n")}\n`);
    const results = await Promise.all(lines.map((l, i) => edit("shared.txt", `${l}\n`, `item ${i} done\n`)));
    for (const r of results) expect(["success", "error"]).toContain(r.status);
    for (const r of results.filter((x) => x.status === "error")) expect(r.error?.code).toBe("CONFLICT");
    const done = results.filter((r) => r.status === "success").length;
    const after = ws.read("shared.txt").split("\n").slice(0, -1);
    expect(after.length).toBe(20);
    expect(after.filter((l) => l.endsWith(" done")).length).toBe(done);
    expect(done).toBe(20);
    expect(readdirSync(ws.root).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });

  test("edit 4.4 a change on disk during the edit is a CONFLICT", async () => {
    const file = ws.write("raced.txt", "original text\n");
    const racing = new Proxy(ws.env, {
      get(target, key) {
        if (key === "readFile") {
          return async (p: string) => {
            const bytes = await target.readFile(p);
            writeFileSync(file, "someone else wrote this meanwhile\n");
            return bytes;
          };
        }
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    }) as ExecutionEnvironment;
    const registry = createToolRegistry({ cwd: ws.root, env: racing });
    const r = await registry.execute("edit", { path: "raced.txt", old_text: "original", new_text: "mine" });
    expect(r.error?.code).toBe("CONFLICT");
    expect(readFileSync(file, "utf8")).toBe("someone else wrote this meanwhile\n");
  });

  test("edit 4.5 binary and non-UTF-8 files are refused as BINARY_FILE and left untouched", async () => {
    const png = makePng(8, 8);
    ws.write("image.png", png);
    const r = await edit("image.png", "IHDR", "XXXX");
    expect(r.error?.code).toBe("BINARY_FILE");
    expect(ws.bytes("image.png")).toEqual(png);
    ws.write("latin1.txt", new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    const invalid = await edit("latin1.txt", "caf", "tea");
    expect(invalid.error?.code).toBe("BINARY_FILE");
    expect([...ws.bytes("latin1.txt")]).toEqual([0x63, 0x61, 0x66, 0xe9, 0x0a]);
  });

  test("edit 4.6 paths outside the workspace are ACCESS_DENIED", async () => {
    const canary = join(ws.outside, "passwd");
    writeFileSync(canary, "root:x:0:0\n");
    const rel = `../outside/passwd`;
    for (const path of ["../../etc/passwd", rel, canary]) {
      const r = await edit(path, "root", "hacked");
      expect(r.error?.code).toBe("ACCESS_DENIED");
    }
    expect(readFileSync(canary, "utf8")).toBe("root:x:0:0\n");
  });

  test("edit 4.7 a directory as target is IS_DIRECTORY", async () => {
    ws.write("dir/file.txt", "x");
    const r = await edit("dir", "x", "y");
    expect(r.error?.code).toBe("IS_DIRECTORY");
    expect(r.error?.message).toStartWith("Is a directory: dir");
  });
});

describe("J.1 5. regressions", () => {
  test("edit 5.1 ~ expands to the home directory", async () => {
    const file = join(ws.home, "test_dir", "hello.txt");
    await Bun.write(file, "a b c\n");
    const r = await edit("~/test_dir/hello.txt", "a", "b");
    expect(r.status).toBe("success");
    expect(readFileSync(file, "utf8")).toBe("b b c\n");
  });

  test("edit 5.2 wrong argument types are INVALID_PARAM naming the field", async () => {
    const nil = await ws.run("edit", { path: null, old_text: "x", new_text: "y" });
    expect(nil.error?.message).toBe("Invalid arguments for edit: 'path' must be a string (got null).");
    const num = await ws.run("edit", { path: 123, old_text: "x", new_text: "y" });
    expect(num.error?.code).toBe("INVALID_PARAM");
    const missing = await ws.run("edit", { path: "a.txt", old_text: "x" });
    expect(missing.error?.message).toBe("Invalid arguments for edit: 'new_text' is required (a string).");
  });

  test("edit 5.3 diff line numbers far from the start", async () => {
    const lines = Array.from({ length: 500 }, (_, i) => (i + 1 === 338 ? "target" : `line ${i + 1}`));
    ws.write("far.txt", `${lines.join("\n")}\n`);
    const r = await edit("far.txt", "target", "replaced");
    expect(r.data.first_changed_line).toBe(338);
    expect(r.data.diff).toBe(
      "--- far.txt\n+++ far.txt\n@@ -334,9 +334,9 @@\n line 334\n line 335\n line 336\n line 337\n-target\n+replaced\n line 339\n line 340\n line 341\n line 342\n",
    );
  });
});

describe("edit replace_all and file details", () => {
  test("edit replace_all replaces every occurrence and reports the count", async () => {
    ws.write("all.txt", "foo bar foo baz foo\n");
    const r = await edit("all.txt", "foo", "qux", { replace_all: true });
    expect(r.status).toBe("success");
    expect(r.data.replacements).toBe(3);
    expect(r.text).toStartWith("Successfully replaced 3 occurrences in all.txt.");
    expect(ws.read("all.txt")).toBe("qux bar qux baz qux\n");
  });

  test("edit replace_all includes fuzzy variants", async () => {
    ws.write("all-fuzzy.txt", "say 'hi'\nsay \u2018hi\u2019\n");
    const r = await edit("all-fuzzy.txt", "say 'hi'", "said", { replace_all: true });
    expect(r.data.replacements).toBe(2);
    expect(ws.read("all-fuzzy.txt")).toBe("said\nsaid\n");
  });

  test("edit keeps the file mode", async () => {
    const file = ws.write("script.sh", "echo old\n");
    chmodSync(file, 0o755);
    await edit("script.sh", "old", "new");
    expect(statSync(file).mode & 0o777).toBe(0o755);
  });

  test("edit of a missing file is NOT_FOUND and suggests write", async () => {
    const r = await edit("nope.txt", "a", "b");
    expect(r.error).toEqual({ code: "NOT_FOUND", message: "File not found: nope.txt" });
  });
});
