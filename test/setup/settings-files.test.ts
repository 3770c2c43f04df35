/** Issue 26: which settings files the setup reads, in what order, and what trust leaves out of each. */
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadSetup, projectTrustRequests, type SetupOptions } from "../../lib/setup/settings-files.ts";
import { tempDir, type TempDir } from "../helpers/temp.ts";
import { ruled } from "../gate/helpers.ts";

let project: TempDir;
let home: TempDir;
afterEach(() => {
  project?.cleanup();
  home?.cleanup();
});

function write(dir: string, path: string, value: unknown): string {
  const file = join(dir, path);
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, JSON.stringify(value));
  return file;
}

function options(over: Partial<SetupOptions> = {}): SetupOptions {
  return {
    cwd: project.dir,
    gongHome: join(home.dir, ".gong"),
    home: home.dir,
    gongFiles: [],
    trusted: false,
    untrustedHint: "not trusted.",
    ...over,
  };
}

const hook = (command: string) => ({ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command }] }] });

test("issue 26: user files need no trust; a project's deny and ask apply untrusted, its allow, hooks and env do not — one line per file", () => {
  project = tempDir();
  home = tempDir();
  write(home.dir, ".claude/settings.json", {
    permissions: { allow: ["Bash(ls *)"] },
    hooks: hook("user-hook"),
    env: { A: "user" },
  });
  const shared = write(project.dir, ".claude/settings.json", {
    permissions: { allow: ["Bash(npm *)", "Edit"], deny: ["Bash(rm *)"] },
    hooks: hook("project-hook"),
    env: { A: "project" },
  });
  const local = write(project.dir, ".claude/settings.local.json", {
    permissions: { ask: ["Bash(git push *)"], allow: ["Read"] },
  });
  const untrusted = loadSetup(options());
  expect(untrusted.rules.all.map((r) => r.raw)).toEqual(["Bash(rm *)", "Bash(git push *)", "Bash(ls *)"]);
  expect(untrusted.hooks.PreToolUse?.flatMap((g) => g.hooks.map((h) => h.command))).toEqual(["user-hook"]);
  expect(untrusted.env).toEqual({ A: "user" });
  expect(untrusted.notices).toEqual([
    `Ignoring 2 permissions.allow entries, hooks, env from ${shared}: not trusted.`,
    `Ignoring 1 permissions.allow entry from ${local}: not trusted.`,
  ]);
  const trusted = loadSetup(options({ trusted: true }));
  expect(trusted.rules.all.length).toBe(6);
  expect(trusted.hooks.PreToolUse?.flatMap((g) => g.hooks.map((h) => h.command))).toEqual([
    "user-hook",
    "project-hook",
  ]);
  expect(trusted.env).toEqual({ A: "project" });
  expect(trusted.notices).toEqual([]);
  expect(projectTrustRequests(project.dir, undefined)).toEqual([
    `${shared} sets hooks, permissions.allow, env`,
    `${local} sets permissions.allow`,
  ]);
});

test("issue 26: gong's own files come first at each level; claudeSettings false skips the .claude files; the user's disableAllHooks turns shell hooks off", () => {
  project = tempDir();
  home = tempDir();
  write(home.dir, ".claude/settings.json", { permissions: { deny: ["Bash(claude-user *)"] }, disableAllHooks: true });
  write(project.dir, ".claude/settings.json", { permissions: { deny: ["Bash(claude-project *)"] } });
  const gongFiles = [
    {
      file: "gong-user",
      scope: "user" as const,
      gong: true,
      permissions: { deny: ["Bash(gong-user *)"] },
      hooks: hook("h"),
    },
    { file: "gong-project", scope: "project" as const, gong: true, permissions: { deny: ["Bash(gong-project *)"] } },
  ];
  const all = loadSetup(options({ gongFiles }));
  expect(all.rules.all.map((r) => r.source)).toEqual([
    "gong-user",
    join(home.dir, ".claude/settings.json"),
    "gong-project",
    join(project.dir, ".claude/settings.json"),
  ]);
  expect(all.hooks).toEqual({});
  const gongOnly = loadSetup(options({ gongFiles, claudeSettings: false }));
  expect(gongOnly.rules.all.map((r) => r.source)).toEqual(["gong-user", "gong-project"]);
  expect(gongOnly.hooks.PreToolUse?.length).toBe(1);
  expect(gongOnly.ruleFiles).toEqual({
    project: join(project.dir, ".gong", "settings.local.json"),
    user: join(home.dir, ".gong", "settings.json"),
  });
});

test("issue 37 defect 2: a project's disableAllHooks turns off only its own hooks, and only when trusted", () => {
  project = tempDir();
  home = tempDir();
  write(home.dir, ".claude/settings.json", { hooks: hook("user-guard") });
  const file = write(project.dir, ".claude/settings.json", { hooks: hook("project-hook"), disableAllHooks: true });
  const commands = (o: SetupOptions) =>
    loadSetup(o).hooks.PreToolUse?.flatMap((g) => g.hooks.map((h) => h.command)) ?? [];
  const untrusted = loadSetup(options());
  expect(commands(options())).toEqual(["user-guard"]);
  expect(untrusted.notices).toEqual([`Ignoring hooks, disableAllHooks from ${file}: not trusted.`]);
  expect(commands(options({ trusted: true }))).toEqual(["user-guard"]);
  expect(projectTrustRequests(project.dir, undefined)).toEqual([`${file} sets hooks, disableAllHooks`]);
  // gong's own project file is held to the same rule.
  const gongFiles = [{ file: "gong-project", scope: "project" as const, gong: true, disableAllHooks: true }];
  expect(commands(options({ gongFiles }))).toEqual(["user-guard"]);
  expect(commands(options({ gongFiles, trusted: true }))).toEqual(["user-guard"]);
});

test("issue 26: 'always' answers remembered in approvals.json before rules load as the user's allow rules for that project", async () => {
  project = tempDir();
  home = tempDir();
  const file = write(home.dir, ".gong/approvals.json", {
    [project.dir]: ["bash: npm test", "exec_command: git status", "edit"],
    "/elsewhere": ["bash: rm"],
  });
  const setup = loadSetup(options());
  expect(setup.rules.all.map((r) => [r.raw, r.source])).toEqual([
    ["Bash(npm test *)", file],
    ["Bash(git status *)", file],
    ["Edit", file],
  ]);
  const bash = (command: string) => ruled(setup.rules, { name: "bash", args: { command } }, project.dir);
  expect(await bash("npm test -- --watch")).toBe("allow");
  expect(await bash("npm test && rm -rf /")).toBeUndefined();
});
