/**
 * `gong plugin …` and the shell's `/plugin …`: Claude Code's plugin commands. Marketplaces are
 * added, listed, updated and removed; plugins installed (at the commit shown), updated, turned on
 * or off in a settings file (`--scope user`: ~/.gong/settings.json, the default; `project`:
 * .gong/settings.json; `local`: .gong/settings.local.json) and uninstalled. What changes loads at
 * gong's next start. `list` says what each plugin brings — skills, commands, agents, hooks, MCP
 * servers — and where it is turned on.
 */
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { UsageError } from "../core/errors.ts";
import { pluginStates } from "../core/plugin-states.ts";
import { EXIT } from "../core/outcome.ts";
import { readPlugin, type PluginParts } from "../setup/plugins/contents.ts";
import { installPlugin, resolvePluginId, uninstallPlugin, type Installed } from "../setup/plugins/install.ts";
import {
  addMarketplace,
  parseMarketplaceSource,
  pluginNames,
  removeMarketplace,
  updateMarketplace,
  viewMarketplace,
} from "../setup/plugins/marketplaces.ts";
import { describeSource, PluginError, PluginHome, type InstalledPlugin } from "../setup/plugins/store.ts";
import { editSettingsFile } from "../setup/rule-file.ts";
import { gongHome } from "../store/paths.ts";
import { chooseWord } from "./did-you-mean.ts";

export const PLUGIN_HELP = `gong plugin — Claude Code plugins and their marketplaces

Usage:
  gong plugin marketplace add SOURCE      owner/repo (GitHub), a git URL (#ref for a branch or tag),
                                          or a folder holding .claude-plugin/marketplace.json
  gong plugin marketplace list
  gong plugin marketplace update [NAME]   the newest commit, and its installed plugins with it
  gong plugin marketplace remove NAME     and uninstall its plugins
  gong plugin install NAME[@MARKETPLACE]  install, and turn it on (--scope)
  gong plugin update NAME@MARKETPLACE     to its marketplace's newest commit
  gong plugin enable|disable NAME@MARKETPLACE
  gong plugin uninstall NAME@MARKETPLACE
  gong plugin list                        what is installed, what each brings, where it is on

Options:
  --scope user|project|local   the settings file install, enable and disable write: ~/.gong/settings.json
                               (default), .gong/settings.json, or .gong/settings.local.json
  --cwd DIR                    the project (default: here)

Plugins are cached under $GONG_HOME/plugins at the commit installed; what changes loads at gong's
next start. A project's .claude/settings.json may ask for plugins (enabledPlugins,
extraKnownMarketplaces): gong installs them once the project is trusted and you confirm, or with
--install-plugins.
`;

export const PLUGIN_WORDS = ["install", "uninstall", "list", "enable", "disable", "update", "marketplace"];
const SCOPES = ["user", "project", "local"] as const;
type Scope = (typeof SCOPES)[number];

/** Where the command writes (a terminal's streams, or the shell's output for /plugin). */
export interface Output {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** Runs `gong plugin <argv>`; the exit code. */
export async function runPluginCommand(argv: string[], io: Output, cwd = process.cwd()): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv, cwd);
  } catch (e) {
    io.stderr.write(`gong: ${(e as Error).message}\n`);
    return EXIT.usage;
  }
  if (parsed.help) {
    io.stdout.write(PLUGIN_HELP);
    return EXIT.ok;
  }
  const home = new PluginHome(gongHome());
  const out = (line: string) => void io.stdout.write(`${line}\n`);
  try {
    await run(parsed, home, out);
    return EXIT.ok;
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr.write(`gong: ${e.message}\n`);
      return EXIT.usage;
    }
    if (!(e instanceof PluginError)) throw e;
    io.stderr.write(`gong: ${e.message}\n`);
    return EXIT.failed;
  }
}

function parse(argv: string[], defaultCwd: string) {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { scope: { type: "string" }, cwd: { type: "string" }, help: { type: "boolean", short: "h" } },
    allowPositionals: true,
    strict: true,
  });
  const scope = (values.scope ?? "user") as Scope;
  if (!SCOPES.includes(scope)) throw new UsageError(`--scope must be user, project or local (got '${values.scope}').`);
  return { words: positionals, scope, cwd: resolve(defaultCwd, values.cwd ?? "."), help: Boolean(values.help) };
}

type Parsed = ReturnType<typeof parse>;

