/** MCP servers through the `gong` command: settings, .mcp.json and trust, `gong mcp list`, a print-mode call. */
import { expect, test, setDefaultTimeout } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ScriptTurn } from "../../lib/testing/fake-llm/types.ts";
import { slowStdioEntry, stdioEntry } from "../mcp/helpers.ts";
import { ROOT, startFakeLlm, useWorkspace, WIRE_APIS } from "./helpers.ts";
import { gongTerminal } from "./terminal.ts";

// A terminal test waits for many screens; on a crowded machine each may take seconds.
setDefaultTimeout(120_000);

const ws = useWorkspace();

function globalSettings(value: unknown): string {
  const dir = join(ws.home, ".gong");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "settings.json");
  writeFileSync(file, JSON.stringify(value, null, 2));
  return file;
}

test("gong mcp list: each server with its state and tools; project servers of an untrusted project are not started", async () => {
  globalSettings({
    mcpServers: {
      everything: stdioEntry(),
      broken: { command: "/nonexistent/server" },
      off: { ...stdioEntry(), enabled: false },
    },
  });
  writeFileSync(
    join(ws.dir, ".mcp.json"),
    JSON.stringify({ mcpServers: { repo: { command: "node", args: ["server.js"] } } }),
  );
  const r = await ws.run(["mcp", "list"]);
  expect(r.code).toBe(0);
  const blocks = Object.fromEntries(r.stdout.split(/\n(?=\S)/).map((b) => [b.split(" ")[0], b]));
  expect(blocks.everything).toMatch(/^everything {2}connected {2}stdio /);
  expect(blocks.everything).toContain("  mcp__everything__echo  Echoes back the input string");
  expect(blocks.everything).toContain("mcp__everything__get-tiny-image");
  expect(blocks.broken).toMatch(/^broken {2}failed {2}stdio /);
  expect(blocks.broken).toContain("/nonexistent/server");
  expect(blocks.off).toContain('not started: "enabled": false');
  expect(blocks.repo).toMatch(/^repo {2}untrusted {2}stdio .*\.mcp\.json/);
  expect(blocks.repo).toContain("not started: the project is not trusted");
}, 30_000);

