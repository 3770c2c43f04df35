/**
 * Issue 35, `gong mcp add|add-json|list|get|remove` in Claude Code's syntax and scopes, and the
 * MCP servers of codex's `~/.codex/config.toml` read as gong reads `.mcp.json`.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EVERYTHING, NODE } from "../mcp/helpers.ts";
import { useWorkspace } from "./helpers.ts";

const ws = useWorkspace();
const json = (file: string) => JSON.parse(readFileSync(file, "utf8"));
const localFile = () => join(ws.home, ".gong", "local-mcp.json");
const userFile = () => join(ws.home, ".gong", "settings.json");

describe("issue 35 gong mcp add writes Claude Code's entry to the scope's file", () => {
  test("local (the default): yours, this project, under GONG_HOME; then list connects it", async () => {
    const r = await ws.run(["mcp", "add", "everything", "-e", "DEMO=1", "--", NODE, EVERYTHING, "stdio"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Added stdio MCP server everything to local config");
    expect(json(localFile()).projects[ws.dir].mcpServers.everything).toEqual({
      type: "stdio",
      command: NODE,
      args: [EVERYTHING, "stdio"],
      env: { DEMO: "1" },
    });
    // The user's own: it runs in an untrusted project.
    const list = await ws.run(["mcp", "list"]);
    expect(list.stdout).toMatch(/^everything {2}connected {2}stdio /);
    const get = await ws.run(["mcp", "get", "everything"]);
    expect(get.code).toBe(0);
    expect(get.stdout).toContain("Scope: local config (yours, this project)");
    expect(get.stdout).toMatch(/Status: connected \(\d+ tools\)/);
    expect(get.stdout).toContain("Environment: DEMO");
    expect(get.stdout).toContain("To remove it: gong mcp remove everything -s local");
  }, 60_000);

  test("project: .mcp.json; user: ~/.gong/settings.json, other keys kept; http with headers", async () => {
    mkdirSync(join(ws.home, ".gong"), { recursive: true });
    writeFileSync(userFile(), JSON.stringify({ model: "anthropic/claude-haiku-4-5" }));
    const project = await ws.run(["mcp", "add", "-s", "project", "srv", "npx", "foo", "--flag"]);
    expect(project.code).toBe(0);
    expect(json(join(ws.dir, ".mcp.json"))).toEqual({
      mcpServers: { srv: { type: "stdio", command: "npx", args: ["foo", "--flag"] } },
    });
    const user = await ws.run([
      "mcp",
      "add",
      "--transport",
      "http",
      "--scope",
      "user",
      "remote",
      "https://mcp.example.com/mcp",
      "-H",
      "Authorization: Bearer x",
    ]);
    expect(user.code).toBe(0);
    expect(json(userFile())).toEqual({
      model: "anthropic/claude-haiku-4-5",
      mcpServers: {
        remote: { type: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer x" } },
      },
    });
    const addJson = await ws.run([
      "mcp",
      "add-json",
      "-s",
      "project",
      "j",
      '{"type":"sse","url":"http://127.0.0.1:9/sse"}',
    ]);
    expect(addJson.code).toBe(0);
    expect(json(join(ws.dir, ".mcp.json")).mcpServers.j).toEqual({ type: "sse", url: "http://127.0.0.1:9/sse" });
  });

  test("bad input is one sentence and changes nothing", async () => {
    expect((await ws.run(["mcp", "add", "-s", "project", "srv", "npx", "a"])).code).toBe(0);
    const before = readFileSync(join(ws.dir, ".mcp.json"), "utf8");
    for (const [args, code, message] of [
      [["add", "-s", "project", "srv", "other"], 1, "MCP server 'srv' already exists in project config"],
      [
        ["add", "web", "https://mcp.example.com"],
        2,
        "'https://mcp.example.com' is an address: add it with --transport http",
      ],
      [["add", "-s", "team", "x", "cmd"], 2, "--scope must be local, project or user"],
      [["add", "-t", "ws", "x", "cmd"], 2, "--transport must be stdio, http or sse"],
      [["add", "x"], 2, "needs a name and a command or URL"],
      [["add", "-e", "NOEQUALS", "x", "cmd"], 2, "-e takes KEY=VALUE"],
      [["add", "bad__name", "cmd"], 2, "cannot name an MCP server"],
      [["add-json", "-s", "project", "j", "{not json"], 2, "The server's JSON does not parse"],
      [["add-json", "-s", "project", "j", '{"args": []}'], 2, "The server 'j' is not valid"],
      [["remove", "nothing-here"], 1, "no MCP server named 'nothing-here'"],
      [["get", "nothing-here"], 1, "no MCP server named 'nothing-here' here"],
    ] as const) {
      const r = await ws.run(["mcp", ...args]);
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code, stderr: expect.stringContaining(message) });
    }
    expect(readFileSync(join(ws.dir, ".mcp.json"), "utf8")).toBe(before);
    expect(existsSync(localFile())).toBe(false);
    // A file that does not parse is left as it is.
    writeFileSync(join(ws.dir, ".mcp.json"), "{ broken");
    const broken = await ws.run(["mcp", "add", "-s", "project", "y", "cmd"]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain(".mcp.json is not valid JSON");
    expect(readFileSync(join(ws.dir, ".mcp.json"), "utf8")).toBe("{ broken");
  });

  test("remove finds the scope; a name in two scopes must be told which", async () => {
    await ws.run(["mcp", "add", "twice", "cmd"]);
    await ws.run(["mcp", "add", "-s", "user", "twice", "cmd"]);
    const ambiguous = await ws.run(["mcp", "remove", "twice"]);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain("exists in local and user config; say which: gong mcp remove twice -s local");
    const removed = await ws.run(["mcp", "remove", "twice", "-s", "user"]);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain("Removed MCP server twice from user config");
    expect(json(userFile()).mcpServers).toEqual({});
    expect((await ws.run(["mcp", "remove", "twice"])).code).toBe(0);
    expect(json(localFile()).projects[ws.dir].mcpServers).toEqual({});
  });
});

describe("issue 35 codex's config.toml: its MCP servers are read as .mcp.json is", () => {
  test("[mcp_servers.NAME] with codex's keys, as the user's own file (no trust needed)", async () => {
    mkdirSync(join(ws.home, ".codex"));
    writeFileSync(
      join(ws.home, ".codex", "config.toml"),
      `model = "gpt-5.2"

[mcp_servers.everything]
command = "${NODE}"
args = ["${EVERYTHING}", "stdio"]
env = { DEMO = "1" }
startup_timeout_sec = 30

[mcp_servers.docs]
url = "https://docs.example.com/mcp"
bearer_token_env_var = "DOCS_TOKEN"
enabled = false
`,
    );
    const list = await ws.run(["mcp", "list"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^everything {2}connected {2}stdio .*config\.toml/m);
    expect(list.stdout).toContain('not started: "enabled": false');
    const get = await ws.run(["mcp", "get", "docs"]);
    expect(get.stdout).toContain("Headers: Authorization");
    expect(get.stdout).toContain("URL: https://docs.example.com/mcp");
  }, 60_000);

  test("a config.toml that does not parse is a warning; the run goes on", async () => {
    mkdirSync(join(ws.home, ".codex"));
    writeFileSync(join(ws.home, ".codex", "config.toml"), "[mcp_servers.x\ncommand=");
    const r = await ws.run(["mcp", "list"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("config.toml could not be read");
    expect(r.stdout).toContain("No MCP servers configured");
  });
});
