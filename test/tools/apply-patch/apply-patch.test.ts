/**
 * apply_patch through the tool registry: the operations and matching levels of the V4A format
 * (docs/conformance.md: 004 Appendix A), the all-or-nothing rule, line endings, and errors that
 * name the patch line.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LocalEnvironment } from "../../../lib/env/local.ts";
import { ToolError } from "../../../lib/envelope.ts";
import { applyPatch, parsePatch, PatchParseError } from "../../../tools/apply-patch/index.ts";
import { createToolRegistry, type ToolRegistry } from "../../../tools/registry.ts";
import { createWorkspace, type Workspace } from "../../helpers/workspace.ts";

let ws: Workspace;
let registry: ToolRegistry;
beforeAll(() => {
  ws = createWorkspace("gong-apply-patch-");
  registry = createToolRegistry({ cwd: ws.root, env: ws.env, preset: ["default", "apply_patch"] });
});
afterAll(() => ws.dispose());

const patch = (...lines: string[]) => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n");
const apply = (input: string) => registry.execute("apply_patch", { input });

describe("Appendix A operations", () => {
  test("A add file: creates the file and its directories", async () => {
    const r = await apply(
      patch("*** Add File: src/utils/helpers.py", "+def greet(name):", '+    return f"Hello, {name}!"'),
    );
    expect(r.status).toBe("success");
    expect(ws.read("src/utils/helpers.py")).toBe('def greet(name):\n    return f"Hello, {name}!"\n');
    expect(r.data.files).toEqual([{ op: "A", path: "src/utils/helpers.py", added: 2, removed: 0 }]);
    expect(r.text).toStartWith("Applied the patch to 1 file (+2 -0):\nA src/utils/helpers.py (+2 -0)");
  });

  test("A delete file: removes it", async () => {
    ws.write("src/old_module.py", "x = 1\ny = 2\n");
    const r = await apply(patch("*** Delete File: src/old_module.py"));
    expect(r.status).toBe("success");
    expect(existsSync(ws.path("src/old_module.py"))).toBe(false);
    expect(r.data.files).toEqual([{ op: "D", path: "src/old_module.py", added: 0, removed: 2 }]);
  });

  test("A update file: context located by the @@ line, only changed lines rewritten", async () => {
    ws.write("src/main.py", 'import sys\n\ndef main():\n    print("Hello")\n    return 0\n');
    const r = await apply(
      patch(
        "*** Update File: src/main.py",
        "@@ def main():",
        '     print("Hello")',
        "-    return 0",
        '+    print("World")',
        "+    return 1",
      ),
    );
    expect(r.status).toBe("success");
    expect(ws.read("src/main.py")).toBe(
      'import sys\n\ndef main():\n    print("Hello")\n    print("World")\n    return 1\n',
    );
    expect(r.data.files).toEqual([{ op: "M", path: "src/main.py", added: 2, removed: 1 }]);
    expect(r.data.diff).toBe(
      '--- a/src/main.py\n+++ b/src/main.py\n@@ -2,4 +2,5 @@\n \n def main():\n     print("Hello")\n-    return 0\n+    print("World")\n+    return 1\n',
    );
  });

  test("A update + rename: edits and moves in one operation", async () => {
    ws.write("old_name.py", "import os\nimport sys\nimport old_dep\n");
    const r = await apply(
      patch(
        "*** Update File: old_name.py",
        "*** Move to: new_name.py",
        "@@ import os",
        " import sys",
        "-import old_dep",
        "+import new_dep",
      ),
    );
    expect(r.status).toBe("success");
    expect(existsSync(ws.path("old_name.py"))).toBe(false);
    expect(ws.read("new_name.py")).toBe("import os\nimport sys\nimport new_dep\n");
    expect(r.data.files).toEqual([{ op: "R", path: "old_name.py", move_path: "new_name.py", added: 1, removed: 1 }]);
    expect(r.text).toContain("R old_name.py -> new_name.py (+1 -1)");
  });

  test("A multi-hunk update: two @@ hunks in one file", async () => {
    ws.write(
      "src/config.py",
      'DEFAULT_TIMEOUT = 30\n\ndef load_config():\n    config = {}\n    config["debug"] = False\n    return config\n',
    );
    const r = await apply(
      patch(
        "*** Update File: src/config.py",
        "@@ DEFAULT_TIMEOUT = 30",
        "-DEFAULT_TIMEOUT = 30",
        "+DEFAULT_TIMEOUT = 60",
        "@@ def load_config():",
        "     config = {}",
        '-    config["debug"] = False',
        '+    config["debug"] = True',
      ),
    );
    expect(r.status).toBe("success");
    expect(ws.read("src/config.py")).toBe(
      'DEFAULT_TIMEOUT = 60\n\ndef load_config():\n    config = {}\n    config["debug"] = True\n    return config\n',
    );
  });

  test("move with edits into a new directory keeps the file's mode", async () => {
    ws.write("tool.sh", "#!/bin/sh\necho old\n");
    await ws.env.writeFile(ws.path("tool.sh"), "#!/bin/sh\necho old\n", { mode: 0o755 });
    const r = await apply(
      patch("*** Update File: tool.sh", "*** Move to: bin/deep/tool.sh", "@@", " #!/bin/sh", "-echo old", "+echo new"),
    );
    expect(r.status).toBe("success");
    expect(ws.read("bin/deep/tool.sh")).toBe("#!/bin/sh\necho new\n");
    expect((await ws.env.stat(ws.path("bin/deep/tool.sh")))?.mode).toBe(0o755);
    expect(existsSync(ws.path("tool.sh"))).toBe(false);
  });

  test("nested @@ headers narrow the place down: class, then method", async () => {
    ws.write(
      "nested.py",
      "class A:\n    def run(self):\n        return 1\n\nclass B:\n    def run(self):\n        return 1\n",
    );
    const r = await apply(
      patch(
        "*** Update File: nested.py",
        "@@ class B:",
        "@@     def run(self):",
        "-        return 1",
        "+        return 2",
      ),
    );
    expect(r.status).toBe("success");
    expect(ws.read("nested.py")).toBe(
      "class A:\n    def run(self):\n        return 1\n\nclass B:\n    def run(self):\n        return 2\n",
    );
  });

  test("*** End of File: the hunk matches the end even when the lines occur earlier", async () => {
    ws.write("tail.txt", "end\nmiddle\nend\n");
    const r = await apply(patch("*** Update File: tail.txt", "@@", "-end", "+END", "*** End of File"));
    expect(r.status).toBe("success");
    expect(ws.read("tail.txt")).toBe("end\nmiddle\nEND\n");
  });

  test("*** End of File is still sought after the @@ line, never before it", async () => {
    ws.write("tail2.txt", "x\nbody\n}\n");
    const r = await apply(patch("*** Update File: tail2.txt", "@@ }", " body", "-}", "+};", "*** End of File"));
    expect(r.status).toBe("error");
    expect(r.error?.message).toContain(
      "could not find the hunk's context and removed lines in tail2.txt after the '@@ }' line at the end of the file",
    );
    expect(ws.read("tail2.txt")).toBe("x\nbody\n}\n");
  });

  test("a hunk without old lines appends to the end of the file", async () => {
    ws.write("append.txt", "one\ntwo\n");
    const r = await apply(patch("*** Update File: append.txt", "@@", "+three"));
    expect(r.status).toBe("success");
    expect(ws.read("append.txt")).toBe("one\ntwo\nthree\n");
  });

  test("a blank line in a hunk is an empty context line", async () => {
    ws.write("blank.txt", "a\n\nb\n");
    const r = await apply(
      ["*** Begin Patch", "*** Update File: blank.txt", "@@", " a", "", "-b", "+B", "*** End Patch"].join("\n"),
    );
    expect(r.status).toBe("success");
    expect(ws.read("blank.txt")).toBe("a\n\nB\n");
  });
});

describe("Appendix A hunk matching", () => {
  test("exact match", async () => {
    ws.write("m-exact.txt", "alpha\nbeta\ngamma\n");
    const r = await apply(patch("*** Update File: m-exact.txt", "@@", " alpha", "-beta", "+BETA", " gamma"));
    expect(ws.read("m-exact.txt")).toBe("alpha\nBETA\ngamma\n");
    expect(r.data.fuzzy_matches).toEqual([]);
  });

  test("trailing whitespace ignored: the context line keeps its trailing spaces", async () => {
    ws.write("m-trailing.txt", "alpha   \nbeta\t\ngamma\n");
    const r = await apply(patch("*** Update File: m-trailing.txt", "@@", " alpha", "-beta", "+BETA", " gamma"));
    expect(ws.read("m-trailing.txt")).toBe("alpha   \nBETA\ngamma\n");
    expect(r.data.fuzzy_matches).toEqual([{ path: "m-trailing.txt", patch_line: 3, level: "trailing_whitespace" }]);
    expect(r.text).toContain("matched only after ignoring whitespace or punctuation differences");
  });

  test("surrounding whitespace ignored: indentation of untouched lines is kept", async () => {
    ws.write("m-indent.py", "def f():\n        x = 1\n        return x\n");
    const r = await apply(
      patch("*** Update File: m-indent.py", "@@", " def f():", "    x = 1", "-    return x", "+        return x + 1"),
    );
    expect(r.status).toBe("success");
    expect(ws.read("m-indent.py")).toBe("def f():\n        x = 1\n        return x + 1\n");
    expect(r.data.fuzzy_matches).toEqual([expect.objectContaining({ level: "surrounding_whitespace" })]);
  });

  test("Unicode punctuation folded: curly quotes, dashes and non-breaking spaces match ASCII", async () => {
    ws.write("m-unicode.py", "msg = \u201Chello\u201D  # it\u2019s a \u2013 test\nvalue\u00A0= 1\n");
    const r = await apply(
      patch("*** Update File: m-unicode.py", "@@", ' msg = "hello"  # it\'s a - test', "-value = 1", "+value = 2"),
    );
    expect(r.status).toBe("success");
    expect(ws.read("m-unicode.py")).toBe("msg = \u201Chello\u201D  # it\u2019s a \u2013 test\nvalue = 2\n");
    expect(r.data.fuzzy_matches).toEqual([expect.objectContaining({ level: "punctuation" })]);
  });

  test("an exact match later in the file wins over a fuzzy one earlier", async () => {
    ws.write("m-order.txt", "key = 1  \nother\nkey = 1\n");
    await apply(patch("*** Update File: m-order.txt", "@@", "-key = 1", "+key = 2"));
    expect(ws.read("m-order.txt")).toBe("key = 1  \nother\nkey = 2\n");
  });

  test("context occurring twice: the @@ header decides which one", async () => {
    ws.write("twice.py", "def a():\n    x = 1\n    return x\n\ndef b():\n    x = 1\n    return x\n");
    const r = await apply(
      patch("*** Update File: twice.py", "@@ def b():", "     x = 1", "-    return x", "+    return x * 2"),
    );
    expect(r.status).toBe("success");
    expect(ws.read("twice.py")).toBe("def a():\n    x = 1\n    return x\n\ndef b():\n    x = 1\n    return x * 2\n");
  });
});

describe("line endings, BOM and the final newline are kept", () => {
  test("CRLF file: untouched lines keep CRLF and new lines get CRLF", async () => {
    ws.write("crlf.txt", "one\r\ntwo\r\nthree\r\n");
    const r = await apply(
      patch("*** Update File: crlf.txt", "@@", " one", "-two", "+TWO", "+two and a half", " three"),
    );
    expect(r.status).toBe("success");
    expect(ws.read("crlf.txt")).toBe("one\r\nTWO\r\ntwo and a half\r\nthree\r\n");
  });

  test("a patch sent with CRLF line breaks applies to an LF file", async () => {
    ws.write("lf.txt", "one\ntwo\n");
    const r = await apply(patch("*** Update File: lf.txt", "@@", " one", "-two", "+2").replaceAll("\n", "\r\n"));
    expect(r.status).toBe("success");
    expect(ws.read("lf.txt")).toBe("one\n2\n");
  });

  test("a file without a final newline still has none", async () => {
    ws.write("nofinal.txt", "a\nb\nc");
    const r = await apply(patch("*** Update File: nofinal.txt", "@@", " b", "-c", "+C"));
    expect(r.status).toBe("success");
    expect(ws.read("nofinal.txt")).toBe("a\nb\nC");
    await apply(patch("*** Update File: nofinal.txt", "@@", "+D"));
    expect(ws.read("nofinal.txt")).toBe("a\nb\nC\nD");
  });

  test("non-ASCII lines added to an ASCII file are written as UTF-8", async () => {
    ws.write("ascii.txt", "plain\nend");
    const r = await apply(patch("*** Update File: ascii.txt", "@@", " plain", "+caf\u00e9 \u2014 \u{1F600}"));
    expect(r.status).toBe("success");
    expect(ws.read("ascii.txt")).toBe("plain\ncaf\u00e9 \u2014 \u{1F600}\nend");
  });

  test("a BOM stays in front of the file and does not hide the first line", async () => {
    ws.write("bom.txt", "\uFEFFfirst\nsecond\n");
    const r = await apply(patch("*** Update File: bom.txt", "@@", "-first", "+FIRST", " second"));
    expect(r.status).toBe("success");
    expect(ws.read("bom.txt")).toBe("\uFEFFFIRST\nsecond\n");
  });
});

describe("all or nothing", () => {
  test("three files whose third hunk fails: nothing changes", async () => {
    ws.write("t1.txt", "one\n");
    ws.write("t2.txt", "two\n");
    ws.write("t3.txt", "three\n");
    const r = await apply(
      patch(
        "*** Update File: t1.txt",
        "@@",
        "-one",
        "+ONE",
        "*** Delete File: t2.txt",
        "*** Add File: t4.txt",
        "+four",
        "*** Update File: t3.txt",
        "@@",
        "-not there",
        "+x",
      ),
    );
    expect(r.status).toBe("error");
    expect(r.error?.code).toBe("INVALID_PARAM");
    expect(r.error?.message).toContain("Line 10: could not find the hunk's context and removed lines in t3.txt");
    expect(r.error?.message).toContain("  not there");
    expect(r.error?.message).toContain("Nothing was changed.");
    expect(ws.read("t1.txt")).toBe("one\n");
    expect(ws.read("t2.txt")).toBe("two\n");
    expect(existsSync(ws.path("t4.txt"))).toBe(false);
  });

  test("a patch outside the workspace is ACCESS_DENIED and changes nothing", async () => {
    ws.write("inside.txt", "in\n");
    const r = await apply(
      patch("*** Update File: inside.txt", "@@", "-in", "+IN", "*** Add File: ../outside/evil.txt", "+x"),
    );
    expect(r.error?.code).toBe("ACCESS_DENIED");
    expect(r.error?.message).toStartWith("Line 6 ('../outside/evil.txt'): Access denied");
    expect(ws.read("inside.txt")).toBe("in\n");
    expect(existsSync(join(ws.outside, "evil.txt"))).toBe(false);
  });

  test("an absolute path inside the workspace is accepted; a symlink leading out is ACCESS_DENIED", async () => {
    const r = await apply(patch(`*** Add File: ${ws.path("abs/inside.txt")}`, "+ok"));
    expect(r.status).toBe("success");
    expect(r.data.files).toEqual([{ op: "A", path: "abs/inside.txt", added: 1, removed: 0 }]);
    writeFileSync(join(ws.outside, "target.txt"), "outside\n");
    symlinkSync(join(ws.outside, "target.txt"), ws.path("link.txt"));
    const out = await apply(patch("*** Update File: link.txt", "@@", "-outside", "+changed"));
    expect(out.error?.code).toBe("ACCESS_DENIED");
    expect(readFileSync(join(ws.outside, "target.txt"), "utf8")).toBe("outside\n");
  });

  test("a deleted file's path can become a directory in the same patch", async () => {
    ws.write("was-file", "x\n");
    const r = await apply(patch("*** Delete File: was-file", "*** Add File: was-file/inner.txt", "+y"));
    expect(r.status).toBe("success");
    expect(ws.read("was-file/inner.txt")).toBe("y\n");
  });

  test("a write that fails at the end puts back the files already written", async () => {
    ws.write("restored.txt", "before\n");
    ws.write("gone.txt", "deleted, then restored\n");
    ws.write("blocker.txt", "a file, not a directory\n");
    const r = await apply(
      patch(
        "*** Update File: restored.txt",
        "@@",
        "-before",
        "+after",
        "*** Delete File: gone.txt",
        "*** Add File: blocker.txt/inner.txt",
        "+x",
      ),
    );
    expect(r.status).toBe("error");
    expect(ws.read("gone.txt")).toBe("deleted, then restored\n");
    expect(r.error?.message).toContain("the files already written were restored, so nothing was changed");
    expect(ws.read("restored.txt")).toBe("before\n");
    expect(ws.read("blocker.txt")).toBe("a file, not a directory\n");
  });

  test("updating a missing file is NOT_FOUND", async () => {
    const r = await apply(patch("*** Update File: nowhere.txt", "@@", "-a", "+b"));
    expect(r.error?.code).toBe("NOT_FOUND");
    expect(r.error?.message).toContain("Line 2 ('nowhere.txt'): cannot update 'nowhere.txt', no such file.");
  });

  test("deleting a directory is refused", async () => {
    mkdirSync(ws.path("adir"), { recursive: true });
    const r = await apply(patch("*** Delete File: adir"));
    expect(r.error?.code).toBe("IS_DIRECTORY");
    expect(existsSync(ws.path("adir"))).toBe(true);
  });

  test("two spellings of one path are one file", async () => {
    ws.write("spelled.txt", "a\nb\n");
    const r = await apply(
      patch("*** Update File: spelled.txt", "@@", "-a", "+A", "*** Update File: ./spelled.txt", "@@", "-b", "+B"),
    );
    expect(r.status).toBe("success");
    expect(ws.read("spelled.txt")).toBe("A\nB\n");
  });

  test("a later operation on the same file sees the earlier one's result", async () => {
    ws.write("twice-edit.txt", "a\nb\n");
    const r = await apply(
      patch("*** Update File: twice-edit.txt", "@@", "-a", "+A", "*** Update File: twice-edit.txt", "@@", "-A", "+AA"),
    );
    expect(r.status).toBe("success");
    expect(ws.read("twice-edit.txt")).toBe("AA\nb\n");
  });
});

describe("malformed patches name the line and what was expected", () => {
  test("an empty patch", async () => {
    const r = await apply(patch());
    expect(r.error?.code).toBe("INVALID_PARAM");
    expect(r.error?.message).toContain("The patch has no file operations");
    const blank = await apply("   \n");
    expect(blank.error?.message).toContain("Invalid patch at line 1: the patch is empty");
  });

  test("a missing Begin line", async () => {
    const r = await apply("*** Update File: a.txt\n@@\n-a\n+b\n*** End Patch");
    expect(r.error?.message).toBe(
      "Invalid patch at line 1: expected '*** Begin Patch' as the first line, found '*** Update File: a.txt'. A patch starts with '*** Begin Patch' and ends with '*** End Patch'. Nothing was changed.",
    );
  });

  test("a missing End line", async () => {
    const r = await apply("*** Begin Patch\n*** Add File: x.txt\n+x");
    expect(r.error?.message).toContain(
      "Invalid patch at line 3: expected '*** End Patch' as the last line, found '+x'.",
    );
  });

  test("an unknown *** header", async () => {
    const r = await apply(patch("*** Add File: ok.txt", "+ok", "*** Rename File: a.txt"));
    expect(r.error?.message).toBe(
      "Invalid patch at line 4: '*** Rename File: a.txt' is not a file operation; expected '*** Add File: <path>', '*** Delete File: <path>' or '*** Update File: <path>'. Nothing was changed.",
    );
    expect(existsSync(ws.path("ok.txt"))).toBe(false);
  });

  test("a hunk line without a prefix", async () => {
    const r = await apply(patch("*** Update File: a.txt", "@@", "no prefix"));
    expect(r.error?.message).toContain(
      "Invalid patch at line 4: expected a context line (starting with ' '), a removed line ('-') or an added line ('+'), found 'no prefix'.",
    );
  });

  test("an update without hunks", async () => {
    const r = await apply(patch("*** Update File: a.txt"));
    expect(r.error?.message).toContain("Invalid patch at line 2: '*** Update File: a.txt' has no changes");
  });

  test("a second hunk without its @@ header", async () => {
    ws.write("second.txt", "a\nb\n");
    const r = await apply(patch("*** Update File: second.txt", "@@", "-a", "+A", "*** End of File", "-b"));
    expect(r.error?.message).toContain(
      "Invalid patch at line 7: expected a hunk header '@@' or '@@ <line near the change>', found '-b'.",
    );
  });

  test("a patch wrapped in a heredoc is unwrapped", async () => {
    const r = await apply(`<<'EOF'\n${patch("*** Add File: heredoc.txt", "+hi")}\nEOF\n`);
    expect(r.status).toBe("success");
    expect(ws.read("heredoc.txt")).toBe("hi\n");
  });

  test("the tool is only active when asked for, and its arguments are checked", async () => {
    expect(ws.registry.names()).not.toContain("apply_patch");
    expect(registry.names()).toEqual(["read", "write", "edit", "bash", "grep", "find", "ls", "apply_patch"]);
    const r = await registry.execute("apply_patch", { patch: "x" });
    expect(r.error?.code).toBe("INVALID_PARAM");
  });
});

describe("metadata for renderers and the loop", () => {
  test("a modifying tool; the call names its files, the result counts them, files lists what changed", async () => {
    const tool = registry.get("apply_patch")!;
    expect(tool.kind).toBe("modify");
    const input = patch(
      "*** Add File: m1.txt",
      "+x",
      "*** Update File: m0.txt",
      "*** Move to: m2.txt",
      "@@",
      "-a",
      "+b",
    );
    expect(tool.summarizeCall!({ input })).toBe("m1.txt, m0.txt, m2.txt");
    expect(
      tool.summarizeCall!({
        input: "*** Begin Patch\n*** Add File: a\n*** Delete File: b\n*** Delete File: c\n*** Add File: d",
      }),
    ).toBe("a, b (+2 more)");
    expect(tool.summarizeCall!({})).toBe("");
    ws.write("m0.txt", "a\n");
    const r = await apply(input);
    expect(tool.summarizeResult!(r)).toBe("2 files · +2 -1");
    expect(tool.files!(r)).toEqual(["m1.txt", "m0.txt", "m2.txt"]);
  });
});

describe("SDK functions", () => {
  test("parsePatch returns the operations; a malformed patch throws PatchParseError with the line", () => {
    const parsed = parsePatch(
      patch(
        "*** Add File: a.txt",
        "+a",
        "*** Update File: b.txt",
        "*** Move to: c.txt",
        "@@ top",
        " ctx",
        "-old",
        "+new",
      ),
    );
    expect(parsed.ops).toEqual([
      { type: "add", path: "a.txt", contents: "a\n", line: 2 },
      {
        type: "update",
        path: "b.txt",
        movePath: "c.txt",
        line: 4,
        chunks: [
          {
            contexts: ["top"],
            lines: [
              { kind: " ", text: "ctx" },
              { kind: "-", text: "old" },
              { kind: "+", text: "new" },
            ],
            oldLines: ["ctx", "old"],
            newLines: ["ctx", "new"],
            isEndOfFile: false,
            line: 6,
          },
        ],
      },
    ]);
    let caught: unknown;
    try {
      parsePatch("nope");
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(PatchParseError);
    expect((caught as PatchParseError).line).toBe(1);
  });

  test("applyPatch applies in a directory and reports the changes; failures throw ToolError", async () => {
    const dir = join(ws.base, "sdk");
    mkdirSync(dir);
    const outcome = await applyPatch(patch("*** Add File: hello.txt", "+hello"), { cwd: dir });
    expect(outcome.changes).toEqual([
      {
        op: "A",
        path: "hello.txt",
        added: 1,
        removed: 0,
        diff: "--- /dev/null\n+++ b/hello.txt\n@@ -0,0 +1,1 @@\n+hello\n",
      },
    ]);
    const env = new LocalEnvironment({ root: dir });
    await expect(applyPatch(patch("*** Delete File: missing.txt"), { env })).rejects.toBeInstanceOf(ToolError);
  });

  test("headerMayNameChangedLine: false rejects an @@ line naming the changed line, as codex does", async () => {
    const dir = join(ws.base, "sdk-strict");
    mkdirSync(dir);
    writeFileSync(join(dir, "config.py"), "DEFAULT_TIMEOUT = 30\n");
    const appendixA = patch(
      "*** Update File: config.py",
      "@@ DEFAULT_TIMEOUT = 30",
      "-DEFAULT_TIMEOUT = 30",
      "+DEFAULT_TIMEOUT = 60",
    );
    await expect(applyPatch(appendixA, { cwd: dir, headerMayNameChangedLine: false })).rejects.toThrow(
      "could not find the hunk's context and removed lines in config.py after the '@@ DEFAULT_TIMEOUT = 30' line",
    );
    expect(readFileSync(join(dir, "config.py"), "utf8")).toBe("DEFAULT_TIMEOUT = 30\n");
    await applyPatch(appendixA, { cwd: dir });
    expect(readFileSync(join(dir, "config.py"), "utf8")).toBe("DEFAULT_TIMEOUT = 60\n");
  });
});

describe("issue 22 item 8: a patch that overwrites a file says so", () => {
  test("*** Add File over an existing file: replaced, in the data and the text", async () => {
    ws.write("notes/existing.md", "old one\nold two\n");
    const r = await apply(patch("*** Add File: notes/existing.md", "+new"));
    expect(r.status).toBe("success");
    expect(ws.read("notes/existing.md")).toBe("new\n");
    expect(r.data.files).toEqual([{ op: "A", path: "notes/existing.md", added: 1, removed: 0, replaced: true }]);
    expect(r.text).toContain("A notes/existing.md (+1 -0) — replaced existing file notes/existing.md");
  });

  test("*** Move to: onto an existing file: replaced, in the data and the text; a plain add or move is not", async () => {
    ws.write("mv/src.txt", "a\nb\n");
    ws.write("mv/dest.txt", "was here\n");
    const r = await apply(patch("*** Update File: mv/src.txt", "*** Move to: mv/dest.txt", "@@", " a", "-b", "+c"));
    expect(r.status).toBe("success");
    expect(ws.read("mv/dest.txt")).toBe("a\nc\n");
    expect(existsSync(ws.path("mv/src.txt"))).toBe(false);
    expect(r.data.files).toEqual([
      { op: "R", path: "mv/src.txt", move_path: "mv/dest.txt", added: 1, removed: 1, replaced: true },
    ]);
    expect(r.text).toContain("R mv/src.txt -> mv/dest.txt (+1 -1) — replaced existing file mv/dest.txt");
    const plain = await apply(
      patch(
        "*** Add File: mv/fresh.txt",
        "+x",
        "*** Update File: mv/dest.txt",
        "*** Move to: mv/other.txt",
        "@@",
        " a",
        "-c",
        "+d",
      ),
    );
    expect((plain.data.files as Array<{ replaced?: boolean }>).every((f) => f.replaced === undefined)).toBe(true);
    expect(plain.text).not.toContain("replaced");
  });
});
