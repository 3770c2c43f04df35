/**
 * Claude Code plugins (issue 39): marketplaces added from folders and git repositories, plugins
 * installed at a commit, read namespaced as Claude Code reads them, and every kind of bad input
 * named in one sentence with nothing half-installed. The fixtures are published marketplaces and
 * plugins (test/fixtures/plugins/SOURCES); a bare git repository stands in for GitHub.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readPlugin } from "../../lib/setup/plugins/contents.ts";
import { installPlugin, uninstallPlugin } from "../../lib/setup/plugins/install.ts";
import {
  addMarketplace,
  parseMarketplaceSource,
  removeMarketplace,
  updateMarketplace,
} from "../../lib/setup/plugins/marketplaces.ts";
import { loadBundles, withBundles } from "../../lib/setup/plugins/index.ts";
import { declaredMarketplaces, enabledPlugins, installRequested } from "../../lib/setup/plugins/requests.ts";
import { PluginError, PluginHome } from "../../lib/setup/plugins/store.ts";
import { gitHost, hasGit, PLUGIN_FIXTURES, type GitHost } from "../helpers/git-host.ts";
import { tempDir, type TempDir } from "../helpers/temp.ts";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A gong home, a user home and a project, all temporary. */
function setup() {
  const temp: TempDir = tempDir("gong-plugins-");
  cleanups.push(temp.cleanup);
  const home = new PluginHome(temp.path("gong"));
  return { temp, home, project: temp.path("project"), user: temp.path("user") };
}

/** A copy of a fixture to break, as a local marketplace. */
function copyOf(temp: TempDir, fixture: string): string {
  const dir = temp.path("copies", fixture);
  cpSync(join(PLUGIN_FIXTURES, fixture), dir, { recursive: true });
  return dir;
}

function host(): GitHost {
  const h = gitHost();
  cleanups.push(h.cleanup);
  return h;
}

/** What a failing call threw: a PluginError's one sentence. */
async function failure(run: () => Promise<unknown> | unknown): Promise<string> {
  try {
    await run();
  } catch (e) {
    expect(e).toBeInstanceOf(PluginError);
    return (e as Error).message;
  }
  throw new Error("expected a PluginError");
}

const cacheOf = (home: PluginHome) => join(home.root, "cache");
const files = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String) : []);

