/**
 * Plugins and extensions through the real `gong` command against the fake LLM server (issue 39):
 * published plugins installed from a bare git repository standing in for GitHub (reached by its
 * GitHub address through git's url.<base>.insteadOf in the test's HOME), their skills, commands,
 * hooks and MCP servers seen and used by the model, payload's published settings honoured once
 * the project is trusted, a disabled plugin gone at the next start, a gemini-cli extension's
 * context in the gemini profile's prompt and its excludeTools holding under every profile.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { RecordedRequest, ScriptTurn } from "../../lib/testing/fake-llm/types.ts";
import { gitHost, hasGit, PLUGIN_FIXTURES } from "../helpers/git-host.ts";
import { fakeFlags, startFakeLlm, useWorkspace } from "./helpers.ts";

// Installs clone repositories and each run starts MCP servers and hooks: minutes on a crowded machine.
setDefaultTimeout(120_000);

const ws = useWorkspace();

/** A bare repository for obra/superpowers, and git sending github.com to it. */
function githubWithSuperpowers(): void {
  const host = gitHost();
  hosts.push(host);
  host.publish("superpowers", "obra/superpowers");
  host.redirectGithub(ws.home);
}
const hosts: Array<ReturnType<typeof gitHost>> = [];
import { afterEach } from "bun:test";
afterEach(() => {
  for (const h of hosts.splice(0)) h.cleanup();
});

/** A copy of a published marketplace folder (outside any git work tree). */
function folderOf(fixture: string): string {
  const dir = join(ws.home, "marketplaces", fixture);
  cpSync(join(PLUGIN_FIXTURES, fixture), dir, { recursive: true });
  return dir;
}

