/** The line editor's layout and completion, as plain functions (the keys themselves: line-editor.test.ts). */
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { completeInput } from "../../lib/cli/completion.ts";
import { layoutInput, layoutMenu } from "../../lib/cli/line-layout.ts";
import { tempDir } from "../helpers/temp.ts";

test("layout: later lines of a multi-line input are indented under the first; the cursor follows", () => {
  expect(layoutInput("› ", "one\ntwo", 7, 80)).toEqual({ rows: ["› one", "  two"], cursorRow: 1, cursorCol: 5 });
  expect(layoutInput("› ", "one\ntwo", 3, 80)).toEqual({ rows: ["› one", "  two"], cursorRow: 0, cursorCol: 5 });
});

test("layout: rows break at the width; a cursor after a full row stands on the next; wide characters do not straddle", () => {
  expect(layoutInput("> ", "abcdefgh", 8, 10)).toEqual({ rows: ["> abcdefgh", ""], cursorRow: 1, cursorCol: 0 });
  expect(layoutInput("> ", "abcdefghij", 3, 10)).toEqual({ rows: ["> abcdefgh", "ij"], cursorRow: 0, cursorCol: 5 });
  expect(layoutInput("> ", "abcdefg界x", 8, 10).rows).toEqual(["> abcdefg", "界x"]);
  expect(layoutInput("> ", "a\tb", 2, 20)).toEqual({ rows: ["> a    b"], cursorRow: 0, cursorCol: 7 });
});

test("layout: a long list of candidates is cut with a count of the rest", () => {
  const labels = Array.from({ length: 30 }, (_, i) => `file${i}.ts`);
  const rows = layoutMenu(labels, 40, 3);
  expect(rows.length).toBe(3);
  expect(rows[2]).toBe(`… ${30 - 2 * 3} more`);
});

test("completion: slash commands by prefix; @paths from the workspace, hidden ones only after a dot", () => {
  const commands = [
    { name: "model", usage: "/model [id]", help: "switch" },
    { name: "name", usage: "/name", help: "name it" },
  ];
  expect(completeInput("/mo", 3, "/", commands)).toEqual({
    start: 0,
    end: 3,
    items: [{ value: "/model ", label: "/model [id]  switch" }],
  });
  expect(completeInput("say /mo", 7, "/", commands)).toBeNull();

  const ws = tempDir("gong-complete-");
  try {
    mkdirSync(join(ws.dir, "src", "lib"), { recursive: true });
    writeFileSync(join(ws.dir, "src", "main.ts"), "");
    writeFileSync(join(ws.dir, "src", ".env"), "");
    const all = completeInput("see @src/", 9, ws.dir, commands)!;
    expect(all.start).toBe(4);
    expect(all.items.map((i) => i.label)).toEqual(["lib/", "main.ts"]);
    expect(completeInput("see @src/m and more", 10, ws.dir, commands)!.items).toEqual([
      { value: "@src/main.ts ", label: "main.ts" },
    ]);
    expect(completeInput("@src/.", 6, ws.dir, commands)!.items.map((i) => i.label)).toEqual([".env"]);
    expect(completeInput("@nowhere/", 9, ws.dir, commands)!.items).toEqual([]);
  } finally {
    ws.cleanup();
  }
});

test("issue 40 item 5: the input wraps at word boundaries; a word wider than a row breaks inside it; the cursor follows", () => {
  const layout = layoutInput("› ", "the quick brown fox jumps", 25, 14);
  expect(layout.rows).toEqual(["› the quick ", "brown fox ", "jumps"]);
  expect(layout).toMatchObject({ cursorRow: 2, cursorCol: 5 });
  // The cursor inside a word that moved to the next row moves with it.
  expect(layoutInput("› ", "the quick brown", 12, 14)).toMatchObject({ cursorRow: 1, cursorCol: 2 });
  expect(layoutInput("› ", "abcdefghijklmnopqrstu", 21, 10).rows).toEqual(["› abcdefgh", "ijklmnopqr", "stu"]);
});
