/** What a confirmation shows, the answers its menu offers, and the remembered "always" answers. */
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AnswerReader,
  describeRequest,
  displayPath,
  nextApprovalMode,
  ShellApprovals,
} from "../../lib/cli/approve-prompt.ts";
import { Menu, type MenuOptions } from "../../lib/cli/menu.ts";
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

/** A reader answering each question with the next typed line, as the menu reads it; what it showed is kept. */
function reader(answers: string[], shown: string[]): AnswerReader {
  return {
    async choose<T>(options: MenuOptions<T>) {
      const menu = new Menu(options, plain);
      shown.push(menu.view(200).rows.join("\n"));
      return menu.answer(answers.shift()!);
    },
    settle: (t) => void shown.push(t),
  };
}

test("approvals: a confirmation shows the full command, or the change as removed and added lines, its path from the project", () => {
  expect(describeRequest(shell("rm -rf build && make"), plain)).toBe("  $ rm -rf build && make");
  const edit = describeRequest(
    {
      callId: "c3",
      toolName: "edit",
      kind: "modify",
      summary: "a.ts",
      args: { path: "/work/project/src/a.ts", old_text: "let x = 1;", new_text: "const x = 1;" },
    },
    plain,
    "/work/project",
  );
  expect(edit).toBe("  edit src/a.ts\n    -let x = 1;\n    +const x = 1;");
  expect(displayPath("/elsewhere/x.ts", "/work/project")).toBe("/elsewhere/x.ts");
  expect([nextApprovalMode("ask"), nextApprovalMode("edits"), nextApprovalMode("auto")]).toEqual([
    "edits",
    "auto",
    "ask",
  ]);
});

test("issue 40: the question is compact — the command, a menu of answers with single keys, paths from the project — and n takes the reason the model reads", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gong-approvals-"));
  dirs.push(dir);
  const project = join(dir, "project");
  const files = { project: join(project, ".gong", "settings.local.json"), user: join(dir, "home", "settings.json") };
  const shown: string[] = [];
  const approvals = new ShellApprovals("ask", files, reader(["n not on a Monday", "", "y"], shown), plain, project);
  const request = {
    ...shell("npm test"),
    alwaysRules: ["Bash(npm test *)"],
    askRule: `the rule Bash(npm *) in ${join(project, ".gong", "settings.json")}`,
  };
  expect(await approvals.ask(request)).toEqual({ allow: false, reason: "not on a Monday" });
  const question = shown[0].split("\n");
  expect(question[0]).toBe("? run this command? (asked by the rule Bash(npm *) in .gong/settings.json)");
  expect(question[1]).toBe("  $ npm test");
  expect(question.slice(2, 6)).toEqual([
    "❯ 1. Yes",
    "  2. Yes, always in this project: Bash(npm test *) (.gong/settings.local.json)",
    `  3. Yes, always for you (${files.user})`,
    "  4. No",
  ]);
  expect(question[6]).toContain("y/a/u/n");
  expect(question.join("\n")).not.toContain(project);
  expect(shown[1]).toBe("✗ declined: $ npm test — not on a Monday\n");
  // Enter takes the selected answer (yes); y too.
  expect(await approvals.ask(request)).toEqual({ allow: true });
  expect(await approvals.ask(request)).toEqual({ allow: true });
  expect(shown.at(-1)).toBe("✓ allowed: $ npm test\n");
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
  const approvals = new ShellApprovals("ask", files, reader(["a", "u"], shown), plain, join(dir, "project"));
  const request = { ...shell("cd src && npm test"), alwaysRules: ["Bash(cd src *)", "Bash(npm test *)"] };
  expect(await approvals.ask(request)).toEqual({ allow: true, always: true, scope: "project" });
  // It says where "always" is kept, for each answer.
  expect(shown[0]).toContain(
    "2. Yes, always in this project: Bash(cd src *), Bash(npm test *) (.gong/settings.local.json)",
  );
  expect(shown[0]).toContain(`3. Yes, always for you (${files.user})`);
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
  const approvals = new ShellApprovals("ask", { project: file, user: file }, reader(["a"], shown), plain);
  expect((await approvals.ask({ ...shell("ls"), alwaysRules: ["Bash(ls *)"] })).allow).toBe(true);
  expect(readFileSync(file, "utf8")).toBe("{ not json");
  expect(shown.join("")).toContain("not saved:");
});

test("approvals: without a rule to write (a command gong cannot read with certainty), only yes and no are offered", async () => {
  const shown: string[] = [];
  const approvals = new ShellApprovals("ask", { project: "/p", user: "/u" }, reader(["y"], shown), plain);
  expect(await approvals.ask(shell("ls"))).toEqual({ allow: true });
  expect(shown[0]).toContain("1. Yes");
  expect(shown[0]).toContain("2. No");
  expect(shown[0]).not.toContain("always");
  expect(shown[1]).toBe("✓ allowed: $ ls\n");
});
