/**
 * Issue 26: permission rules and `env` from the settings files a Claude Code user already has,
 * applied by `gong -p` with the real CLI against the fake model server.
 */
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeLlm, WIRE_APIS, useWorkspace } from "../cli/helpers.ts";

const ws = useWorkspace();

function claudeSettings(dir: string, settings: unknown, name = "settings.json"): string {
  mkdirSync(join(dir, ".claude"), { recursive: true });
  const file = join(dir, ".claude", name);
  writeFileSync(file, typeof settings === "string" ? settings : JSON.stringify(settings));
  return file;
}

const bashThen = (command: string, answer = "done") => [
  { toolCalls: [{ name: "bash", arguments: { command } }] },
  { text: answer },
];

test("issue 26: a deny rule in .claude/settings.json refuses a compound command in print mode with the reason the model sees; unused keys are ignored", async () => {
  writeFileSync(join(ws.dir, "keep.txt"), "x");
  const file = claudeSettings(ws.dir, {
    permissions: { deny: ["Bash(rm *)"] },
    // A plugin turned off asks for nothing (one turned on is a request an untrusted project may not make: issue 39).
    enabledPlugins: { "x@y": false },
    statusLine: { type: "command", command: "echo hi" },
    extraKnownMarketplaces: {},
  });
  const fake = await startFakeLlm({ script: bashThen("echo ok && rm -f keep.txt") });
  const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "clean up"]);
  expect(r.code).toBe(0);
  expect(r.stderr).toBe("");
  expect(existsSync(join(ws.dir, "keep.txt"))).toBe(true);
  expect(JSON.stringify(fake.requests[1].body.messages)).toContain(
    `Permission to use bash was denied by the rule Bash(rm *) in ${file}`,
  );
});

test("issue 26: an untrusted project's allow rules and hooks are ignored in one line; its ask rule still applies and print mode refuses it", async () => {
  const file = claudeSettings(ws.dir, {
    permissions: { allow: ["Bash(git *)", "Bash(npm *)", "Read"], ask: ["Bash(git push *)"] },
    hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "touch hook-ran" }] }] },
  });
  const fake = await startFakeLlm({ script: bashThen("git push origin main") });
  const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "push"]);
  expect(r.code).toBe(0);
  expect(r.stderr.trim().split("\n")).toEqual([
    `gong: Ignoring 3 permissions.allow entries, hooks from ${file}: the project is not trusted (run with --trust, or list it under "trustedProjects" in ${join(ws.home, ".gong", "settings.json")}).`,
  ]);
  expect(existsSync(join(ws.dir, "hook-ran"))).toBe(false);
  expect(JSON.stringify(fake.requests[1].body.messages)).toContain(
    "needs the user's approval (the rule Bash(git push *)",
  );
});

test("issue 26: a rule that does not parse and a settings file that is not JSON are one line each, naming the file; the session goes on", async () => {
  const file = claudeSettings(ws.dir, { permissions: { deny: ["Bash(rm", "Bash(touch *)"] } });
  const local = claudeSettings(ws.dir, "{ nope", "settings.local.json");
  const fake = await startFakeLlm({ script: bashThen("touch made") });
  const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "make"]);
  expect(r.code).toBe(0);
  const lines = r.stderr.trim().split("\n");
  expect(lines.length).toBe(2);
  expect(lines.find((l) => l.includes(local))).toContain("is not valid JSON");
  expect(lines.find((l) => l.includes(file))).toContain("'Bash(rm' is not a rule");
  expect(existsSync(join(ws.dir, "made"))).toBe(false);
});

test("issue 26: env in a trusted project's .claude/settings.json reaches commands; a user's allow rules apply untrusted", async () => {
  claudeSettings(ws.dir, { env: { GREETING_WORD: "bonjour", SERVICE_TOKEN: "on-purpose" } });
  const fake = await startFakeLlm({ script: bashThen('echo "$GREETING_WORD $SERVICE_TOKEN"') });
  const r = await ws.run([...WIRE_APIS[0].flags(fake), "--trust", "-p", "greet"]);
  expect(r.code).toBe(0);
  expect(JSON.stringify(fake.requests[1].body.messages)).toContain("bonjour on-purpose");
});

test("issue 26: claudeSettings false in gong's settings leaves the .claude files out", async () => {
  claudeSettings(ws.dir, { permissions: { deny: ["Bash(touch *)"] } });
  mkdirSync(join(ws.home, ".gong"), { recursive: true });
  writeFileSync(join(ws.home, ".gong", "settings.json"), JSON.stringify({ claudeSettings: false }));
  const fake = await startFakeLlm({ script: bashThen("touch made") });
  const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "make"]);
  expect(r.code).toBe(0);
  expect(existsSync(join(ws.dir, "made"))).toBe(true);
});

