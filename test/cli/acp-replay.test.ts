/** session/load's diffs from stored results: the unified diff an edit returned, or the patch a call was given. */
import { expect, test } from "bun:test";
import { storedDiffs, unifiedDiffHunks } from "../../lib/cli/acp/replay.ts";

const resolve = (p: string) => `/w/${p}`;

test("a unified diff's hunks become old and new texts; lines that look like file headers ('--- x', '+++ y') stay inside their hunk", () => {
  const text = [
    "Edited q.sql: 2 replacements",
    "--- q.sql",
    "+++ q.sql",
    "@@ -1,3 +1,3 @@",
    " select 1;",
    "--- old comment",
    "+++ new comment",
    "",
    "@@ -10,1 +10,1 @@",
    "-a",
    "+b",
    "\\ No newline at end of file",
  ].join("\n");
  expect(unifiedDiffHunks(text)).toEqual([
    { path: "q.sql", oldText: "select 1;\n-- old comment\n\n", newText: "select 1;\n++ new comment\n\n" },
    { path: "q.sql", oldText: "a\n", newText: "b\n" },
  ]);
});

test("a diff cut short by truncation keeps the lines it has; text without a diff has none", () => {
  expect(unifiedDiffHunks("--- a.txt\n+++ a.txt\n@@ -1,5 +1,5 @@\n x\n-y\n+z\n[... 3 lines truncated ...]")).toEqual([
    { path: "a.txt", oldText: "x\ny\n", newText: "x\nz\n" },
  ]);
  expect(unifiedDiffHunks("Successfully wrote 3 bytes to a.txt (created).")).toEqual([]);
});

test("storedDiffs: the result's diff first, else the hunks of a patch argument (added files whole), else nothing", () => {
  expect(storedDiffs("--- a.txt\n+++ a.txt\n@@ -1 +1 @@\n-x\n+y\n", {}, resolve)).toEqual([
    { type: "diff", path: "/w/a.txt", oldText: "x\n", newText: "y\n" },
  ]);
  const patch =
    "*** Begin Patch\n*** Add File: new.txt\n+hello\n*** Update File: b.txt\n*** Move to: c.txt\n@@\n keep\n-old\n+new\n*** Delete File: d.txt\n*** End Patch";
  expect(storedDiffs("Applied the patch to 3 files", { input: patch }, resolve)).toEqual([
    { type: "diff", path: "/w/new.txt", oldText: null, newText: "hello\n" },
    { type: "diff", path: "/w/c.txt", oldText: "keep\nold\n", newText: "keep\nnew\n" },
  ]);
  expect(storedDiffs("Successfully wrote 3 bytes", { path: "a.txt", content: "abc" }, resolve)).toEqual([]);
  expect(storedDiffs("done", { input: "not a patch" }, resolve)).toEqual([]);
});