async function run(p: Parsed, home: PluginHome, out: (line: string) => void): Promise<void> {
  const [verb, ...rest] = p.words;
  const one = (what: string) => {
    if (rest.length !== 1) throw new UsageError(`gong plugin ${verb} takes one ${what} (gong plugin --help).`);
    return rest[0];
  };
  switch (verb) {
    case undefined:
    case "list":
      return list(home, p.cwd, out);
    case "marketplace":
      return marketplace(p, home, out);
    case "install": {
      const { name, marketplace } = resolvePluginId(home, one("NAME@MARKETPLACE"));
      const done = await installPlugin(home, name, marketplace);
      const file = setState(p, done.id, true);
      out(
        `installed ${done.id}${describeRecord(done.record, " ")} (${done.record.installPath}); turned on in ${file}.`,
      );
      for (const line of partLines(done.parts)) out(`  ${line}`);
      return;
    }
    case "update": {
      const { name, marketplace } = resolvePluginId(home, one("NAME@MARKETPLACE"));
      const before = home.installedPlugins()[`${name}@${marketplace}`];
      if (!before) throw new PluginError(`${name}@${marketplace} is not installed (gong plugin install installs it).`);
      await updateMarketplace(home, marketplace);
      return moved(before.gitCommitSha, await installPlugin(home, name, marketplace), out);
    }
    case "enable":
    case "disable": {
      const id = pluginId(home, one("NAME@MARKETPLACE"));
      if (verb === "enable" && !home.installedPlugins()[id])
        throw new PluginError(`${id} is not installed: gong plugin install ${id} installs it and turns it on.`);
      out(
        `${id} turned ${verb === "enable" ? "on" : "off"} in ${setState(p, id, verb === "enable")}; this loads at gong's next start.`,
      );
      return;
    }
    case "uninstall": {
      const id = pluginId(home, one("NAME@MARKETPLACE"));
      const record = uninstallPlugin(home, id);
      const file = setState(p, id, undefined);
      out(`uninstalled ${id} (${record.installPath} removed; its entry in ${file} too).`);
      return;
    }
    default:
      chooseWord(verb, PLUGIN_WORDS, "gong plugin");
      return;
  }
}

async function marketplace(p: Parsed, home: PluginHome, out: (line: string) => void): Promise<void> {
  const [, verb, ...rest] = p.words;
  switch (verb) {
    case undefined:
    case "list": {
      const known = home.knownMarketplaces();
      if (Object.keys(known).length === 0) return out("no marketplaces yet (gong plugin marketplace add SOURCE).");
      for (const [name, m] of Object.entries(known))
        out(
          `${name}  ${describeSource(m.source)}${m.commit ? `  at ${m.commit.slice(0, 12)}` : ""}  (${m.installLocation})`,
        );
      return;
    }
    case "add": {
      if (rest.length !== 1) throw new UsageError("gong plugin marketplace add takes one SOURCE (gong plugin --help).");
      const view = await addMarketplace(home, parseMarketplaceSource(rest[0], p.cwd));
      const count = view.manifest.plugins.length;
      out(
        `added marketplace ${view.name} (${describeSource(view.known.source)})${view.known.commit ? ` at ${view.known.commit.slice(0, 12)}` : ""}, with ${count} plugin${count === 1 ? "" : "s"}${count ? `: ${pluginNames(view.manifest)}` : ""}.`,
      );
      return;
    }
    case "update": {
      const names = rest.length > 0 ? rest : Object.keys(home.knownMarketplaces());
      for (const name of names) {
        const before = home.knownMarketplaces()[name]?.commit;
        const view = await updateMarketplace(home, name);
        out(
          `marketplace ${name}: ${before === view.known.commit ? "at the newest commit" : "moved"}${view.known.commit ? ` (${view.known.commit.slice(0, 12)})` : ""}.`,
        );
        for (const [id, record] of Object.entries(home.installedPlugins())) {
          if (!id.endsWith(`@${name}`)) continue;
          moved(record.gitCommitSha, await installPlugin(home, id.slice(0, id.lastIndexOf("@")), name), out);
        }
      }
      return;
    }
    case "remove": {
      if (rest.length !== 1) throw new UsageError("gong plugin marketplace remove takes one NAME.");
      const name = rest[0];
      viewMarketplace(home, name);
      for (const id of Object.keys(home.installedPlugins()).filter((id) => id.endsWith(`@${name}`))) {
        uninstallPlugin(home, id);
        out(`uninstalled ${id}.`);
      }
      removeMarketplace(home, name);
      out(`removed marketplace ${name}.`);
      return;
    }
    default:
      chooseWord(verb, ["add", "list", "update", "remove"], "gong plugin marketplace");
      return;
  }
}

