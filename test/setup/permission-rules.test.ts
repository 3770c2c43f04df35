import { describe, expect, test } from "bun:test";
import { homedir } from "node:os";
import { fetchTargets } from "../../tools/web-fetch.ts";
import {
  parseRule,
  PermissionRules,
  suggestRules,
  type Behavior,
  type PermissionRule,
} from "../../lib/setup/permission-rules.ts";

const cwd = "/work/project";

function rules(spec: Partial<Record<Behavior, string[]>>, readOnly?: string[]): PermissionRules {
  const list: PermissionRule[] = [];
  for (const behavior of ["deny", "ask", "allow"] as const) {
    for (const raw of spec[behavior] ?? []) {
      const r = parseRule(raw, behavior, "test", cwd);
      if ("error" in r) throw new Error(r.error);
      list.push(r);
    }
  }
  return new PermissionRules(list, cwd, readOnly);
}

const bash = (r: PermissionRules, command: string) => r.decide("Bash", { command })?.behavior;

describe("issue 26: permission rules, Claude Code syntax", () => {
  test("the safety defect: allowing `cd src && ls` never allows `cd src && touch ../PWNED`", () => {
    const r = rules({});
    const always = suggestRules(r, "Bash", { command: "cd src && ls" }, cwd);
    expect(always).toEqual(["Bash(cd src *)", "Bash(ls *)"]);
    const after = rules({ allow: always });
    expect(bash(after, "cd src && ls -la")).toBe("allow");
    expect(bash(after, "cd src && touch ../PWNED && echo done")).toBeUndefined();
    expect(bash(after, "cd src; touch ../PWNED")).toBeUndefined();
    expect(bash(after, "ls $(touch ../PWNED)")).toBeUndefined();
    expect(bash(after, "ls `touch ../PWNED`")).toBeUndefined();
    expect(bash(after, "ls | sh")).toBeUndefined();
    expect(bash(after, "ls\ntouch ../PWNED")).toBeUndefined();
    expect(bash(after, "ls > ../PWNED")).toBe("allow"); // `ls *` covers any arguments, the redirection included
    expect(bash(rules({ allow: ["Bash(ls)"] }), "ls > ../PWNED")).toBeUndefined();
  });

  test("compound commands: allowed only when every part is, denied when any part is", () => {
    const r = rules({ allow: ["Bash(npm run test *)", "Bash(git status)"], deny: ["Bash(rm *)"] });
    expect(bash(r, "npm run test && git status")).toBe("allow");
    expect(bash(r, "npm run test && git push")).toBeUndefined();
    expect(bash(r, "git status; rm -rf /")).toBe("deny");
    expect(bash(r, "echo $(rm -rf /)")).toBe("deny");
    expect(bash(r, "git status | (rm x)")).toBe("deny");
    expect(bash(r, `echo "rm -rf /"`)).toBeUndefined(); // inside quotes it is an argument, not a command
    expect(bash(r, "timeout 5 rm -rf build")).toBe("deny");
    expect(bash(r, "nohup npm run test")).toBe("allow");
    expect(bash(r, "for f in *; do npm run test; done")).toBeUndefined();
    expect(bash(r, "cat <<EOF > notes\nrm is fine in here\nEOF\nrm -rf /")).toBe("deny");
    expect(bash(r, "git status <<EOF\n$(rm -rf /)\nEOF")).toBe("deny");
  });

  test("the older prefix form npm test:* and the wildcard forms", () => {
    const legacy = rules({ allow: ["Bash(npm test:*)"] });
    expect(bash(legacy, "npm test")).toBe("allow");
    expect(bash(legacy, "npm test -- --watch")).toBe("allow");
    expect(bash(legacy, "npm testx")).toBeUndefined();
    const star = rules({ allow: ["Bash(ls *)", "Bash(git * main)"] });
    expect(bash(star, "ls")).toBe("allow");
    expect(bash(star, "lsof")).toBeUndefined();
    expect(bash(star, "git push origin main")).toBe("allow");
    expect(bash(rules({ allow: ["Bash"] }), "anything && at all")).toBe("allow");
  });

  test("deny over ask over allow, whatever the order they are written in", () => {
    const r = rules({ allow: ["Bash(git *)"], ask: ["Bash(git push *)"], deny: ["Bash(git push --force *)"] });
    expect(bash(r, "git log")).toBe("allow");
    expect(bash(r, "git push origin")).toBe("ask");
    expect(bash(r, "git push --force origin")).toBe("deny");
  });

  test("tool names of every profile map to Claude Code's", () => {
    const r = rules({ deny: ["Bash(curl *)", "Read(./.env)", "Edit(src/**)"] });
    for (const [tool, args] of [
      ["Bash", { command: "curl x" }],
      ["bash", { command: "curl x" }],
      ["exec_command", { cmd: "curl x" }],
      ["run_shell_command", { command: "curl x" }],
    ] as const) {
      expect(r.decide(tool, args)?.behavior).toBe("deny");
    }
    for (const [tool, args] of [
      ["Read", { file_path: "/work/project/.env" }],
      ["read", { path: ".env" }],
      ["read_file", { file_path: ".env" }],
    ] as const) {
      expect(r.decide(tool, args)?.behavior).toBe("deny");
    }
    for (const [tool, args] of [
      ["Edit", { file_path: "/work/project/src/a.ts" }],
      ["edit", { path: "src/deep/b.ts" }],
      ["replace", { file_path: "src/c.ts" }],
      ["write_file", { file_path: "src/d.ts" }],
      ["Write", { file_path: "src/e.ts" }],
    ] as const) {
      expect(r.decide(tool, args)?.behavior).toBe("deny");
    }
    expect(r.decide("edit", { path: "lib/a.ts" })).toBeUndefined();
    const patch = "*** Begin Patch\n*** Add File: lib/new.ts\n+x\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** End Patch";
    expect(r.decide("apply_patch", { input: patch })?.behavior).toBe("deny");
    expect(r.decide("exec_command", { cmd: `apply_patch <<'EOF'\n${patch}\nEOF` })?.behavior).toBe("deny");
  });

  test("an apply_patch is allowed only when every file it touches is", () => {
    const r = rules({ allow: ["Edit(lib/**)"] });
    const one = "*** Begin Patch\n*** Add File: lib/new.ts\n+x\n*** End Patch";
    const two = "*** Begin Patch\n*** Add File: lib/new.ts\n+x\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** End Patch";
    expect(r.decide("apply_patch", { input: one })?.behavior).toBe("allow");
    expect(r.decide("apply_patch", { input: two })).toBeUndefined();
  });

  test("path patterns: no slash matches at any depth, // is absolute, ~/ is home", () => {
    const r = rules({ deny: ["Read(.env)", "Read(//etc/shadow)", "Read(~/.ssh/**)"] });
    expect(r.decide("Read", { file_path: "/work/project/a/b/.env" })?.behavior).toBe("deny");
    expect(r.decide("Read", { file_path: "/etc/shadow" })?.behavior).toBe("deny");
    expect(r.decide("Read", { file_path: `${homedir()}/.ssh/id_ed25519` })?.behavior).toBe("deny");
    expect(r.decide("Grep", { pattern: "x", path: "/work/project/config/.env" })?.behavior).toBe("deny");
  });

  test("WebFetch(domain:…), Skill(…), Agent(…) and mcp__ rules", () => {
    const r = rules({
      allow: ["WebFetch(domain:docs.example.com)", "Skill(review *)", "mcp__github", "Agent(Explore)"],
      deny: ["mcp__db__drop_table"],
    });
    expect(r.decide("web_fetch", { url: "https://docs.example.com/a" })?.behavior).toBe("allow");
    expect(r.decide("WebFetch", { url: "https://evil.example.com/a" })).toBeUndefined();
    expect(r.decide("activate_skill", { name: "review code" })?.behavior).toBe("allow");
    expect(r.decide("mcp__github__create_issue", {})?.behavior).toBe("allow");
    expect(r.decide("mcp__db__drop_table", {})?.behavior).toBe("deny");
    expect(r.decide("mcp__db__select", {})).toBeUndefined();
    expect(r.decide("Agent", { subagent_type: "Explore", prompt: "x" })?.behavior).toBe("allow");
  });

  test("issue 37 defect 4: a host name with its trailing root dot meets the domain rules of the name without it", () => {
    const r = rules({ allow: ["WebFetch(domain:docs.example.com)"], deny: ["WebFetch(domain:*.evil.com)"] });
    expect(r.decide("web_fetch", { url: "https://docs.example.com./a" })?.behavior).toBe("allow");
    expect(r.decide("WebFetch", { url: "http://www.evil.com./" })?.behavior).toBe("deny");
    expect(r.decide("WebFetch", { url: "http://EVIL.com./" })?.behavior).toBe("deny");
    expect(fetchTargets({ url: "http://www.Evil.com./x" })).toEqual(["www.evil.com"]);
  });

  test("a string that is not a rule is refused with the reason", () => {
    for (const bad of ["Bash(npm", "Bash()", "not a rule!", "WebFetch(example.com)", 42]) {
      expect("error" in parseRule(bad, "allow", "f", cwd)).toBe(true);
    }
  });

  test("read-only commands: the built-in list and its extension", () => {
    const r = rules({});
    expect(r.isReadOnly("ls -la && git status | grep x")).toBe(true);
    expect(r.isReadOnly("ls > out")).toBe(false);
    expect(r.isReadOnly("find . -delete")).toBe(false);
    expect(r.isReadOnly("git push")).toBe(false);
    expect(r.isReadOnly("cat $(rm x)")).toBe(false);
    expect(rules({}, ["make lint"]).isReadOnly("make lint --fix")).toBe(true);
  });
});
