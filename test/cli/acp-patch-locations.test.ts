/** ACP tool-call locations for apply_patch: the files a patch names, so the editor can show their diffs. */
import { expect, test } from "bun:test";
import { callLocations } from "../../lib/cli/acp/updates.ts";
import { patchFilePaths } from "../../tools/apply-patch/parser.ts";

const PATCH =
  "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: b.txt\n*** Move to: c.txt\n@@\n-y\n+z\n*** Delete File: d.txt\n*** Update File: b.txt";

test("patchFilePaths lists every file a patch names, once, also while it streams", () => {
  expect(patchFilePaths(PATCH)).toEqual(["a.txt", "b.txt", "c.txt", "d.txt"]);
  expect(patchFilePaths("*** Begin Patch\n*** Update File: half")).toEqual(["half"]);
  expect(patchFilePaths("no patch here")).toEqual([]);
});

test("an apply_patch call's locations are the files its patch names", () => {
  expect(callLocations({ input: PATCH }, (p) => `/w/${p}`)).toEqual([
    { path: "/w/a.txt" },
    { path: "/w/b.txt" },
    { path: "/w/c.txt" },
    { path: "/w/d.txt" },
  ]);
});