/** What `list` shows: the marketplaces, then each installed plugin with its state and parts. */
async function list(home: PluginHome, cwd: string, out: (line: string) => void): Promise<void> {
  const known = home.knownMarketplaces();
  const installed = home.installedPlugins();
  out(Object.keys(known).length ? "marketplaces:" : "no marketplaces yet (gong plugin marketplace add SOURCE).");
  for (const [name, m] of Object.entries(known))
    out(`  ${name}  ${describeSource(m.source)}${m.commit ? `  at ${m.commit.slice(0, 12)}` : ""}`);
  if (Object.keys(installed).length === 0) return out("no plugins installed (gong plugin install NAME@MARKETPLACE).");
  const states = pluginStates(cwd);
  out("plugins:");
  for (const [id, record] of Object.entries(installed)) {
    const state = states.get(id);
    const where = !state
      ? "off (no settings file turns it on)"
      : state.untrusted
        ? `off (${state.file} turns it on, but the project is not trusted)`
        : `${state.on ? "on" : "off"} (${state.file})`;
    out(`  ${id}${describeRecord(record, "  ")}  ${where}`);
    const parts = await readPlugin({
      id,
      name: id.slice(0, id.lastIndexOf("@")),
      root: record.installPath,
      data: home.dataOf(id),
    });
    for (const line of partLines(parts)) out(`    ${line}`);
  }
}

/** An installed plugin's version and commit, as far as they are known, each after `gap`. */
function describeRecord(record: InstalledPlugin, gap: string): string {
  const version = record.version !== "unknown" ? `${gap}${record.version}` : "";
  return `${version}${record.gitCommitSha ? `${gap}at ${record.gitCommitSha.slice(0, 12)}` : ""}`;
}

/** One line per kind of part a plugin brings, named as the session knows them. */
export function partLines(parts: PluginParts): string[] {
  const lines: string[] = [];
  const add = (label: string, names: string[]) => names.length && lines.push(`${label}: ${names.join(", ")}`);
  add(
    "skills",
    parts.skills.map((s) => s.name),
  );
  add(
    "commands",
    parts.commands.map((c) => `/${c.name}`),
  );
  add(
    "agents",
    parts.agents.map((a) => a.name),
  );
  add("hooks", Object.keys(parts.hooks));
  add(
    "MCP servers",
    parts.servers.map((s) => s.name),
  );
  add("not supported by gong", parts.unsupported);
  for (const problem of [...parts.fatal, ...parts.problems]) lines.push(`! ${problem}`);
  return lines;
}

function moved(before: string | undefined, done: Installed, out: (line: string) => void): void {
  const now = done.record.gitCommitSha;
  out(
    before === now
      ? `${done.id} is at the newest commit (${now?.slice(0, 12) ?? done.record.version}).`
      : `updated ${done.id} from ${before?.slice(0, 12) ?? "?"} to ${now?.slice(0, 12) ?? done.record.version}; this loads at gong's next start.`,
  );
}

function pluginId(home: PluginHome, text: string): string {
  const { name, marketplace } = resolvePluginId(home, text);
  return `${name}@${marketplace}`;
}

/** Writes `enabledPlugins[id]` (undefined: removes it) into the scope's settings file; the file. */
function setState(p: Parsed, id: string, on: boolean | undefined): string {
  const file =
    p.scope === "user"
      ? join(gongHome(), "settings.json")
      : join(p.cwd, ".gong", p.scope === "project" ? "settings.json" : "settings.local.json");
  const failed = editSettingsFile(file, (settings) => {
    const map =
      typeof settings.enabledPlugins === "object" && settings.enabledPlugins !== null
        ? { ...(settings.enabledPlugins as object) }
        : {};
    if (on === undefined) delete (map as Record<string, unknown>)[id];
    else (map as Record<string, unknown>)[id] = on;
    settings.enabledPlugins = map;
  });
  if (failed) throw new PluginError(`${failed}; ${id} was not turned ${on ? "on" : "off"} there.`);
  return file;
}