async function gong(...args: string[]) {
  const r = await ws.run(args);
  if (r.code !== 0) throw new Error(`gong ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return r;
}

const anthropic = (fake: { baseUrls: { anthropic: string } }) =>
  fakeFlags("anthropic/claude-haiku-4-5", fake.baseUrls.anthropic, "anthropic");
const bodyOf = (r: RecordedRequest) => JSON.stringify(r.body);

test.skipIf(!hasGit)(
  "issue 39: installed plugins reach the model: the skills listed, a command expanded, the SessionStart hooks' context; Skill(superpowers:…) loads",
  async () => {
    githubWithSuperpowers();
    await gong("plugin", "marketplace", "add", "obra/superpowers");
    await gong("plugin", "install", "superpowers@superpowers-dev");
    await gong("plugin", "marketplace", "add", folderOf("claude-plugins-official"));
    await gong("plugin", "install", "commit-commands@claude-plugins-official");
    await gong("plugin", "install", "explanatory-output-style@claude-plugins-official");
    const fake = await startFakeLlm({
      script: [{ toolCalls: [{ name: "Skill", arguments: { skill: "superpowers:brainstorming" } }] }, { text: "done" }],
    });
    const r = await ws.run([...anthropic(fake), "-p", "/commit-commands:commit"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const first = bodyOf(fake.requests[0]);
    expect(first).toContain("- superpowers:brainstorming: You MUST use this before any creative work");
    // The command's text is the prompt, and both plugins' SessionStart hooks gave their context.
    expect(first).toContain("Based on the above changes, create a single git commit.");
    expect(first).toContain("You have superpowers.");
    expect(first).toContain("You are in 'explanatory' output style mode");
    expect(bodyOf(fake.requests[1])).toContain("# Brainstorming Ideas Into Designs");
  },
);

test("issue 39: a plugin's MCP server is started and its tools called; its Stop hook runs at the end of an input (session-bus)", async () => {
  await gong("plugin", "marketplace", "add", folderOf("session-bus"));
  await gong("plugin", "install", "session-bus@session-bus");
  const tool = "mcp__plugin_session-bus_session-bus__sessions_list";
  // gong mcp list names the plugin each server came with.
  const servers = await gong("mcp", "list");
  expect(servers.stdout).toMatch(
    /^plugin:session-bus:session-bus {2}connected {2}stdio {2}session-bus@session-bus: \S+\/\.mcp\.json \(mcpServers\.session-bus\)$/m,
  );
  expect(servers.stdout).toContain(`  ${tool}  List other live local Claude Code sessions`);
  // The model keeps to the shell until the plugin's tool shows up in its request (servers connect in the background).
  const script = (request: RecordedRequest): ScriptTurn => {
    const names = ((request.body.tools ?? []) as { name: string }[]).map((t) => t.name);
    const text = bodyOf(request);
    if (text.includes("peer Claude Code session")) return { text: "read the peer's message" };
    if (text.includes("Other live sessions")) return { text: "listed" };
    if (names.includes(tool)) return { toolCalls: [{ name: tool, arguments: {} }] };
    return { toolCalls: [{ name: "Bash", arguments: { command: "sleep 0.3" } }] };
  };
  const fake = await startFakeLlm({ script });
  const r = await ws.run([...anthropic(fake), "-p", "who is on the bus?", "--output-format", "json"]);
  expect(r.code).toBe(0);
  const result = JSON.parse(r.stdout);
  expect(result.answer).toBe("listed");
  // The server ran with CLAUDE_PLUGIN_ROOT: it registered this session under the test's HOME.
  expect(existsSync(join(ws.home, ".claude/session-bus/sessions"))).toBe(true);
  // A peer's message waits in this session's inbox: the plugin's Stop hook hands it to the model when the next input ends.
  const inbox = join(ws.home, ".claude/session-bus/msgs");
  mkdirSync(inbox, { recursive: true });
  const message = {
    id: "m1",
    ts: new Date().toISOString(),
    from: "peer",
    fromLabel: "review",
    kind: "msg",
    body: "tests pass on main",
  };
  await Bun.write(join(inbox, `${result.session_id}.jsonl`), `${JSON.stringify(message)}\n`);
  fake.setScript(script);
  const again = await ws.run([...anthropic(fake), "-c", "-p", "anything new?"]);
  expect(again.code).toBe(0);
  expect(again.stdout).toBe("read the peer's message\n");
  expect(bodyOf(fake.requests.at(-1)!)).toContain("tests pass on main");
});

test.skipIf(!hasGit)(
  "issue 39: payload's published .claude/settings.json: nothing is fetched until the project is trusted; then --install-plugins adds the marketplace, installs and turns on superpowers",
  async () => {
    githubWithSuperpowers();
    cpSync(join(PLUGIN_FIXTURES, "payload"), ws.dir, { recursive: true });
    const fake = await startFakeLlm({ script: [{ text: "ok" }, { text: "ok" }, { text: "ok" }] });
    // Untrusted: one line names what was left out; nothing is cloned.
    const untrusted = await ws.run([...anthropic(fake), "-p", "hi", "--install-plugins"]);
    expect(untrusted.code).toBe(0);
    expect(untrusted.stderr).toContain(
      `Ignoring 42 permissions.allow entries, hooks, enabledPlugins, extraKnownMarketplaces from ${join(ws.dir, ".claude/settings.json")}: the project is not trusted`,
    );
    expect(existsSync(join(ws.home, ".gong/plugins"))).toBe(false);
    // Trusted, in print mode without the flag: the line says how; still nothing is fetched.
    const asked = await ws.run([...anthropic(fake), "-p", "hi", "--trust"]);
    expect(asked.stderr).toContain(
      `gong: ${join(ws.dir, ".claude/settings.json")} turns on superpowers@superpowers-dev, not installed: run 'gong plugin install superpowers@superpowers-dev', or start gong with --install-plugins.`,
    );
    expect(existsSync(join(ws.home, ".gong/plugins"))).toBe(false);
    // Trusted, with the flag: installed from "GitHub", turned on by the project's file, loaded.
    const installed = await ws.run([...anthropic(fake), "-p", "hi", "--trust", "--install-plugins"]);
    expect(installed.code).toBe(0);
    expect(installed.stderr).toMatch(/gong: installed superpowers@superpowers-dev at [0-9a-f]{12}\./);
    const request = bodyOf(fake.requests.at(-1)!);
    expect(request).toContain("You have superpowers.");
    for (const skill of ["brainstorming", "executing-plans", "systematic-debugging", "writing-skills"])
      expect(request).toContain(`- superpowers:${skill}:`);
    const known = JSON.parse(readFileSync(join(ws.home, ".gong/plugins/known_marketplaces.json"), "utf8"));
    expect(known["superpowers-dev"].source).toEqual({ source: "github", repo: "obra/superpowers" });
    const list = await gong("plugin", "list");
    expect(list.stdout).toContain(`superpowers@superpowers-dev  6.2.0  at `);
    // Listing trusts nothing by itself: it says why the project's request does not hold without --trust.
    expect(list.stdout).toContain(
      `off (${join(ws.dir, ".claude/settings.json")} turns it on, but the project is not trusted)`,
    );
  },
);

test("issue 39: a disabled plugin is gone at the next start: no skills, no hooks, no server", async () => {
  await gong("plugin", "marketplace", "add", folderOf("claude-plugins-official"));
  await gong("plugin", "install", "explanatory-output-style@claude-plugins-official");
  await gong("plugin", "marketplace", "add", folderOf("session-bus"));
  await gong("plugin", "install", "session-bus@session-bus");
  const fake = await startFakeLlm({ script: [{ text: "on" }, { text: "off" }] });
  await gong(...anthropic(fake), "-p", "hi");
  expect(bodyOf(fake.requests[0])).toContain("You are in 'explanatory' output style mode");
  const off = await gong("plugin", "disable", "explanatory-output-style@claude-plugins-official");
  expect(off.stdout).toBe(
    `explanatory-output-style@claude-plugins-official turned off in ${join(ws.home, ".gong/settings.json")}; this loads at gong's next start.\n`,
  );
  await gong("plugin", "disable", "session-bus@session-bus");
  const r = await gong(...anthropic(fake), "-p", "hi", "--verbose");
  expect(bodyOf(fake.requests[1])).not.toContain("explanatory");
  expect(r.stderr).not.toContain("session-bus");
  const list = await gong("plugin", "list");
  expect(list.stdout).toContain(`session-bus@session-bus  0.3.1  off (${join(ws.home, ".gong/settings.json")})`);
  expect(list.stdout).toContain("    MCP servers: plugin:session-bus:session-bus");
  expect(list.stdout).toContain("    hooks: Stop");
});

