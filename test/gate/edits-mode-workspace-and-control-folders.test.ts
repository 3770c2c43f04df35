/**
 * Issue 34, the gate: the `edits` approval mode lets a file change pass only inside the workspace's
 * roots and outside `.git`, `.gong` and `.claude` (whose files run code or widen permissions later:
 * a `.git/config` that sets core.fsmonitor runs on the next read-only `git status`), wherever the
 * path leads — a link out of the workspace included.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/temp.ts";
import { askingGate, PROFILE_CALLS, PROFILES } from "./helpers.ts";

const place = tempDir("gong-edits-");
const outside = tempDir("gong-edits-out-");
afterAll(() => {
  place.cleanup();
  outside.cleanup();
});
mkdirSync(join(place.dir, ".git"));
symlinkSync(outside.dir, join(place.dir, "elsewhere"));

describe("issue 34: under edits, which file changes pass unasked", () => {
  for (const profile of PROFILES) {
    test(`under the ${profile} profile's write tool`, async () => {
      const { asked, call } = askingGate("edits", place.dir);
      const paths = [
        "src/app.ts",
        ".git/config",
        ".gong/settings.local.json",
        "sub/.claude/settings.json",
        "elsewhere/x.txt",
        `${outside.dir}/y.txt`,
      ];
      for (const path of paths) await call(PROFILE_CALLS[profile].write(path), profile, path);
      expect(asked.map((r) => r.callId)).toEqual(paths.slice(1));
    });
  }

  test("an apply_patch passes only when every file it changes would", async () => {
    const { asked, call } = askingGate("edits", place.dir);
    const patch = (files: string[]) =>
      `*** Begin Patch\n${files.map((f) => `*** Add File: ${f}\n+x\n`).join("")}*** End Patch`;
    for (const [id, files] of [
      ["inside", ["a.ts", "src/b.ts"]],
      ["git", ["a.ts", ".git/hooks/pre-commit"]],
    ] as const)
      await call({ name: "apply_patch", args: { input: patch([...files]) } }, "openai", id);
    expect(asked.map((r) => r.callId)).toEqual(["git"]);
  });
});
