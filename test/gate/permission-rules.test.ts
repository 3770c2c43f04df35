/**
 * Issue 26 (moved with the rules into lib/gate): permission rules in Claude Code's syntax, matched
 * against what each real tool declares a call touches — under every profile's tool names.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { homedir } from "node:os";
import { parseRule } from "../../lib/gate/rules.ts";
import { readCommand } from "../../lib/gate/shell/commands.ts";
import { suggestRules } from "../../lib/gate/suggest.ts";
import { tempDir } from "../helpers/temp.ts";
import { declared, rules as rulesIn, ruled, type RuleSpec } from "./helpers.ts";

const project = tempDir("gong-rules-");
const cwd = project.dir;
afterAll(() => project.cleanup());

const rules = (spec: RuleSpec, readOnly?: string[]) => rulesIn(spec, cwd, readOnly);
const bash = (r: ReturnType<typeof rules>, command: string) => ruled(r, { name: "bash", args: { command } }, cwd);
const call = (r: ReturnType<typeof rules>, name: string, args: Record<string, unknown>) =>
  ruled(r, { name, args }, cwd);

describe("issue 26: permission rules, Claude Code syntax", () => {
  test("the safety defect: allowing `cd src && ls` never allows `cd src && touch ../PWNED`", async () => {
    const r = rules({});
    const always = suggestRules(r, await declared({ name: "Bash", args: { command: "cd src && ls" } }, cwd));
    expect(always).toEqual(["Bash(cd src *)", "Bash(ls *)"]);
    const after = rules({ allow: always });
    expect(await bash(after, "cd src && ls -la")).toBe("allow");
    expect(await bash(after, "cd src && touch ../PWNED && echo done")).toBeUndefined();
    expect(await bash(after, "cd src; touch ../PWNED")).toBeUndefined();
    expect(await bash(after, "ls $(touch ../PWNED)")).toBeUndefined();
    expect(await bash(after, "ls `touch ../PWNED`")).toBeUndefined();
    expect(await bash(after, "ls | sh")).toBeUndefined();
    expect(await bash(after, "ls\ntouch ../PWNED")).toBeUndefined();
    expect(await bash(after, "ls > ../PWNED")).toBe("allow"); // `ls *` covers any arguments, the redirection included
    expect(await bash(rules({ allow: ["Bash(ls)"] }), "ls > ../PWNED")).toBeUndefined();
  });

  test("compound commands: allowed only when every part is, denied when any part is", async () => {
    const r = rules({ allow: ["Bash(npm run test *)", "Bash(git status)"], deny: ["Bash(rm *)"] });
    expect(await bash(r, "npm run test && git status")).toBe("allow");
    expect(await bash(r, "npm run test && git push")).toBeUndefined();
    expect(await bash(r, "git status; rm -rf /")).toBe("deny");
    expect(await bash(r, "echo $(rm -rf /)")).toBe("deny");
    expect(await bash(r, "git status | (rm x)")).toBe("deny");
    expect(await bash(r, `echo "rm -rf /"`)).toBeUndefined(); // inside quotes it is an argument, not a command
    expect(await bash(r, "timeout 5 rm -rf build")).toBe("deny");
    expect(await bash(r, "nohup npm run test")).toBe("allow");
    // A `for` header is data: the loop's commands are what rules judge.
    expect(await bash(r, "for f in *; do npm run test; done")).toBe("allow");
    expect(await bash(r, "case $x in a) npm run test;; esac")).toBeUndefined();
    expect(await bash(r, "cat <<EOF > notes\nrm is fine in here\nEOF\nrm -rf /")).toBe("deny");
    expect(await bash(r, "git status <<EOF\n$(rm -rf /)\nEOF")).toBe("deny");
  });

  test("the older prefix form npm test:* and the wildcard forms", async () => {
    const legacy = rules({ allow: ["Bash(npm test:*)"] });
    expect(await bash(legacy, "npm test")).toBe("allow");
    expect(await bash(legacy, "npm test -- --watch")).toBe("allow");
    expect(await bash(legacy, "npm testx")).toBeUndefined();
    const star = rules({ allow: ["Bash(ls *)", "Bash(git * main)"] });
    expect(await bash(star, "ls")).toBe("allow");
    expect(await bash(star, "lsof")).toBeUndefined();
    expect(await bash(star, "git push origin main")).toBe("allow");
    expect(await bash(rules({ allow: ["Bash"] }), "anything && at all")).toBe("allow");
  });

  test("deny over ask over allow, whatever the order they are written in", async () => {
    const r = rules({ allow: ["Bash(git *)"], ask: ["Bash(git push *)"], deny: ["Bash(git push --force *)"] });
    expect(await bash(r, "git log")).toBe("allow");
    expect(await bash(r, "git push origin")).toBe("ask");
    expect(await bash(r, "git push --force origin")).toBe("deny");
  });

  test("tool names of every profile map to Claude Code's", async () => {
    const r = rules({ deny: ["Bash(curl *)", "Read(./.env)", "Edit(src/**)"] });
    for (const [tool, args] of [
      ["Bash", { command: "curl x" }],
      ["bash", { command: "curl x" }],
      ["exec_command", { cmd: "curl x" }],
      ["run_shell_command", { command: "curl x" }],
    ] as const)
      expect(await call(r, tool, args)).toBe("deny");
    for (const [tool, args] of [
      ["Read", { file_path: `${cwd}/.env` }],
      ["read", { path: ".env" }],
      ["read_file", { file_path: ".env" }],
    ] as const)
      expect(await call(r, tool, args)).toBe("deny");
    for (const [tool, args] of [
      ["Edit", { file_path: `${cwd}/src/a.ts`, old_string: "a", new_string: "b" }],
      ["edit", { path: "src/deep/b.ts", old_text: "a", new_text: "b" }],
      ["replace", { file_path: "src/c.ts", instruction: "x", old_string: "a", new_string: "b" }],
      ["write_file", { file_path: "src/d.ts", content: "" }],
      ["Write", { file_path: "src/e.ts", content: "" }],
    ] as const)
      expect(await call(r, tool, args)).toBe("deny");
    expect(await call(r, "edit", { path: "lib/a.ts", old_text: "a", new_text: "b" })).toBeUndefined();
    const patch = "*** Begin Patch\n*** Add File: lib/new.ts\n+x\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** End Patch";
    expect(await call(r, "apply_patch", { input: patch })).toBe("deny");
    expect(await call(r, "exec_command", { cmd: `apply_patch <<'EOF'\n${patch}\nEOF` })).toBe("deny");
    // Every profile's shell applies a patch sent through it: the files it changes meet Edit rules.
    expect(await call(r, "bash", { command: `apply_patch <<'EOF'\n${patch}\nEOF` })).toBe("deny");
  });

  test("an apply_patch is allowed only when every file it touches is", async () => {
    const r = rules({ allow: ["Edit(lib/**)"] });
    const one = "*** Begin Patch\n*** Add File: lib/new.ts\n+x\n*** End Patch";
    const two = "*** Begin Patch\n*** Add File: lib/new.ts\n+x\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** End Patch";
    expect(await call(r, "apply_patch", { input: one })).toBe("allow");
    expect(await call(r, "apply_patch", { input: two })).toBeUndefined();
  });

  test("path patterns: no slash matches at any depth, // is absolute, ~/ is home", async () => {
    const r = rules({ deny: ["Read(.env)", "Read(//etc/shadow)", "Read(~/.ssh/**)"] });
    expect(await call(r, "Read", { file_path: `${cwd}/a/b/.env` })).toBe("deny");
    expect(await call(r, "Read", { file_path: "/etc/shadow" })).toBe("deny");
    expect(await call(r, "Read", { file_path: `${homedir()}/.ssh/id_ed25519` })).toBe("deny");
    expect(await call(r, "Grep", { pattern: "x", path: `${cwd}/config/.env` })).toBe("deny");
  });

  test("WebFetch(domain:…), Skill(…), Agent(…) and mcp__ rules", async () => {
    const r = rules({ allow: ["WebFetch(domain:docs.example.com)"] });
    expect(await call(r, "web_fetch", { url: "https://docs.example.com/a" })).toBe("allow");
    expect(await call(r, "WebFetch", { url: "https://evil.example.com/a", prompt: "x" })).toBeUndefined();
    const named = rules({
      allow: ["Skill(review *)", "mcp__github", "Agent(Explore)"],
      deny: ["mcp__db__drop_table"],
    });
    const decide = (as: string, target?: string, tool = as) =>
      named.decide({ tool, kind: "other", declared: true, touches: [{ as, target }] })?.behavior;
    expect(decide("Skill", "review code", "activate_skill")).toBe("allow");
    expect(decide("mcp__github__create_issue")).toBe("allow");
    expect(decide("mcp__db__drop_table")).toBe("deny");
    expect(decide("mcp__db__select")).toBeUndefined();
    expect(decide("Agent", "Explore", "Agent")).toBe("allow");
  });

  test("issue 37 defect 4: a host name with its trailing root dot meets the domain rules of the name without it", async () => {
    const r = rules({ allow: ["WebFetch(domain:docs.example.com)"], deny: ["WebFetch(domain:*.evil.com)"] });
    expect(await call(r, "web_fetch", { url: "https://docs.example.com./a" })).toBe("allow");
    expect(await call(r, "WebFetch", { url: "http://www.evil.com./", prompt: "x" })).toBe("deny");
    expect(await call(r, "WebFetch", { url: "http://EVIL.com./", prompt: "x" })).toBe("deny");
  });

  test("a string that is not a rule is refused with the reason", () => {
    for (const bad of ["Bash(npm", "Bash()", "not a rule!", "WebFetch(example.com)", 42]) {
      expect("error" in parseRule(bad, "allow", "f", cwd)).toBe(true);
    }
  });

  test("read-only commands: the built-in list and its extension", () => {
    const r = rules({});
    expect(r.isReadOnly(readCommand("ls -la && git status | grep x"))).toBe(true);
    expect(r.isReadOnly(readCommand("ls > out"))).toBe(false);
    expect(r.isReadOnly(readCommand("find . -delete"))).toBe(false);
    expect(r.isReadOnly(readCommand("git push"))).toBe(false);
    expect(r.isReadOnly(readCommand("cat $(rm x)"))).toBe(false);
    expect(rules({}, ["make lint"]).isReadOnly(readCommand("make lint --fix"))).toBe(true);
  });
});
