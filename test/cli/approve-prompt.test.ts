/** What a confirmation shows, how a typed answer reads, and the remembered "always" answers. */
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeRequest, nextApprovalMode, parseAnswer, ShellApprovals } from "../../lib/cli/approve-prompt.ts";
import { makeStyle } from "../../lib/cli/render.ts";

const plain = makeStyle(false);
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const shell = (command: string) => ({
  callId: "c1",
  toolName: "bash",
  kind: "shell" as const,
  summary: command,
  args: { command },
  command,
});

test("approvals: a confirmation shows the full command, or the change as removed and added lines", () => {
  expect(describeRequest(shell("rm -rf build && make"), plain)).toBe("  $ rm -rf build && make");
  const edit = describeRequest(
    {
      callId: "c3",
      toolName: "edit",
      kind: "modify",
      summary: "a.ts",
      args: { path: "a.ts", old_text: "let x = 1;", new_text: "const x = 1;" },
    },
    plain,
  );
  expect(edit).toBe("  edit a.ts\n    -let x = 1;\n    +const x = 1;");
});

test("approvals: typed answers — Enter and y allow, a allows always, n with a reason declines with it", () => {
  expect(parseAnswer("")).toEqual({ allow: true });
  expect(parseAnswer("Y")).toEqual({ allow: true });
  expect(parseAnswer("a")).toEqual({ allow: true, always: true, scope: "project" });
  expect(parseAnswer("u")).toEqual({ allow: true, always: true, scope: "user" });
  expect(parseAnswer("n")).toEqual({ allow: false });
  expect(parseAnswer("n use the test script")).toEqual({ allow: false, reason: "use the test script" });
  expect(parseAnswer("no: not now")).toEqual({ allow: false, reason: "not now" });
  expect(parseAnswer("please do not")).toEqual({ allow: false, reason: "please do not" });
  expect([nextApprovalMode("ask"), nextApprovalMode("edits"), nextApprovalMode("auto")]).toEqual([
    "edits",
    "auto",
    "ask",
  ]);
});

test("issue 26: 'always' writes the call's allow rules to the file the answer names, keeping its other keys", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gong-approvals-"));
  dirs.push(dir);
  const files = {
    project: join(dir, "project", ".gong", "settings.local.json"),
    user: join(dir, "home", "settings.json"),
  };
  mkdirSync(join(dir, "home"));
  writeFileSync(files.user, JSON.stringify({ model: "anthropic/x", permissions: { deny: ["Bash(rm *)"] } }));
  const shown: string[] = [];
  const answers = ["a", "u"];
  const approvals = new ShellApprovals(
    "ask",
    files,
    {
      show: (t) => void shown.push(t),
      readLine: async (prompt) => (shown.push(prompt), answers.shift()!),
      settle: (t) => void shown.push(t),
    },
    plain,
  );
  const request = { ...shell("cd src && npm test"), alwaysRules: ["Bash(cd src *)", "Bash(npm test *)"] };
  expect(await approvals.ask(request)).toEqual({ allow: true, always: true, scope: "project" });
  // It says where "always" is kept, for each answer.
  expect(shown.join("")).toContain(
    `a always in this project · u always for you (Bash(cd src *), Bash(npm test *); kept in ${files.project} or ${files.user})`,
  );
  expect(JSON.parse(readFileSync(files.project, "utf8"))).toEqual({
    permissions: { allow: ["Bash(cd src *)", "Bash(npm test *)"] },
  });
  expect(await approvals.ask(request)).toEqual({ allow: true, always: true, scope: "user" });
  expect(JSON.parse(readFileSync(files.user, "utf8"))).toEqual({
    model: "anthropic/x",
    permissions: { deny: ["Bash(rm *)"], allow: ["Bash(cd src *)", "Bash(npm test *)"] },
  });
  expect(shown.join("")).toContain(
    `allowed: $ cd src && npm test (always: Bash(cd src *), Bash(npm test *) saved to ${files.user})`,
  );
});

test("issue 26: a settings file that does not parse is left as it is; the answer holds for the session", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gong-approvals-"));
  dirs.push(dir);
  const file = join(dir, "settings.json");
  writeFileSync(file, "{ not json");
  const shown: string[] = [];
  const approvals = new ShellApprovals(
    "ask",
    { project: file, user: file },
    { show: (t) => void shown.push(t), readLine: async () => "a", settle: (t) => void shown.push(t) },
    plain,
  );
  expect((await approvals.ask({ ...shell("ls"), alwaysRules: ["Bash(ls *)"] })).allow).toBe(true);
  expect(readFileSync(file, "utf8")).toBe("{ not json");
  expect(shown.join("")).toContain("not saved:");
});
