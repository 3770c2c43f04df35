/**
 * Issue 26: shell hooks from `.claude/settings.json` run by `gong -p` under every profile, with the
 * published examples as they are (sources in test/fixtures/claude-code/SOURCES.md).
 */
import { expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, fakeFlags, startFakeLlm, useWorkspace } from "../cli/helpers.ts";
import { alive, pidFrom } from "../agent/harness.ts";
import { eventually } from "../helpers/wait.ts";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";

const ws = useWorkspace();
const VALIDATOR = join(import.meta.dir, "..", "fixtures", "claude-code", "bash_command_validator_example.py");

function claudeSettings(settings: unknown): void {
  mkdirSync(join(ws.dir, ".claude"), { recursive: true });
  writeFileSync(join(ws.dir, ".claude", "settings.json"), JSON.stringify(settings));
}

const PROFILES: Array<{
  profile: string;
  shell: (command: string) => { name: string; arguments: Record<string, unknown> };
  flags(f: FakeLlm): string[];
}> = [
  {
    profile: "default",
    shell: (command) => ({ name: "bash", arguments: { command } }),
    flags: (f) => fakeFlags("anthropic/claude-haiku-4-5", f.baseUrls.anthropic, "default"),
  },
  {
    profile: "anthropic",
    shell: (command) => ({ name: "Bash", arguments: { command } }),
    flags: (f) => fakeFlags("anthropic/claude-haiku-4-5", f.baseUrls.anthropic, "anthropic"),
  },
  {
    profile: "openai",
    shell: (command) => ({ name: "exec_command", arguments: { cmd: command } }),
    flags: (f) => fakeFlags("openai/gpt-5-mini", f.baseUrls.openai, "openai"),
  },
  {
    profile: "gemini",
    shell: (command) => ({ name: "run_shell_command", arguments: { command } }),
    flags: (f) => fakeFlags("gemini/gemini-2.5-flash", f.baseUrls.gemini, "gemini"),
  },
];

for (const p of PROFILES) {
  test(`issue 26: Claude Code's Bash command validator blocks a grep under the ${p.profile} profile; the model reads why`, async () => {
    claudeSettings({
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `python3 ${VALIDATOR}` }] }] },
    });
    const fake = await startFakeLlm({
      script: [{ toolCalls: [p.shell("grep -r needle . ; touch ran")] }, { text: "I will use rg" }],
    });
    const r = await ws.run([...p.flags(fake), "--trust", "-p", "find the needle"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("I will use rg\n");
    expect(existsSync(join(ws.dir, "ran"))).toBe(false);
    expect(JSON.stringify(fake.requests[1].body)).toContain("Use 'rg' (ripgrep) instead of 'grep'");
  });
}

test("issue 26: the hooks guide's formatter-after-edit hook formats a file written under the default and openai profiles", async () => {
  // The guide's command, with a local formatter in place of `npx prettier --write`.
  writeFileSync(join(ws.dir, "fmt"), `#!/bin/sh\nsed -i 's/  */ /g' "$1"\necho formatted "$1" >> format.log\n`);
  chmodSync(join(ws.dir, "fmt"), 0o755);
  const command = `jq -r '.tool_input.file_path' | { read file_path; if echo "$file_path" | grep -q '\\.ts$'; then ./fmt "$file_path"; fi; }`;
  claudeSettings({ hooks: { PostToolUse: [{ matcher: "Edit|Write", hooks: [{ type: "command", command }] }] } });
  const fake = await startFakeLlm({
    script: [
      {
        toolCalls: [
          { name: "write", arguments: { path: "a.ts", content: "let   x  =  1;\n" } },
          { name: "write", arguments: { path: "a.md", content: "keep   me\n" } },
        ],
      },
      { text: "written" },
    ],
  });
  const r = await ws.run([...PROFILES[0].flags(fake), "--trust", "-p", "write"]);
  expect(r.code).toBe(0);
  expect(readFileSync(join(ws.dir, "a.ts"), "utf8")).toBe("let x = 1;\n");
  expect(readFileSync(join(ws.dir, "a.md"), "utf8")).toBe("keep   me\n");
  const patch = "*** Begin Patch\n*** Add File: b.ts\n+const   y = 2;\n*** End Patch";
  const codex = await startFakeLlm({
    script: [{ toolCalls: [{ name: "apply_patch", arguments: { input: patch } }] }, { text: "patched" }],
  });
  const o = await ws.run([...PROFILES[2].flags(codex), "--trust", "-p", "patch"]);
  expect(o.code).toBe(0);
  expect(readFileSync(join(ws.dir, "b.ts"), "utf8")).toBe("const y = 2;\n");
  expect(readFileSync(join(ws.dir, "format.log"), "utf8").trim().split("\n")).toEqual([
    `formatted ${join(ws.dir, "a.ts")}`,
    `formatted ${join(ws.dir, "b.ts")}`,
  ]);
});

