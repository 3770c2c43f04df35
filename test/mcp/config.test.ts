/** Where MCP servers are configured: .mcp.json, settings layers, ${VAR}, trust, and clear errors. */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadMcpConfig, McpConfigError, serverFromOptions } from "../../lib/mcp/index.ts";
import { readSettingsFile, SettingsError } from "../../lib/core/settings.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gong-mcp-config-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const writeJson = (file: string, value: unknown) => writeFileSync(file, JSON.stringify(value, null, 2));

test(".mcp.json in Claude Code's shape: stdio and url servers, types inferred", () => {
  writeJson(join(dir, ".mcp.json"), {
    mcpServers: {
      files: { command: "node", args: ["server.js"], env: { LEVEL: "debug" } },
      remote: { type: "http", url: "http://127.0.0.1:9/mcp", headers: { "X-Team": "core" } },
      legacy: { type: "sse", url: "http://127.0.0.1:9/sse" },
      guess: { url: "http://127.0.0.1:9/mcp", someOtherToolsKey: true },
    },
  });
  const { servers } = loadMcpConfig({ cwd: dir, settings: [], trusted: true, env: {} });
  const byName = Object.fromEntries(servers.map((s) => [s.name, s]));
  expect(byName.files).toMatchObject({
    transport: "stdio",
    command: "node",
    args: ["server.js"],
    env: { LEVEL: "debug" },
    scope: "project",
  });
  expect(byName.remote).toMatchObject({ transport: "http", inferred: false, headers: { "X-Team": "core" } });
  expect(byName.legacy.transport).toBe("sse");
  expect(byName.guess).toMatchObject({ transport: "http", inferred: true });
  expect(byName.files.startupTimeoutMs).toBe(10_000);
  expect(byName.files.toolTimeoutMs).toBe(60_000);
});

test("${VAR} and ${VAR:-default} expand in command, args, env, url and headers; an unset one marks the server", () => {
  writeJson(join(dir, ".mcp.json"), {
    mcpServers: {
      gh: { type: "http", url: "${GH_URL:-http://127.0.0.1:1/mcp}", headers: { Authorization: "Bearer ${GH_TOKEN}" } },
      local: { command: "${TOOLS}/bin/server", args: ["--root", "${ROOT_DIR}"], env: { KEY: "${MISSING_ONE}" } },
    },
  });
  const { servers } = loadMcpConfig({
    cwd: dir,
    settings: [],
    trusted: true,
    env: { GH_TOKEN: "abc", TOOLS: "/opt/t", ROOT_DIR: "/src" },
  });
  const [gh, local] = servers;
  expect(gh.url).toBe("http://127.0.0.1:1/mcp");
  expect(gh.headers.Authorization).toBe("Bearer abc");
  expect(gh.problem).toBeUndefined();
  expect(local.command).toBe("/opt/t/bin/server");
  expect(local.args).toEqual(["--root", "/src"]);
  expect(local.problem).toContain("${MISSING_ONE}");
  expect(local.problem).toContain(".mcp.json");
});

test("later places win by name: global settings < .mcp.json < project settings", () => {
  writeJson(join(dir, ".mcp.json"), {
    mcpServers: { a: { command: "from-mcp-json" }, b: { command: "from-mcp-json" } },
  });
  const { servers } = loadMcpConfig({
    cwd: dir,
    trusted: true,
    env: {},
    settings: [
      {
        file: "/home/u/.gong/settings.json",
        scope: "global",
        servers: { a: { command: "global" }, g: { command: "global", enabled: false } },
      },
      {
        file: join(dir, ".gong/settings.json"),
        scope: "project",
        servers: { b: { command: "project-settings", toolTimeoutMs: 5000 } },
      },
    ],
  });
  const byName = Object.fromEntries(servers.map((s) => [s.name, s]));
  expect(byName.a.command).toBe("from-mcp-json");
  expect(byName.b).toMatchObject({ command: "project-settings", toolTimeoutMs: 5000 });
  expect(byName.g).toMatchObject({ enabled: false, scope: "global" });
});

