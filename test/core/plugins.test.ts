/**
 * Issue 39 in the core: a project's request for plugins is part of the trust question, and a host
 * that can ask (the shell) asks once before installing what a trusted project asks for; a host that
 * cannot ask names it in a line. Called the way a host calls the core, in-process.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { prepareSession, type SessionSetup } from "../../lib/core/prepare.ts";
import { loadSettings } from "../../lib/core/settings.ts";
import { decideTrust } from "../../lib/core/trust.ts";
import { PLUGIN_FIXTURES } from "../helpers/git-host.ts";
import { tempDir, type TempDir } from "../helpers/temp.ts";

let temp: TempDir;
let project: string;
let home: string;
let savedHome: string | undefined;
const setups: SessionSetup[] = [];

beforeEach(() => {
  temp = tempDir("gong-core-plugins-");
  project = temp.path("project");
  home = temp.path("home");
  mkdirSync(project);
  mkdirSync(home);
  savedHome = process.env.GONG_HOME;
  process.env.GONG_HOME = join(home, ".gong");
  // The project asks for session-bus from a marketplace folder (a copy of the published one).
  const market = temp.path("market");
  cpSync(join(PLUGIN_FIXTURES, "session-bus"), market, { recursive: true });
  const settings = join(project, ".claude/settings.json");
  mkdirSync(dirname(settings), { recursive: true });
  writeFileSync(
    settings,
    JSON.stringify({
      extraKnownMarketplaces: { "session-bus": { source: { source: "directory", path: market } } },
      enabledPlugins: { "session-bus@session-bus": true },
    }),
  );
});

afterEach(async () => {
  for (const setup of setups.splice(0)) await setup.dispose();
  if (savedHome === undefined) delete process.env.GONG_HOME;
  else process.env.GONG_HOME = savedHome;
  temp.cleanup();
});

async function prepare(confirm: ((question: string) => Promise<boolean>) | undefined, warnings: string[]) {
  const setup = await prepareSession({
    cwd: project,
    flags: { model: "anthropic/claude-haiku-4-5", apiKey: "test", trust: true },
    env: { HOME: home, PATH: process.env.PATH },
    warn: (line) => warnings.push(line),
    confirm,
  });
  setups.push(setup);
  return setup;
}

test("issue 39: the trust question names the plugins a project asks for", async () => {
  const questions: string[] = [];
  await decideTrust(
    { cwd: project, flag: false, env: {}, ask: async (q) => (questions.push(q), false) },
    loadSettings(project),
  );
  expect(questions[0]).toStartWith(
    `${join(project, ".claude/settings.json")} sets enabledPlugins: settings that run code`,
  );
});

test("issue 39: the shell asks once before installing what a trusted project asks for; no installs nothing, yes installs and loads it", async () => {
  const questions: string[] = [];
  const declined = await prepare(async (q) => (questions.push(q), false), []);
  expect(questions).toHaveLength(1);
  expect(questions[0]).toContain("asks for the marketplace session-bus (directory ");
  expect(declined.bundles?.plugins ?? []).toEqual([]);
  expect(declined.notices).toContain(
    `${join(project, ".claude/settings.json")} turns on session-bus@session-bus, not installed: run 'gong plugin install session-bus@session-bus', or start gong with --install-plugins.`,
  );
  const accepted = await prepare(async () => true, []);
  expect(accepted.bundles?.plugins.map((p) => [p.id, p.enabledBy])).toEqual([
    ["session-bus@session-bus", join(project, ".claude/settings.json")],
  ]);
  expect(accepted.notices).toContain("installed session-bus@session-bus version 0.3.1.");
  expect(accepted.shellHooks).toBeDefined();
  // Installed now: the next start asks nothing.
  const next: string[] = [];
  await prepare(async (q) => (next.push(q), true), []);
  expect(next).toEqual([]);
});