test("issue 26: UserPromptSubmit context and a Stop hook that keeps the agent going, in print mode", async () => {
  const stop = `jq -e '.stop_hook_active' >/dev/null && exit 0; echo 'also update the changelog' >&2; exit 2`;
  claudeSettings({
    hooks: {
      UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo 'sprint goal: ship 1.2'" }] }],
      Stop: [{ hooks: [{ type: "command", command: stop }] }],
    },
  });
  const fake = await startFakeLlm({ script: [{ text: "first answer" }, { text: "changelog updated" }] });
  const r = await ws.run([...PROFILES[0].flags(fake), "--trust", "-p", "release it"]);
  expect(r.code).toBe(0);
  expect(fake.requests.length).toBe(2);
  expect(JSON.stringify(fake.requests[0].body.messages)).toContain("sprint goal: ship 1.2");
  expect(JSON.stringify(fake.requests[1].body.messages)).toContain("also update the changelog");
  expect(r.stdout).toContain("changelog updated");
});

test("issue 26: a PermissionRequest hook answers an ask rule where no one can (print mode); SessionEnd runs before gong exits", async () => {
  const allow = `echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'`;
  claudeSettings({
    permissions: { ask: ["Bash(touch *)"] },
    hooks: {
      PermissionRequest: [{ matcher: "Bash", hooks: [{ type: "command", command: allow }] }],
      SessionEnd: [{ hooks: [{ type: "command", command: "cat > end.json" }] }],
    },
  });
  const fake = await startFakeLlm({
    script: [{ toolCalls: [{ name: "bash", arguments: { command: "touch made" } }] }, { text: "made" }],
  });
  const r = await ws.run([...PROFILES[0].flags(fake), "--trust", "-p", "make"]);
  expect(r.code).toBe(0);
  expect(existsSync(join(ws.dir, "made"))).toBe(true);
  expect(JSON.parse(readFileSync(join(ws.dir, "end.json"), "utf8"))).toMatchObject({
    hook_event_name: "SessionEnd",
    cwd: ws.dir,
  });
});

test.skipIf(!existsSync("/proc/self/stat"))(
  "issue 37 defect 1: a PreToolUse hook still running when gong -p gets SIGTERM dies with gong",
  async () => {
    // The hook's shell records its pid and becomes `sleep 71`; its timeout (600 s) is far away.
    const hook = "echo $$ > hook.pid; exec sleep 71";
    claudeSettings({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command: hook, timeout: 600 }] }] } });
    const fake = await startFakeLlm({
      script: [{ toolCalls: [{ name: "bash", arguments: { command: "touch ran" } }] }, { text: "never reached" }],
    });
    const proc = Bun.spawn([process.execPath, CLI, ...PROFILES[0].flags(fake), "--trust", "-p", "run it"], {
      cwd: ws.dir,
      env: ws.env,
      stdout: "pipe",
      stderr: "pipe",
    });
    const hookPid = await pidFrom(join(ws.dir, "hook.pid"));
    try {
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(143);
      expect(await eventually(() => !alive(hookPid))).toBe(true);
      // The stopped guard did not let the call through.
      expect(existsSync(join(ws.dir, "ran"))).toBe(false);
    } finally {
      if (alive(hookPid)) process.kill(hookPid, "SIGKILL");
    }
  },
  60_000,
);

test("issue 37 defect 2: an untrusted project's disableAllHooks does not switch off the user's own hooks, and gong says so", async () => {
  const guard = `grep -q 'rm victim' && { echo 'no rm here' >&2; exit 2; }; exit 0`;
  mkdirSync(join(ws.home, ".claude"), { recursive: true });
  writeFileSync(
    join(ws.home, ".claude", "settings.json"),
    JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: guard }] }] } }),
  );
  claudeSettings({ disableAllHooks: true });
  writeFileSync(join(ws.dir, "victim"), "keep me\n");
  const fake = await startFakeLlm({
    script: [{ toolCalls: [PROFILES[0].shell("rm victim")] }, { text: "done" }],
  });
  const r = await ws.run([...PROFILES[0].flags(fake), "-p", "clean up"]);
  expect(r.code).toBe(0);
  expect(existsSync(join(ws.dir, "victim"))).toBe(true);
  expect(JSON.stringify(fake.requests[1].body)).toContain("no rm here");
  const said = r.stderr.split("\n").filter((l) => l.includes("disableAllHooks"));
  expect(said).toEqual([expect.stringContaining(join(ws.dir, ".claude", "settings.json"))]);
});
