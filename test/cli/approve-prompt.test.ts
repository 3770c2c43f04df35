/** What a confirmation shows, how a typed answer reads, and the remembered "always" answers. */
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AllowList, allowKey, describeRequest, nextApprovalMode, parseAnswer } from "../../lib/cli/approve-prompt.ts";
import { makeStyle } from "../../lib/cli/render.ts";

const plain = makeStyle(false);
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const shell = (command: string) => ({ callId: "c1", toolName: "bash", kind: "shell" as const, summary: command, args: { command } });

test("approvals: the prefix 'always' covers is the command and a plain sub-command", () => {
  expect(allowKey(shell("npm test -- --watch"))).toBe("bash: npm test");
  expect(allowKey(shell("git status"))).toBe("bash: git status");
  expect(allowKey(shell("ls -la src"))).toBe("bash: ls");
  expect(allowKey({ callId: "c2", toolName: "edit", kind: "modify", summary: "a.ts", args: { path: "a.ts" } })).toBe("edit");
});

test("approvals: a confirmation shows the full command, or the change as removed and added lines", () => {
  expect(describeRequest(shell("rm -rf build && make"), plain)).toBe("  $ rm -rf build && make");
  const edit = describeRequest({ callId: "c3", toolName: "edit", kind: "modify", summary: "a.ts", args: { path: "a.ts", old_text: "let x = 1;", new_text: "const x = 1;" } }, plain);
  expect(edit).toBe("  edit a.ts\n    -let x = 1;\n    +const x = 1;");
});

test("approvals: typed answers — Enter and y allow, a allows always, n with a reason declines with it", () => {
  expect(parseAnswer("")).toEqual({ allow: true });
  expect(parseAnswer("Y")).toEqual({ allow: true });
  expect(parseAnswer("a")).toEqual({ allow: true, always: true });
  expect(parseAnswer("n")).toEqual({ allow: false });
  expect(parseAnswer("n use the test script")).toEqual({ allow: false, reason: "use the test script" });
  expect(parseAnswer("no: not now")).toEqual({ allow: false, reason: "not now" });
  expect(parseAnswer("please do not")).toEqual({ allow: false, reason: "please do not" });
  expect([nextApprovalMode("ask"), nextApprovalMode("edits"), nextApprovalMode("auto")]).toEqual(["edits", "auto", "ask"]);
});

test("approvals: always-allowed prefixes are kept per project in one file", () => {
  const dir = mkdtempSync(join(tmpdir(), "gong-approvals-"));
  dirs.push(dir);
  const file = join(dir, "approvals.json");
  new AllowList("/p/one", file).add("bash: npm test");
  expect(new AllowList("/p/one", file).has("bash: npm test")).toBe(true);
  expect(new AllowList("/p/two", file).has("bash: npm test")).toBe(false);
  expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ "/p/one": ["bash: npm test"] });
});