test("issue 26: rules in ~/.claude/settings.json and ~/.gong/settings.json hold under the openai and gemini profiles' tool names", async () => {
  mkdirSync(join(ws.home, ".claude"), { recursive: true });
  writeFileSync(
    join(ws.home, ".claude", "settings.json"),
    JSON.stringify({ permissions: { deny: ["Bash(touch *)"] } }),
  );
  mkdirSync(join(ws.home, ".gong"), { recursive: true });
  writeFileSync(
    join(ws.home, ".gong", "settings.json"),
    JSON.stringify({ permissions: { deny: ["Write(blocked.txt)"] } }),
  );
  const openai = await startFakeLlm({
    script: [
      {
        toolCalls: [
          { name: "exec_command", arguments: { cmd: "touch made" } },
          { name: "write_file", arguments: { file_path: "blocked.txt", content: "x" } },
        ],
      },
      { text: "done" },
    ],
  });
  const flags = [
    "--model",
    "openai/gpt-5-mini",
    "--base-url",
    openai.baseUrls.openai,
    "--api-key",
    "test",
    "--profile",
    "openai",
  ];
  const r = await ws.run([...flags, "-p", "make"]);
  expect(r.code).toBe(0);
  expect(existsSync(join(ws.dir, "made"))).toBe(false);
  expect(existsSync(join(ws.dir, "blocked.txt"))).toBe(false);
  const gemini = await startFakeLlm({
    script: [{ toolCalls: [{ name: "run_shell_command", arguments: { command: "touch made" } }] }, { text: "done" }],
  });
  const g = await ws.run([
    "--model",
    "gemini/gemini-2.5-flash",
    "--base-url",
    gemini.baseUrls.gemini,
    "--api-key",
    "test",
    "--profile",
    "gemini",
    "-p",
    "make",
  ]);
  expect(g.code).toBe(0);
  expect(existsSync(join(ws.dir, "made"))).toBe(false);
  expect(JSON.stringify(gemini.requests[1].body)).toContain("denied by the rule Bash(touch *)");
});

test("issue 26: env in ~/.claude/settings.json applies to gong itself (base URL, key) as Claude Code's does; the key still never reaches commands", async () => {
  const fake = await startFakeLlm({ script: bashThen('echo "key:[$ANTHROPIC_API_KEY] word:[$GREETING_WORD]"') });
  mkdirSync(join(ws.home, ".claude"), { recursive: true });
  writeFileSync(
    join(ws.home, ".claude", "settings.json"),
    JSON.stringify({
      env: { ANTHROPIC_BASE_URL: fake.baseUrls.anthropic, ANTHROPIC_API_KEY: "from-settings", GREETING_WORD: "hallo" },
    }),
  );
  const r = await ws.run(["--model", "anthropic/claude-haiku-4-5", "--profile", "default", "-p", "greet"]);
  expect(r.code).toBe(0);
  expect(fake.requests[0].headers.authorization).toBe("Bearer from-settings");
  expect(JSON.stringify(fake.requests[1].body.messages)).toContain("key:[] word:[hallo]");
});

test("issue 26: even a trusted project's env never overrides a base URL the user set", async () => {
  const fake = await startFakeLlm({ script: [{ text: "from the user's server" }] });
  const file = claudeSettings(ws.dir, { env: { ANTHROPIC_BASE_URL: "http://127.0.0.1:9/elsewhere" } });
  const r = await ws.run(["--model", "anthropic/claude-haiku-4-5", "--api-key", "test", "--trust", "-p", "hi"], {
    env: { ANTHROPIC_BASE_URL: fake.baseUrls.anthropic },
  });
  expect(r.code).toBe(0);
  expect(r.stdout).toBe("from the user's server\n");
  expect(r.stderr).toBe(
    `gong: ${file}: env.ANTHROPIC_BASE_URL is ignored: your own ANTHROPIC_BASE_URL wins over a project's.\n`,
  );
});

test("issue 26: Claude Code's keys gong has no use for are ignored in gong's own settings files too, never an exit 2", async () => {
  mkdirSync(join(ws.dir, ".gong"), { recursive: true });
  writeFileSync(
    join(ws.dir, ".gong", "settings.json"),
    JSON.stringify({
      enabledPlugins: { "a@b": false },
      statusLine: { type: "command", command: "x" },
      extraKnownMarketplaces: {},
      permissions: { deny: ["Bash(touch *)"], defaultMode: "acceptEdits" },
    }),
  );
  const fake = await startFakeLlm({ script: bashThen("touch made") });
  const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "make"]);
  expect(r.code).toBe(0);
  expect(r.stderr).toBe("");
  expect(existsSync(join(ws.dir, "made"))).toBe(false);
});
