/**
 * Issue 35, scripts written for `claude -p`: Claude Code's headless flags run through the real
 * `gong` command against the fake server, each with its meaning; refused flags say what instead.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseCliArgs, sessionFlags } from "../../lib/cli/args.ts";
import { startFakeLlm, useWorkspace, WIRE_APIS } from "./helpers.ts";

const ws = useWorkspace();
const anthropic = (baseUrl: string) => ["--base-url", baseUrl, "--api-key", "test"];
const sessionFiles = (home: string) =>
  existsSync(join(home, ".gong", "sessions"))
    ? (readdirSync(join(home, ".gong", "sessions"), { recursive: true }) as string[]).filter((f) =>
        f.endsWith(".jsonl"),
      )
    : [];

describe("issue 35 --output-format json carries Claude Code's result keys beside gong's", () => {
  test("type, subtype, is_error, result, session_id, num_turns, duration_ms, total_cost_usd, usage", async () => {
    const fake = await startFakeLlm({ script: [{ text: "done", usage: { input: 120, output: 7, cacheRead: 30 } }] });
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "go", "--output-format", "json"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      type: "result",
      subtype: "success",
      is_error: false,
      result: "done",
      num_turns: 1,
      permission_denials: [],
      // gong's own keys stay.
      kind: "result",
      answer: "done",
      turns: 1,
    });
    expect(out.session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof out.duration_ms).toBe("number");
    expect(out.total_cost_usd).toBe(out.cost_usd);
    expect(out.usage).toMatchObject({ input_tokens: 120, output_tokens: 7, cache_read_input_tokens: 30, input: 120 });
  });

  test("a run stopped by --max-turns is subtype error_max_turns", async () => {
    const fake = await startFakeLlm({
      script: [{ toolCalls: [{ name: "bash", arguments: { command: "true" } }] }, { text: "never" }],
    });
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "go", "--max-turns", "1", "--output-format", "json"]);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ type: "result", subtype: "error_max_turns", is_error: true });
  });
});

describe("issue 35 permission flags map onto the gate's values", () => {
  test("--disallowedTools: a deny rule whose source names the flag refuses the call", async () => {
    const fake = await startFakeLlm({
      script: [{ toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] }, { text: "refused" }],
    });
    const r = await ws.run([
      ...WIRE_APIS[0].flags(fake),
      "-p",
      "go",
      "--disallowedTools",
      "Bash(echo *)",
      "--output-format",
      "json",
    ]);
    expect(r.code).toBe(0);
    const sent = JSON.stringify(fake.requests[1].body);
    expect(sent).toContain("denied by the rule Bash(echo *) in --disallowedTools");
    expect(JSON.parse(r.stdout).permission_denials).toMatchObject([
      { tool_name: "bash", tool_input: { command: "echo hi" } },
    ]);
  });

  test("--allowedTools, --permission-mode and --dangerously-skip-permissions become the approval mode and rules", () => {
    const allowed = sessionFlags(parseCliArgs(["-p", "x", "--allowedTools", "Bash(git log:*)", "Read"]));
    // What an allow list does not allow is refused, as with claude -p.
    expect(allowed.approval).toBe("ask");
    expect(allowed.extraSettings).toEqual([
      { source: "--allowedTools", settings: { permissions: { allow: ["Bash(git log:*)", "Read"] } } },
    ]);
    const comma = sessionFlags(parseCliArgs(["-p", "x", "--allowed-tools", "Bash(npm test *),Edit"]));
    expect(comma.extraSettings?.[0].settings).toEqual({ permissions: { allow: ["Bash(npm test *)", "Edit"] } });
    expect(sessionFlags(parseCliArgs(["-p", "x", "--permission-mode", "acceptEdits"])).approval).toBe("edits");
    expect(sessionFlags(parseCliArgs(["-p", "x", "--permission-mode", "default"])).approval).toBe("ask");
    expect(sessionFlags(parseCliArgs(["-p", "x", "--permission-mode", "bypassPermissions"])).approval).toBe("auto");
    expect(sessionFlags(parseCliArgs(["-p", "x", "--dangerously-skip-permissions"])).approval).toBe("auto");
    const plan = sessionFlags(parseCliArgs(["-p", "x", "--permission-mode", "plan"]));
    expect(plan).toMatchObject({ approval: "ask", tools: "readonly" });
    expect(sessionFlags(parseCliArgs(["-p", "x", "--permission-mode", "dontAsk"])).approval).toBe("ask");
  });

  test("bad permission values are one sentence, exit 2, no model call", async () => {
    const fake = await startFakeLlm({ script: [{ text: "never" }] });
    for (const [args, message] of [
      [
        ["--permission-mode", "yolo"],
        "--permission-mode must be default, acceptEdits, plan, bypassPermissions, dontAsk, auto",
      ],
      [["--permission-mode", "auto"], "it has no permission classifier"],
      [["--allowedTools", "Bash("], "--allowedTools: 'Bash(' is not a rule"],
      [["--dangerously-skip-permissions", "--permission-mode", "default"], "contradicts --permission-mode default"],
      [["--approval", "auto", "--permission-mode", "default"], "--approval auto contradicts --permission-mode default"],
    ] as const) {
      const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "go", ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
    }
    expect(fake.requests.length).toBe(0);
  });
});

describe("issue 35 --model, ANTHROPIC_MODEL and the model key of ~/.claude/settings.json", () => {
  test("--model sonnet, a bare catalog id and a dated id reach the API as Anthropic's model ids", async () => {
    const fake = await startFakeLlm({ script: [{ text: "a" }, { text: "b" }, { text: "c" }] });
    for (const model of ["sonnet", "claude-haiku-4-5", "claude-sonnet-4-5-20250929"]) {
      const r = await ws.run(["--model", model, ...anthropic(fake.baseUrls.anthropic), "-p", "hi"]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
    }
    expect(fake.requests.map((q) => q.body.model)).toEqual([
      "claude-sonnet-4-6",
      "claude-haiku-4-5",
      "claude-sonnet-4-5-20250929",
    ]);
  });

  test("ANTHROPIC_MODEL, then the model of Claude Code's settings, choose the model", async () => {
    const fake = await startFakeLlm({ script: [{ text: "a" }, { text: "b" }] });
    const env = { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: fake.baseUrls.anthropic };
    mkdirSync(join(ws.home, ".claude"));
    writeFileSync(join(ws.home, ".claude", "settings.json"), JSON.stringify({ model: "opus" }));
    expect((await ws.run(["-p", "hi"], { env: { ...env, ANTHROPIC_MODEL: "haiku" } })).code).toBe(0);
    expect((await ws.run(["-p", "hi"], { env })).code).toBe(0);
    expect(fake.requests.map((q) => q.body.model)).toEqual(["claude-haiku-4-5", "claude-opus-4-6"]);
  });

  test("a model name gong cannot resolve names where it came from, exit 2", async () => {
    const r = await ws.run(["-p", "hi"], { env: { ANTHROPIC_API_KEY: "test", ANTHROPIC_MODEL: "sonet" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Model 'sonet' (ANTHROPIC_MODEL) is not a model gong knows");
  });

  test("--fallback-model takes over when the model is overloaded", async () => {
    const fake = await startFakeLlm({
      script: [{ fault: { type: "http", status: 529 } }, { text: "from the fallback" }],
    });
    mkdirSync(join(ws.dir, ".gong"));
    writeFileSync(join(ws.dir, ".gong", "settings.json"), JSON.stringify({ retry: { maxRetries: 0 } }));
    const r = await ws.run([
      "--model",
      "opus",
      ...anthropic(fake.baseUrls.anthropic),
      "--fallback-model",
      "sonnet",
      "-p",
      "hi",
    ]);
    expect(r.stdout).toBe("from the fallback\n");
    expect(r.code).toBe(0);
    expect(fake.requests.map((q) => q.body.model)).toEqual(["claude-opus-4-6", "claude-sonnet-4-6"]);
  });
});

describe("issue 35 prompts, directories, settings and sessions", () => {
  test("--append-system-prompt-file and --system-prompt-file are read; a missing file is exit 2", async () => {
    const fake = await startFakeLlm({ script: [{ text: "ok" }] });
    writeFileSync(join(ws.dir, "extra.md"), "ALWAYS ANSWER IN HAIKU");
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "hi", "--append-system-prompt-file", "extra.md"]);
    expect(r.code).toBe(0);
    expect(JSON.stringify(fake.requests[0].body.system)).toContain("ALWAYS ANSWER IN HAIKU");
    const missing = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "hi", "--system-prompt-file", "nope.md"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--system-prompt-file nope.md: no such file");
  });

  test("--add-dir lets the tools write in another directory", async () => {
    const other = join(ws.home, "other");
    mkdirSync(other);
    const write = { toolCalls: [{ name: "write", arguments: { path: join(other, "x.txt"), content: "hi" } }] };
    const fake = await startFakeLlm({ script: [write, { text: "ok" }, write, { text: "ok" }] });
    const denied = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "go"]);
    expect(denied.code).toBe(0);
    expect(existsSync(join(other, "x.txt"))).toBe(false);
    const allowed = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "go", "--add-dir", other]);
    expect(allowed.code).toBe(0);
    expect(readFileSync(join(other, "x.txt"), "utf8")).toBe("hi");
    const missing = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "go", "--add-dir", join(ws.home, "nope")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no such directory");
  });

  test("--settings (a file, or JSON) brings env and deny rules named by their source; bad JSON is exit 2", async () => {
    const fake = await startFakeLlm({
      script: [
        { toolCalls: [{ name: "bash", arguments: { command: "echo value=$FROM_SETTINGS" } }] },
        { text: "ok" },
        { toolCalls: [{ name: "bash", arguments: { command: "rm -f nothing" } }] },
        { text: "ok" },
      ],
    });
    writeFileSync(join(ws.dir, "ci.json"), JSON.stringify({ env: { FROM_SETTINGS: "yes-it-is" } }));
    expect((await ws.run([...WIRE_APIS[0].flags(fake), "-p", "go", "--settings", "ci.json"])).code).toBe(0);
    expect(JSON.stringify(fake.requests[1].body)).toContain("value=yes-it-is");
    const json = '{"permissions":{"deny":["Bash(rm *)"]}}';
    expect((await ws.run([...WIRE_APIS[0].flags(fake), "-p", "go", "--settings", json])).code).toBe(0);
    expect(JSON.stringify(fake.requests[3].body)).toContain("denied by the rule Bash(rm *) in --settings");
    const bad = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "go", "--settings", '{"permissions":']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--settings is not valid JSON");
  });

  test("--session-id names the new session; an id in use is exit 2", async () => {
    const fake = await startFakeLlm({ script: [{ text: "one" }, { text: "two" }] });
    const id = "0b5c1b2e-7d4f-4f0a-9a53-2f4e8d1c6b7a";
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "hi", "--session-id", id, "--output-format", "json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).session_id).toBe(id);
    expect(sessionFiles(ws.home).some((f) => f.includes(id))).toBe(true);
    const again = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "hi", "--session-id", id]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`Session ID ${id} is already in use`);
    expect((await ws.run(["-p", "hi", "--session-id", "not-a-uuid"])).stderr).toContain(
      "--session-id must be a valid UUID",
    );
    // -r takes the id Claude Code's scripts kept.
    const resumed = await ws.run([...WIRE_APIS[0].flags(fake), "-r", id, "-p", "again"]);
    expect(resumed.stdout).toBe("two\n");
  });

  test("--no-session-persistence and --fork-session are gong's --no-session and --fork", async () => {
    const fake = await startFakeLlm({ script: [{ text: "one" }] });
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "hi", "--no-session-persistence"]);
    expect(r.code).toBe(0);
    expect(sessionFiles(ws.home)).toEqual([]);
    expect((await ws.run(["-p", "hi", "--fork-session"])).stderr).toContain(
      "--fork-session branches off an existing session",
    );
  });
});

describe("issue 35 --mcp-config and --strict-mcp-config", () => {
  const server = (name: string) => ({ mcpServers: { [name]: { command: `/nonexistent/${name}` } } });
  const userLine = `${JSON.stringify({ type: "user", message: { role: "user", content: "hi" } })}\n`;
  /** The servers a run has, as the stream-json init line names them. */
  const serversOf = (stdout: string) =>
    JSON.parse(stdout.split("\n")[0])
      .mcp_servers.map((s: { name: string }) => s.name)
      .sort();
  const stream = ["--input-format", "stream-json", "--output-format", "stream-json", "--trust"];

  test("a --mcp-config that does not parse, or is not .mcp.json's shape, is one sentence, exit 2", async () => {
    const fake = await startFakeLlm({ script: [{ text: "never" }] });
    writeFileSync(join(ws.dir, "bad.json"), "{ nope");
    for (const [value, message] of [
      ["bad.json", "--mcp-config bad.json is not valid JSON"],
      ["missing.json", "--mcp-config missing.json: no such file"],
      ['{"mcpServers":{"x":{"args":[]}}}', 'needs a "command"'],
      ["{oops", "--mcp-config is not valid JSON"],
    ]) {
      const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "go", "--mcp-config", value]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
    }
    expect((await ws.run(["-p", "x", "--strict-mcp-config"])).stderr).toContain(
      "--strict-mcp-config uses only the servers of --mcp-config",
    );
    expect(fake.requests.length).toBe(0);
  });

  test("files and JSON strings, several, beside the project's; --strict-mcp-config leaves out the others", async () => {
    writeFileSync(join(ws.dir, "a.json"), JSON.stringify(server("from-file")));
    writeFileSync(join(ws.dir, ".mcp.json"), JSON.stringify(server("from-project")));
    const fake = await startFakeLlm({ script: [{ text: "a" }, { text: "b" }] });
    const flags = ["--mcp-config", "a.json", JSON.stringify(server("from-json"))];
    const both = await ws.run([...WIRE_APIS[0].flags(fake), ...stream, ...flags], { stdin: userLine });
    expect(both.code).toBe(0);
    expect(serversOf(both.stdout)).toEqual(["from-file", "from-json", "from-project"]);
    const strict = await ws.run([...WIRE_APIS[0].flags(fake), ...stream, "--strict-mcp-config", ...flags], {
      stdin: userLine,
    });
    expect(strict.code).toBe(0);
    expect(serversOf(strict.stdout)).toEqual(["from-file", "from-json"]);
  });
});

describe("issue 35 flags gong does not honour", () => {
  test("refused with the alternative, exit 2, no model call; harmless ones are accepted", async () => {
    const fake = await startFakeLlm({ script: [{ text: "ran" }] });
    for (const [flag, message] of [
      [["--agent", "reviewer"], "--agent is not supported by gong: gong runs custom agents as subagents"],
      [["--permission-prompt-tool", "mcp__x__y"], "--permission-prompt-tool is not supported by gong"],
      [["--setting-sources", "user"], "--setting-sources is not supported by gong"],
      [["--file", "file_abc:doc.txt"], "attach a local file to the prompt with @path instead"],
      [["--bare"], "--bare is not supported by gong"],
    ] as const) {
      const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "go", ...flag]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
    }
    expect(fake.requests.length).toBe(0);
    const ignored = await ws.run([
      ...WIRE_APIS[0].flags(fake),
      "-p",
      "go",
      "--ide",
      "--debug",
      "--betas",
      "x-1",
      "--include-partial-messages",
    ]);
    expect(ignored.code).toBe(0);
    expect(ignored.stdout).toBe("ran\n");
  });
});