test("gong mcp list with nothing configured says where servers go", async () => {
  const r = await ws.run(["mcp", "list"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("No MCP servers configured");
  expect((await ws.run(["mcp", "add"])).code).toBe(2);
});

test("print mode: a server from the settings is called once it has connected; the first request did not wait", async () => {
  // The server starts 2 s late, so a first request that waited for it would list its tools, however fast the machine.
  globalSettings({ mcpServers: { everything: slowStdioEntry(2000) } });
  // The model keeps to bash until the echo tool shows up in its request, then calls it.
  const script = (request: { body: { tools?: { name: string }[]; messages: { content: unknown }[] } }): ScriptTurn => {
    const names = (request.body.tools ?? []).map((t) => t.name);
    const text = JSON.stringify(request.body.messages);
    if (text.includes("Echo: via the CLI")) return { text: "the server answered" };
    if (names.includes("mcp__everything__echo"))
      return { toolCalls: [{ name: "mcp__everything__echo", arguments: { message: "via the CLI" } }] };
    return { toolCalls: [{ name: "bash", arguments: { command: "sleep 0.3" } }] };
  };
  const fake = await startFakeLlm({ script });
  const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "use the echo tool", "--verbose"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toBe("the server answered\n");
  expect(r.stderr).toContain("MCP server 'everything' connected");
  const firstTools = (fake.requests[0].body.tools as { name: string }[]).map((t) => t.name);
  expect(firstTools.some((n) => n.startsWith("mcp__"))).toBe(false);
}, 30_000);

test("a project .mcp.json in an untrusted project: one line on stderr, the session goes on", async () => {
  writeFileSync(join(ws.dir, ".mcp.json"), JSON.stringify({ mcpServers: { repo: stdioEntry() } }));
  const fake = await startFakeLlm({ script: [{ text: "done" }] });
  const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "hi"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toBe("done\n");
  expect(r.stderr).toBe(
    `gong: ignoring the MCP server repo from ${join(ws.dir, ".mcp.json")}: the project is not trusted (run with --trust, or list it under "trustedProjects" in ${join(ws.home, ".gong", "settings.json")}).\n`,
  );
  expect((fake.requests[0].body.tools as { name: string }[]).some((t) => t.name.startsWith("mcp__"))).toBe(false);
});

test("a bad config line in the settings: exit 2, the message names the file and the key", async () => {
  const file = globalSettings({ mcpServers: { db: { command: "db-server", args: "--port 5" } } });
  const r = await ws.run(["-p", "hi", "--model", "anthropic/claude-haiku-4-5", "--api-key", "x"]);
  expect(r.code).toBe(2);
  expect(r.stderr).toBe(
    `gong: Invalid settings in ${file}: 'mcpServers.db.args' expected Array but received "--port 5"\n`,
  );
});

const DENO = join(ROOT, "node_modules/.bin/deno");

test.skipIf(!existsSync(DENO))(
  "deno runs gong mcp list: the SDK's stdio client works there too",
  async () => {
    globalSettings({ mcpServers: { everything: stdioEntry() } });
    const args = ["run", "-A", "--config", join(ROOT, "deno.json"), join(ROOT, "cli.ts"), "mcp", "list"];
    const r = await ws.run(args, { binary: DENO, env: { DENO_DIR: join(ws.home, "deno"), DENO_NO_UPDATE_CHECK: "1" } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^everything {2}connected {2}stdio /);
    expect(r.stdout).toContain("mcp__everything__echo");
  },
  60_000,
);

const hasTmux = Bun.spawnSync(["which", "tmux"]).exitCode === 0;

test.skipIf(!hasTmux)(
  "interactive: a long MCP call shows its progress in the spinner line and Ctrl-C cancels it",
  async () => {
    globalSettings({ mcpServers: { everything: stdioEntry() } });
    const fake = await startFakeLlm({
      script: [
        { text: "hello back" },
        {
          toolCalls: [
            { name: "mcp__everything__trigger-long-running-operation", arguments: { duration: 30, steps: 60 } },
          ],
        },
        { text: "after the interrupt" },
      ],
    });
    using term = gongTerminal(ws);
    const waitFor = (check: (text: string) => boolean, what: string) => term.waitFor(check, what, 20_000);
    term.start(WIRE_APIS[0].flags(fake));
    await waitFor((s) => s.includes("›"), "the prompt");
    // Server events are told from the session's start on: the first input starts it.
    term.keys("hello", "Enter");
    await waitFor((s) => s.includes("hello back"), "the first answer");
    await waitFor((s) => /MCP server 'everything' connected: \d+ tools/.test(s), "the server");
    term.keys("run the long operation", "Enter");
    await waitFor((s) => /trigger-long-running-operation .*\b[2-9]\/60\b/.test(s), "progress in the spinner line");
    term.keys("C-c");
    // The interrupt stops the running call: its result line says it was cancelled (or aborted, when the stop reached it first).
    await waitFor(
      (s) => /trigger-long-running-operation[^\n]*\n\s*⎿ [^\n]*(cancelled|aborted)/i.test(s),
      "the cancelled call",
    );
  },
  60_000,
);

test("--trust: the project's .mcp.json and settings servers start", async () => {
  writeFileSync(join(ws.dir, ".mcp.json"), JSON.stringify({ mcpServers: { repo: stdioEntry() } }));
  mkdirSync(join(ws.dir, ".gong"));
  writeFileSync(
    join(ws.dir, ".gong", "settings.json"),
    JSON.stringify({ mcpServers: { "project-settings": stdioEntry() } }),
  );
  const untrusted = await ws.run(["mcp", "list"]);
  expect(untrusted.stdout).toMatch(/^repo {2}untrusted/m);
  expect(untrusted.stdout).toMatch(/^project-settings {2}untrusted/m);
  const trusted = await ws.run(["mcp", "list", "--trust"]);
  expect(trusted.code).toBe(0);
  expect(trusted.stdout).toMatch(/^repo {2}connected {2}stdio .*\.mcp\.json/m);
  expect(trusted.stdout).toMatch(/^project-settings {2}connected {2}stdio .*settings\.json/m);
  expect(trusted.stdout).toContain("mcp__repo__echo");
}, 30_000);

test("a bad config line in a trusted project's .mcp.json: exit 2, the message names the file and the key", async () => {
  const file = join(ws.dir, ".mcp.json");
  writeFileSync(file, JSON.stringify({ mcpServers: { ok: stdioEntry(), broken: { command: "x", env: { PORT: 5 } } } }));
  const r = await ws.run(["mcp", "list", "--trust"]);
  expect(r.code).toBe(2);
  expect(r.stderr).toBe(
    `gong: Invalid MCP configuration in ${file}: 'mcpServers.broken.env.PORT' expected string but received 5\n`,
  );
});