test("issue 39: a gemini-cli extension's context is in the gemini profile's prompt (as GEMINI.md), not another's; its excludeTools holds under every profile", async () => {
  const installed = await gong("extensions", "install", join(PLUGIN_FIXTURES, "superpowers"));
  expect(installed.stdout).toStartWith(
    `installed superpowers (gemini extension) 6.2.0 into ${join(ws.home, ".gemini/extensions/superpowers")}`,
  );
  await gong("extensions", "install", join(PLUGIN_FIXTURES, "gemini-cli-examples/exclude-tools"));
  const fake = await startFakeLlm({
    script: [
      { text: "gemini" },
      { toolCalls: [{ name: "Bash", arguments: { command: "rm -rf build" } }] },
      { text: "refused" },
    ],
  });
  await gong(...fakeFlags("gemini/gemini-2.5-flash", fake.baseUrls.gemini, "gemini"), "-p", "hi");
  expect(bodyOf(fake.requests[0])).toContain("Gemini CLI Tool Mapping");
  await gong(...anthropic(fake), "-p", "clean up");
  expect(bodyOf(fake.requests[1])).not.toContain("Gemini CLI Tool Mapping");
  const result = bodyOf(fake.requests[2]);
  expect(result).toContain("Bash(rm -rf:*)");
  expect(result).toContain("excludeTools (gemini extension)");
  const list = await gong("extensions", "list");
  expect(list.stdout).toContain("excludeTools (gemini extension)  1.0.0  user: ");
  expect(list.stdout).toContain("  excludeTools (deny rules): Bash(rm -rf:*)");
});

test("issue 39: gong plugin's mistakes: an unknown command is a usage error, an unknown plugin one sentence", async () => {
  const unknown = await ws.run(["plugin", "frobnicate"]);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toBe(
    "gong: Unknown command 'gong plugin frobnicate'. Use one of: install, uninstall, list, enable, disable, update, marketplace.\n",
  );
  const near = await ws.run(["plugin", "instal", "x"]);
  expect(near.code).toBe(2);
  expect(near.stderr).toBe("gong: Unknown command 'gong plugin instal'. Did you mean 'gong plugin install'?\n");
  const missing = await ws.run(["plugin", "install", "nothing@nowhere"]);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toBe(
    "gong: no marketplace named 'nowhere' is known: add it with 'gong plugin marketplace add SOURCE' (gong plugin marketplace list shows those known).\n",
  );
  const help = await ws.run(["plugin", "--help"]);
  expect(help.stdout).toContain("gong plugin marketplace add SOURCE");
  expect((await ws.run(["plugin", "list"])).stdout).toBe(
    "no marketplaces yet (gong plugin marketplace add SOURCE).\nno plugins installed (gong plugin install NAME@MARKETPLACE).\n",
  );
});
