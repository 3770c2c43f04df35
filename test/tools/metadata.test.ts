import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as v from "valibot";
import { startReply } from "../../lib/envelope.ts";
import { describeCall, filesOf, kindOf, summarizeResult } from "../../tools/metadata.ts";
import { coreTools } from "../../tools/registry.ts";
import { TOOL_KINDS, type Tool } from "../../tools/types.ts";
import { createWorkspace, type Workspace } from "../helpers/workspace.ts";

let ws: Workspace;
beforeAll(() => {
  ws = createWorkspace("gong-metadata-");
  ws.write("src/app.ts", "const a = 1;\nconst b = 2;\nconst c = 3;\n");
});
afterAll(() => ws.dispose());

const tool = (name: string) => coreTools.find((t) => t.name === name)!;

/** Runs a core tool for real and describes the call and its result. */
async function described(name: string, args: Record<string, unknown>) {
  const response = await ws.run(name, args);
  return {
    call: describeCall(tool(name), args),
    result: summarizeResult(tool(name), response),
    files: filesOf(tool(name), response),
    response,
  };
}

describe("tool metadata", () => {
  test("every core tool declares its kind and both summaries", () => {
    for (const t of coreTools) {
      expect(TOOL_KINDS).toContain(t.kind!);
      expect(typeof t.summarizeCall).toBe("function");
      expect(typeof t.summarizeResult).toBe("function");
    }
    expect(Object.fromEntries(coreTools.map((t) => [t.name, t.kind]))).toEqual({
      read: "read",
      write: "modify",
      edit: "modify",
      bash: "shell",
      grep: "search",
      find: "search",
      ls: "search",
    });
  });

  test("read: the path and range of the call, lines read, the file it read", async () => {
    const whole = await described("read", { path: "src/app.ts" });
    expect(whole.call).toEqual({ kind: "read", call_summary: "src/app.ts" });
    expect(whole.result).toBe("3 lines read");
    expect(whole.files).toEqual(["src/app.ts"]);
    const part = await described("read", { path: "src/app.ts", start_line: 2, limit: 1 });
    expect(part.call.call_summary).toBe("src/app.ts:2-2");
    expect(part.result).toBe("1 line read");
    const missing = await described("read", { path: "nope.ts" });
    expect(missing.result).toBe("File 'nope.ts' does not exist.");
    expect(missing.files).toEqual([]);
  });

  test("write and edit: the file changed and what happened to it", async () => {
    const write = await described("write", { path: "out/new.txt", content: "hello\n" });
    expect(write.call).toEqual({ kind: "modify", call_summary: "out/new.txt" });
    expect(write.result).toBe("created · 6 bytes");
    expect(write.files).toEqual(["out/new.txt"]);
    const edit = await described("edit", { path: "out/new.txt", old_text: "hello", new_text: "bye" });
    expect(edit.call).toEqual({ kind: "modify", call_summary: "out/new.txt" });
    expect(edit.result).toBe("1 replacement");
    expect(edit.files).toEqual(["out/new.txt"]);
  });

  test("bash: the command; exit code and line count, or the last line of a failure", async () => {
    const ok = await described("bash", { command: "printf 'a\\nb\\n'\n  # two lines" });
    expect(ok.call).toEqual({ kind: "shell", call_summary: "printf 'a\\nb\\n' # two lines" });
    expect(ok.result).toBe("exit 0 · 2 lines");
    const failed = await described("bash", {
      command: "echo building; echo 'greet.sh: line 4: nmae: unbound variable'; exit 1",
    });
    expect(failed.result).toBe("exit 1 · greet.sh: line 4: nmae: unbound variable");
    // A long output: the true line count, and a failure's own last line rather than the truncation note.
    const long = await described("bash", { command: "seq 1 10000" });
    expect(long.result).toBe("exit 0 · 10000 lines");
    const longFailure = await described("bash", { command: "seq 1 5000; echo 'fatal: the last word'; exit 2" });
    expect(longFailure.result).toBe("exit 2 · fatal: the last word");
  });

  test("grep, find and ls: what was searched and how much was found", async () => {
    const grep = await described("grep", { pattern: "const", path: "src" });
    expect(grep.call).toEqual({ kind: "search", call_summary: "const in src" });
    expect(grep.result).toBe("3 matches");
    const find = await described("find", { pattern: "*.ts" });
    expect(find.call.call_summary).toBe("*.ts");
    expect(find.result).toBe("1 path");
    const ls = await described("ls", {});
    expect(ls.call).toEqual({ kind: "search", call_summary: "." });
    expect(ls.result).toBe("2 entries");
  });

  test("a long call summary stays on one line and is cut", () => {
    const { call_summary } = describeCall(tool("bash"), { command: `echo ${"x".repeat(300)}\necho y` });
    expect(call_summary.includes("\n")).toBe(false);
    expect(call_summary.length).toBeLessThanOrEqual(100);
    expect(call_summary.endsWith("…")).toBe(true);
  });

  test("a custom tool without metadata gets the defaults; one whose summarizer throws falls back to them", () => {
    const plain: Tool = {
      name: "deploy",
      description: "d",
      schema: v.object({ env: v.string(), dry: v.boolean() }),
      truncation: "head",
      run: async (_a, ctx) => ctx.reply.success({}, "deployed to staging\nmore"),
    };
    expect(kindOf(plain)).toBe("other");
    expect(describeCall(plain, { env: "staging", dry: true })).toEqual({
      kind: "other",
      call_summary: "env=staging dry=true",
    });
    const ok = startReply({}).success({}, "deployed to staging\nmore");
    expect(summarizeResult(plain, ok)).toBe("deployed to staging");
    expect(summarizeResult(plain, startReply({}).fail("TIMEOUT", "The deploy took too long."))).toBe(
      "The deploy took too long.",
    );
    expect(filesOf(plain, startReply({}).success({}, "", { pathResolved: "x.txt" }))).toEqual(["x.txt"]);

    const broken: Tool = {
      ...plain,
      kind: "nonsense" as never,
      summarizeCall: () => {
        throw new Error("bad");
      },
      summarizeResult: () => 42 as never,
      files: () => {
        throw new Error("bad");
      },
    };
    expect(describeCall(broken, { env: "prod", dry: false })).toEqual({
      kind: "other",
      call_summary: "env=prod dry=false",
    });
    expect(summarizeResult(broken, ok)).toBe("deployed to staging");
    expect(filesOf(broken, ok)).toEqual([]);
    expect(describeCall(undefined, "not an object")).toEqual({ kind: "other", call_summary: "" });
  });

  test("an alias spreads the original's metadata and keeps it", () => {
    const alias: Tool = { ...tool("read"), name: "Read" };
    expect(describeCall(alias, { path: "a.ts" })).toEqual({ kind: "read", call_summary: "a.ts" });
  });
});