test("an untrusted project: its servers are left out, global ones stay", () => {
  writeJson(join(dir, ".mcp.json"), { mcpServers: { repo: { command: "node", args: ["evil.js"] } } });
  const loaded = loadMcpConfig({
    cwd: dir,
    trusted: false,
    env: {},
    settings: [{ file: "/home/u/.gong/settings.json", scope: "global", servers: { mine: { command: "mine" } } }],
  });
  expect(loaded.servers.map((s) => s.name)).toEqual(["mine"]);
  expect(loaded.untrusted.map((s) => s.name)).toEqual(["repo"]);
});

test("bad config line in .mcp.json: the error names the file and the key", () => {
  const file = join(dir, ".mcp.json");
  writeJson(file, { mcpServers: { good: { command: "node" }, broken: { command: "node", args: "--verbose" } } });
  expect(() => loadMcpConfig({ cwd: dir, settings: [], trusted: true, env: {} })).toThrow(McpConfigError);
  expect(() => loadMcpConfig({ cwd: dir, settings: [], trusted: true, env: {} })).toThrow(
    `Invalid MCP configuration in ${file}: 'mcpServers.broken.args'`,
  );
  writeJson(file, { mcpServers: { neither: { args: ["x"] } } });
  expect(() => loadMcpConfig({ cwd: dir, settings: [], trusted: true, env: {} })).toThrow(
    /'mcpServers.neither' needs a "command".*or a "url"/,
  );
  writeFileSync(file, "{ not json");
  expect(() => loadMcpConfig({ cwd: dir, settings: [], trusted: true, env: {} })).toThrow(
    `Invalid MCP configuration in ${file}:`,
  );
  // In an untrusted project the file is not used, so its mistakes do not stop anything.
  expect(loadMcpConfig({ cwd: dir, settings: [], trusted: false, env: {} }).unreadable).toContain(
    "Invalid MCP configuration",
  );
});

test("bad config line in settings: the settings error names the file and the key", () => {
  mkdirSync(join(dir, ".gong"));
  const file = join(dir, ".gong", "settings.json");
  writeJson(file, { mcpServers: { db: { command: "db-server", startupTimeoutMs: "soon" } } });
  expect(() => readSettingsFile(file)).toThrow(SettingsError);
  expect(() => readSettingsFile(file)).toThrow(`Invalid settings in ${file}: 'mcpServers.db.startupTimeoutMs'`);
  writeJson(file, { mcpServers: { db: { command: "db-server", enabledTool: ["x"] } } });
  expect(() => readSettingsFile(file)).toThrow(`'mcpServers.db.enabledTool' is not a known setting`);
});

test("createSession's entries are checked the same way", () => {
  expect(serverFromOptions("ok", { command: "node", enabledTools: ["echo"] })).toMatchObject({
    scope: "sdk",
    enabledTools: ["echo"],
  });
  expect(() => serverFromOptions("bad", { type: "stdio", url: "http://x" })).toThrow(
    /MCP server 'bad'.*needs a "command"/,
  );
});

test("issue 34: one phrasing of a configuration problem: an unknown key is named the same in settings, .mcp.json and createSession", () => {
  mkdirSync(join(dir, ".gong"));
  const settings = join(dir, ".gong", "settings.json");
  writeJson(settings, { mcpServers: { db: { command: "db-server", enabledTool: ["x"] } } });
  expect(() => readSettingsFile(settings)).toThrow(`'mcpServers.db.enabledTool' is not a known setting`);
  expect(() => serverFromOptions("db", { command: "db-server", enabledTool: ["x"] })).toThrow(
    "Invalid MCP server 'db': 'enabledTool' is not a known setting",
  );
  expect(() => serverFromOptions("db", { command: "db-server", startupTimeoutMs: "soon" })).toThrow(
    "Invalid MCP server 'db': 'startupTimeoutMs' expected number but received",
  );
});
