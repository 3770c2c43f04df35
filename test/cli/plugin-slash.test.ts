/**
 * Issue 39 in the shell's listings: /plugin shows each installed plugin with where it is on and
 * what it brings, and the gemini-cli extensions loaded; /skills and /help name the plugin each
 * skill and command came from. Run on a host's real setup (the core, in-process) with published
 * plugins installed from a marketplace folder.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { prepareSession, type SessionSetup } from "../../lib/core/prepare.ts";
import { makeStyle } from "../../lib/cli/render.ts";
import { runSlashCommand, type SlashContext } from "../../lib/cli/slash-commands.ts";
import { installPlugin } from "../../lib/setup/plugins/install.ts";
import { addMarketplace } from "../../lib/setup/plugins/marketplaces.ts";
import { PluginHome } from "../../lib/setup/plugins/store.ts";
import { PLUGIN_FIXTURES } from "../helpers/git-host.ts";
import { tempDir, type TempDir } from "../helpers/temp.ts";

let temp: TempDir;
let savedHome: string | undefined;
let setup: SessionSetup | undefined;

beforeEach(() => {
  temp = tempDir("gong-plugin-slash-");
  savedHome = process.env.GONG_HOME;
  process.env.GONG_HOME = temp.path("home/.gong");
});

afterEach(async () => {
  await setup?.dispose();
  setup = undefined;
  if (savedHome === undefined) delete process.env.GONG_HOME;
  else process.env.GONG_HOME = savedHome;
  temp.cleanup();
});

/** Runs a slash command against the setup; what it printed. */
async function slash(line: string): Promise<string> {
  let printed = "";
  const ctx = { host: { setup }, out: (s: string) => void (printed += s), style: makeStyle(false) };
  await runSlashCommand(line, ctx as unknown as SlashContext);
  return printed;
}

test("issue 39: /plugin, /skills and /help say which plugin each part came from", async () => {
  const home = new PluginHome(process.env.GONG_HOME);
  const market = temp.path("market");
  cpSync(join(PLUGIN_FIXTURES, "claude-plugins-official"), market, { recursive: true });
  await addMarketplace(home, { source: "directory", path: market });
  await installPlugin(home, "commit-commands", "claude-plugins-official");
  const superpowers = temp.path("superpowers");
  cpSync(join(PLUGIN_FIXTURES, "superpowers"), superpowers, { recursive: true });
  await addMarketplace(home, { source: "directory", path: superpowers });
  await installPlugin(home, "superpowers", "superpowers-dev");
  const settings = join(process.env.GONG_HOME!, "settings.json");
  writeFileSync(
    settings,
    JSON.stringify({
      enabledPlugins: { "commit-commands@claude-plugins-official": true, "superpowers@superpowers-dev": true },
    }),
  );
  const user = temp.path("home");
  mkdirSync(join(user, ".gemini/extensions"), { recursive: true });
  cpSync(join(PLUGIN_FIXTURES, "gemini-cli-examples/exclude-tools"), join(user, ".gemini/extensions/exclude-tools"), {
    recursive: true,
  });
  const project = temp.path("project");
  mkdirSync(project);
  setup = await prepareSession({
    cwd: project,
    flags: { model: "anthropic/claude-haiku-4-5", apiKey: "test" },
    env: { HOME: user, PATH: process.env.PATH },
    warn: () => {},
  });

  const plugins = await slash("/plugin");
  expect(plugins).toContain(`  commit-commands@claude-plugins-official  on (${settings})\n`);
  expect(plugins).toContain(
    "    commands: /commit-commands:clean_gone, /commit-commands:commit-push-pr, /commit-commands:commit\n",
  );
  expect(plugins).toContain("    hooks: SessionStart\n");
  expect(plugins).toContain("gemini-cli extensions:\n");
  expect(plugins).toContain("    excludeTools (deny rules): Bash(rm -rf:*)\n");

  const skills = await slash("/skills");
  expect(skills).toContain("  superpowers:brainstorming ");
  expect(skills).toContain("from superpowers@superpowers-dev: ");

  const help = await slash("/help");
  expect(help).toContain("/commit-commands:commit");
  expect(help).toContain("Create a git commit (from commit-commands@claude-plugins-official)");
  expect(help).toContain("/plugin [list|install|enable|disable|uninstall|update|marketplace …]");
});
