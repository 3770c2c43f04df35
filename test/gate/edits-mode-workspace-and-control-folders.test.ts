/**
 * Issue 34, the gate: the `edits` approval mode lets a file change pass only inside the workspace's
 * roots and outside `.git`, `.gong` and `.claude` (whose files run code or widen permissions later:
 * a `.git/config` that sets core.fsmonitor runs on the next read-only `git status`), wherever the
 * path leads — a link out of the workspace included.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { approvalGate, type ApprovalRequest } from "../../lib/gate/approval.ts";
import { tempDir } from "../helpers/temp.ts";
import { pending, PROFILES, rules, toolNamed, type ProfileCall, type ProfileId } from "./helpers.ts";

const place = tempDir("gong-edits-");
const outside = tempDir("gong-edits-out-");
afterAll(() => {
  place.cleanup();
  outside.cleanup();
});
mkdirSync(join(place.dir, ".git"));
symlinkSync(outside.dir, join(place.dir, "elsewhere"));

function writes(profile: ProfileId, path: string): ProfileCall {
  const name = { default: "write", anthropic: "Write", openai: "write_file", gemini: "write_file" }[profile];
  return {
    name: toolNamed(name, profile).name,
    args: name === "write" ? { path, content: "x" } : { file_path: path, content: "x" },
  };
}

describe("issue 34: under edits, which file changes pass unasked", () => {
  for (const profile of PROFILES) {
    test(`under the ${profile} profile's write tool`, async () => {
      const asked: ApprovalRequest[] = [];
      const gate = approvalGate({
        mode: () => "edits",
        ask: async (r) => (asked.push(r), { allow: false }),
        permissions: { rules: rules({}, place.dir), cwd: place.dir, hookDecisions: new WeakMap() },
      });
      const paths = [
        "src/app.ts",
        ".git/config",
        ".gong/settings.local.json",
        "sub/.claude/settings.json",
        "elsewhere/x.txt",
        `${outside.dir}/y.txt`,
      ];
      for (const path of paths) {
        const call = writes(profile, path);
        await gate.hooks.beforeToolCall(call.name, call.args, pending(call, place.dir, profile, path));
      }
      expect(asked.map((r) => r.callId)).toEqual(paths.slice(1));
    });
  }

  test("an apply_patch passes only when every file it changes would", async () => {
    const asked: ApprovalRequest[] = [];
    const gate = approvalGate({
      mode: () => "edits",
      ask: async (r) => (asked.push(r), { allow: false }),
      permissions: { rules: rules({}, place.dir), cwd: place.dir, hookDecisions: new WeakMap() },
    });
    const patch = (files: string[]) =>
      `*** Begin Patch\n${files.map((f) => `*** Add File: ${f}\n+x\n`).join("")}*** End Patch`;
    for (const [id, files] of [
      ["inside", ["a.ts", "src/b.ts"]],
      ["git", ["a.ts", ".git/hooks/pre-commit"]],
    ] as const) {
      const call = { name: "apply_patch", args: { input: patch([...files]) } };
      await gate.hooks.beforeToolCall(call.name, call.args, pending(call, place.dir, "openai", id));
    }
    expect(asked.map((r) => r.callId)).toEqual(["git"]);
  });
});