describe("marketplaces", () => {
  test.skipIf(!hasGit)(
    "issue 39: a marketplace from a bare git repository is cloned under its manifest's name at its commit; update moves it; remove forgets it",
    async () => {
      const { home } = setup();
      const h = host();
      const url = h.publish("superpowers", "obra/superpowers");
      const added = await addMarketplace(home, parseMarketplaceSource(url, "/"));
      expect(added.name).toBe("superpowers-dev");
      expect(added.known.installLocation).toBe(join(home.marketplaces, "superpowers-dev"));
      expect(added.known.commit).toMatch(/^[0-9a-f]{40}$/);
      expect(added.manifest.plugins.map((p) => p.name)).toEqual(["superpowers"]);
      // Added twice: refused, naming what is there.
      expect(await failure(() => addMarketplace(home, parseMarketplaceSource(url, "/")))).toContain(
        "a marketplace named 'superpowers-dev' is already added",
      );
      const next = h.push("obra/superpowers", (tree) => writeFileSync(join(tree, "NOTES.md"), "new\n"));
      const updated = await updateMarketplace(home, "superpowers-dev");
      expect(updated.known.commit).toBe(next);
      removeMarketplace(home, "superpowers-dev");
      expect(home.knownMarketplaces()).toEqual({});
      expect(existsSync(join(home.marketplaces, "superpowers-dev"))).toBe(false);
    },
  );

  test("issue 39: the sources marketplace add takes: owner/repo, a git URL with #ref, a folder, a marketplace.json", () => {
    const dir = join(PLUGIN_FIXTURES, "superpowers");
    expect(parseMarketplaceSource("obra/superpowers", "/nowhere")).toEqual({
      source: "github",
      repo: "obra/superpowers",
    });
    expect(parseMarketplaceSource("https://example.com/m.git#v2", "/nowhere")).toEqual({
      source: "git",
      url: "https://example.com/m.git",
      ref: "v2",
    });
    expect(parseMarketplaceSource(dir, "/")).toEqual({ source: "directory", path: dir });
    expect(parseMarketplaceSource(join(dir, ".claude-plugin/marketplace.json"), "/").source).toBe("file");
    expect(() => parseMarketplaceSource("not a source", "/nowhere")).toThrow(
      "'not a source' is not a marketplace source: give owner/repo (GitHub), a git URL, or a local folder",
    );
  });

  test("issue 39 bad input: a marketplace whose JSON does not parse names its file, and nothing is added", async () => {
    const { temp, home } = setup();
    const dir = copyOf(temp, "session-bus");
    writeFileSync(join(dir, ".claude-plugin/marketplace.json"), '{ "name": "session-bus", "plugins": [ ');
    const message = await failure(() => addMarketplace(home, { source: "directory", path: dir }));
    expect(message).toStartWith(`marketplace file ${join(dir, ".claude-plugin/marketplace.json")} is not valid JSON`);
    expect(home.knownMarketplaces()).toEqual({});
  });

  test.skipIf(!hasGit)(
    "issue 39 bad input: git that fails (no such repository) or is missing is one sentence, and nothing is added",
    async () => {
      const { home } = setup();
      const missing = await failure(() => addMarketplace(home, { source: "git", url: "file:///nonexistent/repo.git" }));
      expect(missing).toStartWith("marketplace git file:///nonexistent/repo.git: git clone");
      expect(missing).toEndWith("nothing was added.");
      expect(missing.split("\n")).toHaveLength(1);
      const path = process.env.PATH;
      process.env.PATH = "/nonexistent";
      try {
        const noGit = await failure(() => addMarketplace(home, { source: "github", repo: "obra/superpowers" }));
        expect(noGit).toBe(
          "marketplace github obra/superpowers: git is not installed (or not on PATH), and gong needs it to fetch plugins; nothing was added.",
        );
      } finally {
        process.env.PATH = path;
      }
      expect(home.knownMarketplaces()).toEqual({});
      expect(files(home.marketplaces)).toEqual([]);
    },
  );
});

describe("installing", () => {
  test("issue 39: Anthropic's marketplace installs its plugins as Claude Code names their parts", async () => {
    const { temp, home } = setup();
    await addMarketplace(home, { source: "directory", path: copyOf(temp, "claude-plugins-official") });
    const commit = await installPlugin(home, "commit-commands", "claude-plugins-official");
    expect(commit.parts.commands.map((c) => c.name).sort()).toEqual([
      "commit-commands:clean_gone",
      "commit-commands:commit",
      "commit-commands:commit-push-pr",
    ]);
    expect(commit.parts.commands.find((c) => c.name === "commit-commands:commit")).toMatchObject({
      plugin: "commit-commands@claude-plugins-official",
      allowedTools: ["Bash(git add:*)", "Bash(git status:*)", "Bash(git commit:*)"],
    });
    const style = await installPlugin(home, "explanatory-output-style", "claude-plugins-official");
    const hook = style.parts.hooks.SessionStart![0].hooks[0];
    expect(hook.command).toBe(`bash "${style.record.installPath}/hooks-handlers/session-start.sh"`);
    expect(hook.env).toEqual({
      CLAUDE_PLUGIN_ROOT: style.record.installPath,
      CLAUDE_PLUGIN_DATA: home.dataOf("explanatory-output-style@claude-plugins-official"),
    });
    expect(hook.source).toBe("plugin explanatory-output-style@claude-plugins-official, hooks/hooks.json");
    expect(await failure(() => installPlugin(home, "example-plugin", "claude-plugins-official"))).toBe(
      "marketplace 'claude-plugins-official' has no plugin named 'example-plugin' (it has 42crunch-api-security-testing, adobe-for-creativity, agent-sdk-dev, agentforce-adlc, ai-plugins, aikido, airtable, airwallex-agentos, airwallex-dev, aiven and 276 more).",
    );
    // A folder marketplace outside git has no commit: the version names the cache folder.
    expect(commit.record.installPath).toBe(join(home.cacheOf("claude-plugins-official", "commit-commands"), "unknown"));
    expect(Object.keys(home.installedPlugins()).sort()).toEqual([
      "commit-commands@claude-plugins-official",
      "explanatory-output-style@claude-plugins-official",
    ]);
    uninstallPlugin(home, "commit-commands@claude-plugins-official");
    expect(existsSync(commit.record.installPath)).toBe(false);
  });

  test("issue 39: a plugin's .mcp.json may be the bare map of servers, and skills/*/SKILL.md are its skills (Anthropic's example-plugin)", async () => {
    const { home } = setup();
    const root = join(PLUGIN_FIXTURES, "claude-plugins-official/plugins/example-plugin");
    const parts = await readPlugin({ id: "example-plugin@x", name: "example-plugin", root, data: home.dataOf("e") });
    expect(parts.skills.map((s) => s.name)).toEqual(["example-plugin:example-command", "example-plugin:example-skill"]);
    expect(parts.commands.map((c) => [c.name, c.argumentHint])).toEqual([
      ["example-plugin:example-command", "<required-arg> [optional-arg]"],
    ]);
    expect(parts.servers.map((s) => [s.name, s.entry])).toEqual([
      ["plugin:example-plugin:example-server", { type: "http", url: "https://mcp.example.com/api" }],
    ]);
    expect([...parts.problems, ...parts.fatal]).toEqual([]);
  });

  test("issue 39: agents are subagent types named plugin:agent; plugin.json's inline hooks and servers load beside the files", async () => {
    const { temp, home } = setup();
    const root = temp.path("reviewers");
    mkdirSync(join(root, ".claude-plugin"), { recursive: true });
    mkdirSync(join(root, "agents"));
    // feature-dev's published code-reviewer agent (test/fixtures/setup/SOURCES), and one without a name.
    cpSync(
      join(PLUGIN_FIXTURES, "../setup/project/.claude/agents/review/code-reviewer.md"),
      join(root, "agents/code-reviewer.md"),
    );
    writeFileSync(join(root, "agents/triage.md"), "---\ndescription: Sorts new issues\n---\nSort them.\n");
    writeFileSync(
      join(root, ".claude-plugin/plugin.json"),
      JSON.stringify({
        name: "reviewers",
        hooks: { Stop: [{ hooks: [{ type: "command", command: "echo ${CLAUDE_PLUGIN_ROOT}" }] }] },
        mcpServers: { notes: { command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/notes.mjs"] } },
      }),
    );
    const parts = await readPlugin({ id: "reviewers@local", name: "reviewers", root, data: home.dataOf("r") });
    expect(parts.agents.map((a) => [a.name, a.model, a.plugin])).toEqual([
      ["reviewers:code-reviewer", "sonnet", "reviewers@local"],
      ["reviewers:triage", undefined, "reviewers@local"],
    ]);
    expect(parts.hooks.Stop![0].hooks[0].command).toBe(`echo ${root}`);
    expect(parts.servers.map((s) => s.name)).toEqual(["plugin:reviewers:notes"]);
  });

  test("issue 39: a plugin with an MCP server and hooks (session-bus): its server carries CLAUDE_PLUGIN_ROOT", async () => {
    const { home } = setup();
    await addMarketplace(home, { source: "directory", path: join(PLUGIN_FIXTURES, "session-bus") });
    const done = await installPlugin(home, "session-bus", "session-bus");
    expect(done.parts.servers).toEqual([
      {
        name: "plugin:session-bus:session-bus",
        entry: { command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/mcp/server.mjs"] },
        file: join(done.record.installPath, ".mcp.json"),
        plugin: "session-bus@session-bus",
        variables: {
          CLAUDE_PLUGIN_ROOT: done.record.installPath,
          CLAUDE_PLUGIN_DATA: home.dataOf("session-bus@session-bus"),
        },
      },
    ]);
    expect(Object.keys(done.parts.hooks)).toEqual(["Stop"]);
    // Its manifest's channels are Claude Code's alone: listed as not supported.
    expect(done.parts.unsupported).toEqual(["channels"]);
  });

  test.skipIf(!hasGit)(
    "issue 39: an installed plugin stays at its commit until update moves it, and the old folder goes",
    async () => {
      const { home } = setup();
      const h = host();
      await addMarketplace(home, parseMarketplaceSource(h.publish("superpowers", "obra/superpowers"), "/"));
      const first = await installPlugin(home, "superpowers", "superpowers-dev");
      expect(first.record.installPath).toBe(
        join(home.cacheOf("superpowers-dev", "superpowers"), first.record.gitCommitSha!.slice(0, 12)),
      );
      expect(first.parts.skills).toHaveLength(14);
      const next = h.push("obra/superpowers", (tree) =>
        rmSync(join(tree, "skills/writing-skills"), { recursive: true, force: true }),
      );
      await updateMarketplace(home, "superpowers-dev");
      // The installed copy did not move with the marketplace.
      expect((await installPlugin(home, "superpowers", "superpowers-dev")).record.gitCommitSha).toBe(next);
      expect(existsSync(first.record.installPath)).toBe(false);
      expect(home.installedPlugins()["superpowers@superpowers-dev"].installedAt).toBe(first.record.installedAt);
    },
  );

  test("issue 39 bad input: plugin.json naming files that do not exist names the plugin and the file; nothing is installed", async () => {
    const { temp, home } = setup();
    const dir = copyOf(temp, "session-bus");
    const manifest = JSON.parse(await Bun.file(join(dir, ".claude-plugin/plugin.json")).text());
    writeFileSync(
      join(dir, ".claude-plugin/plugin.json"),
      JSON.stringify({ ...manifest, agents: ["./agents/reviewer.md"] }),
    );
    await addMarketplace(home, { source: "directory", path: dir });
    expect(await failure(() => installPlugin(home, "session-bus", "session-bus"))).toBe(
      'plugin session-bus@session-bus: .claude-plugin/plugin.json names ./agents/reviewer.md in "agents", which does not exist. Nothing was installed.',
    );
    expect(files(cacheOf(home))).toEqual(["session-bus", "session-bus/session-bus"]);
    expect(home.installedPlugins()).toEqual({});
  });

  test("issue 39 bad input: a plugin.json that does not parse refuses the install", async () => {
    const { temp, home } = setup();
    const dir = copyOf(temp, "session-bus");
    writeFileSync(join(dir, ".claude-plugin/plugin.json"), "{ name: session-bus }");
    await addMarketplace(home, { source: "directory", path: dir });
    expect(await failure(() => installPlugin(home, "session-bus", "session-bus"))).toStartWith(
      "plugin session-bus@session-bus: .claude-plugin/plugin.json is not valid JSON",
    );
    expect(home.installedPlugins()).toEqual({});
  });

  test("issue 39 bad input: a plugin folder escaping its root through .. or a link is refused", async () => {
    const { temp, home } = setup();
    const market = copyOf(temp, "claude-plugins-official");
    const manifestFile = join(market, ".claude-plugin/marketplace.json");
    const manifest = JSON.parse(await Bun.file(manifestFile).text());
    manifest.plugins.push({ name: "escape", source: "../outside" });
    writeFileSync(manifestFile, JSON.stringify(manifest));
    symlinkSync("/etc/passwd", join(market, "plugins/commit-commands/commands/passwd.md"));
    await addMarketplace(home, { source: "directory", path: market });
    expect(await failure(() => installPlugin(home, "escape", "claude-plugins-official"))).toBe(
      `plugin escape@claude-plugins-official: its source ../outside leads outside the marketplace's folder (${market}); nothing was installed.`,
    );
    expect(await failure(() => installPlugin(home, "commit-commands", "claude-plugins-official"))).toBe(
      "plugin commit-commands@claude-plugins-official: commands/passwd.md is a link to /etc/passwd, outside the plugin's folder; nothing was installed.",
    );
    expect(home.installedPlugins()).toEqual({});
    // No staging folder is left behind.
    expect(files(home.cacheOf("claude-plugins-official", "commit-commands"))).toEqual([]);
  });

  test("issue 39 bad input: a hook script that is not executable is one line naming the plugin and the file; the rest loads", async () => {
    const { temp, home } = setup();
    const market = copyOf(temp, "superpowers");
    chmodSync(join(market, "hooks/run-hook.cmd"), 0o644);
    await addMarketplace(home, { source: "directory", path: market });
    const done = await installPlugin(home, "superpowers", "superpowers-dev");
    expect(done.parts.problems).toEqual([
      "plugin superpowers@superpowers-dev: hooks/hooks.json: the SessionStart hook runs hooks/run-hook.cmd, which is not executable (chmod +x it); that hook was left out.",
    ]);
    expect(done.parts.hooks).toEqual({});
    expect(done.parts.skills).toHaveLength(14);
  });

  test("issue 39 bad input: npm-sourced plugins and unknown names are refused in one sentence", async () => {
    const { temp, home } = setup();
    const market = copyOf(temp, "session-bus");
    const file = join(market, ".claude-plugin/marketplace.json");
    const manifest = JSON.parse(await Bun.file(file).text());
    manifest.plugins.push({ name: "from-npm", source: { source: "npm", package: "@acme/plugin" } });
    writeFileSync(file, JSON.stringify(manifest));
    await addMarketplace(home, { source: "directory", path: market });
    expect(await failure(() => installPlugin(home, "from-npm", "session-bus"))).toBe(
      "plugin from-npm@session-bus comes from a npm package; gong installs plugins from git repositories and folders only.",
    );
    expect(await failure(() => installPlugin(home, "nope", "session-bus"))).toBe(
      "marketplace 'session-bus' has no plugin named 'nope' (it has session-bus, from-npm).",
    );
    expect(await failure(() => installPlugin(home, "x", "nowhere"))).toStartWith(
      "no marketplace named 'nowhere' is known",
    );
  });
});

describe("what the settings ask for", () => {
  const layers = [
    { file: "/u/.gong/settings.json", scope: "user" as const, enabledPlugins: { "a@m": true, "b@m": true } },
    {
      file: "/p/.claude/settings.json",
      scope: "project" as const,
      enabledPlugins: { "b@m": false, "c@m": true, "d@m": ["^1.0.0"] },
      extraKnownMarketplaces: { m: { source: { source: "github", repo: "o/m" } } },
    },
    { file: "/p/.claude/settings.local.json", scope: "project" as const, enabledPlugins: { "a@m": "yes", bad: true } },
  ];

  test("issue 39: later files win; a trusted project turns plugins on and off (a version list is on)", () => {
    const notices: string[] = [];
    const state = enabledPlugins(layers, true, notices);
    expect(Object.fromEntries([...state].map(([id, s]) => [id, s.on]))).toEqual({
      "a@m": true,
      "b@m": false,
      "c@m": true,
      "d@m": true,
    });
    expect(notices).toEqual([
      "/p/.claude/settings.local.json: enabledPlugins.a@m must be true or false; it was skipped.",
      "/p/.claude/settings.local.json: enabledPlugins names 'bad', which is not name@marketplace; it was skipped.",
    ]);
    expect([...declaredMarketplaces(layers, true, [])]).toEqual([
      ["m", { source: { source: "github", repo: "o/m" }, file: "/p/.claude/settings.json" }],
    ]);
  });

  test("issue 39: an untrusted project turns nothing on and names no marketplace, but may turn a plugin off", () => {
    const state = enabledPlugins(layers, false, []);
    expect(state.get("a@m")).toEqual({ on: true, file: "/u/.gong/settings.json" });
    expect(state.get("b@m")).toEqual({ on: false, file: "/p/.claude/settings.json" });
    expect(state.get("c@m")).toEqual({ on: false, file: "/p/.claude/settings.json", untrusted: true });
    expect(declaredMarketplaces(layers, false, [])).toEqual(new Map());
  });

  test("issue 39: a missing plugin is installed only once confirmed; else a line says how", async () => {
    const { temp, home } = setup();
    const market = copyOf(temp, "session-bus");
    const enabled = new Map([["session-bus@session-bus", { on: true, file: "/p/.claude/settings.json" }]]);
    const declared = new Map([["session-bus", { source: { source: "directory" as const, path: market }, file: "f" }]]);
    const notices: string[] = [];
    const questions: string[] = [];
    await installRequested({ home, enabled, declared, notices, confirm: async (q) => (questions.push(q), false) });
    expect(questions).toEqual([
      `/p/.claude/settings.json asks for the marketplace session-bus (directory ${market}), the plugin session-bus@session-bus, not installed yet. Install now? [y/N] `,
    ]);
    expect(notices).toEqual([
      "/p/.claude/settings.json turns on session-bus@session-bus, not installed: run 'gong plugin install session-bus@session-bus', or start gong with --install-plugins.",
    ]);
    expect(home.installedPlugins()).toEqual({});
    notices.length = 0;
    await installRequested({ home, enabled, declared, notices, confirm: async () => true });
    expect(notices).toEqual(["installed session-bus@session-bus version 0.3.1."]);
    expect(Object.keys(home.installedPlugins())).toEqual(["session-bus@session-bus"]);
  });
});

describe("bundles in a session", () => {
  test("issue 39 bad input: two plugins with the same command: one line naming both plugins and files, the first is used", async () => {
    const { temp, home, project } = setup();
    // The same plugin published by two marketplaces: its commands have the same names.
    const second = copyOf(temp, "claude-plugins-official");
    const file = join(second, ".claude-plugin/marketplace.json");
    writeFileSync(file, (await Bun.file(file).text()).replace('"name": "claude-plugins-official"', '"name": "mirror"'));
    await addMarketplace(home, { source: "directory", path: join(PLUGIN_FIXTURES, "claude-plugins-official") });
    await addMarketplace(home, { source: "directory", path: second });
    const a = await installPlugin(home, "commit-commands", "claude-plugins-official");
    const b = await installPlugin(home, "commit-commands", "mirror");
    const bundles = await loadBundles({
      cwd: project,
      home: temp.path("user"),
      gongHome: temp.path("gong"),
      trusted: false,
      untrustedHint: "the project is not trusted.",
      layers: [
        {
          file: "/u/settings.json",
          scope: "user",
          enabledPlugins: { "commit-commands@claude-plugins-official": true, "commit-commands@mirror": true },
        },
      ],
    });
    const merged = withBundles({ skills: [], agents: [], commands: [], problems: [] }, bundles);
    expect(merged.commands.map((c) => [c.name, c.plugin])).toEqual([
      ["commit-commands:clean_gone", "commit-commands@claude-plugins-official"],
      ["commit-commands:commit", "commit-commands@claude-plugins-official"],
      ["commit-commands:commit-push-pr", "commit-commands@claude-plugins-official"],
    ]);
    expect(merged.problems).toContain(
      `commit-commands@mirror: the command commit-commands:commit (${b.record.installPath}/commands/commit.md) has the same name as the one of commit-commands@claude-plugins-official (${a.record.installPath}/commands/commit.md); that one is used.`,
    );
    expect(merged.problems).toHaveLength(3);
  });
});
