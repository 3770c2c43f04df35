/**
 * The bundles a session starts with: the Claude Code plugins the settings turn on (installed first
 * when they ask for one not installed yet and the user confirms) and the gemini-cli extensions in
 * the user's and the project's `.gemini/extensions/`. Each bundle's skills, commands, agents,
 * hooks, MCP servers, deny rules and context files, gathered, each marked with the bundle it came
 * from; a project's bundles run nothing until the project is trusted.
 */
import { mkdirSync } from "node:fs";
import type { AgentDefinition } from "../agents.ts";
import type { CustomCommand } from "../commands.ts";
import { mergeHookConfigs, type HookConfig } from "../hook-config.ts";
import type { UserSetup } from "../index.ts";
import type { Skill } from "../skills.ts";
import { readPlugin, type BundledServer, type PluginParts } from "./contents.ts";
import { discoverExtensions, type ContextFile, type Extension } from "./extensions.ts";
import { declaredMarketplaces, enabledPlugins, installRequested, type PluginLayer } from "./requests.ts";
import { PluginError, PluginHome, type InstalledPlugin } from "./store.ts";

export interface BundleRequest {
  cwd: string;
  /** The plugin keys of every settings file read, user files first. */
  layers: readonly PluginLayer[];
  trusted: boolean;
  /** gong's home (default $GONG_HOME or ~/.gong). */
  gongHome?: string;
  /** The user's home, for ~/.gemini (default $HOME). */
  home?: string;
  /** Asks the person at the terminal (the shell); absent where no one can answer. */
  confirm?(question: string): Promise<boolean>;
  /** Install what the settings ask for without asking (--install-plugins). */
  install?: boolean;
  /** The project's untrusted hint, for the line saying what of a project's extension was left out. */
  untrustedHint: string;
}

export interface LoadedPlugin {
  id: string;
  record: InstalledPlugin;
  /** The settings file that turns it on. */
  enabledBy: string;
  parts: PluginParts;
}

export interface Bundles {
  plugins: LoadedPlugin[];
  extensions: Extension[];
  skills: Skill[];
  commands: CustomCommand[];
  agents: AgentDefinition[];
  hooks: HookConfig;
  servers: BundledServer[];
  /** Deny rules in Claude Code's syntax (an extension's excludeTools), with the file they come from. */
  denyRules: Array<{ rule: string; source: string }>;
  context: ContextFile[];
  /** One line each: what was installed, what was left out and why. */
  notices: string[];
}

/** Whether any settings file names plugins (the plugin code loads only then, or when extension folders exist). */
export function namesPlugins(layers: readonly PluginLayer[]): boolean {
  return layers.some((l) => l.enabledPlugins !== undefined || l.extraKnownMarketplaces !== undefined);
}

export async function loadBundles(request: BundleRequest): Promise<Bundles> {
  const notices: string[] = [];
  const plugins = await loadPlugins(request, notices);
  const extensions = await discoverExtensions(request.cwd, request.home);
  const out: Bundles = {
    plugins,
    extensions,
    skills: [],
    commands: [],
    agents: [],
    hooks: {},
    servers: [],
    denyRules: [],
    context: [],
    notices,
  };
  for (const { parts } of plugins) {
    notices.push(...parts.fatal, ...parts.problems);
    out.skills.push(...parts.skills);
    out.commands.push(...parts.commands);
    out.agents.push(...parts.agents);
    out.hooks = mergeHookConfigs(out.hooks, parts.hooks);
    out.servers.push(...parts.servers);
  }
  for (const extension of extensions) {
    notices.push(...extension.problems);
    if (extension.broken) continue;
    out.skills.push(...extension.skills);
    out.commands.push(...extension.commands);
    out.context.push(...extension.context);
    out.denyRules.push(...extension.denyRules.map((rule) => ({ rule, source: `${extension.label}, excludeTools` })));
    // A project's extension starts its servers only in a trusted project.
    if (extension.scope === "project" && !request.trusted && extension.servers.length > 0)
      notices.push(
        `ignoring the MCP servers ${extension.servers.map((s) => s.name).join(", ")} of ${extension.label} in ${extension.root}: ${request.untrustedHint}`,
      );
    else out.servers.push(...extension.servers);
  }
  return out;
}

/** The installed plugins the settings turn on, read (missing ones installed first when confirmed). */
async function loadPlugins(request: BundleRequest, notices: string[]): Promise<LoadedPlugin[]> {
  if (!namesPlugins(request.layers)) return [];
  const home = new PluginHome(request.gongHome);
  const enabled = enabledPlugins(request.layers, request.trusted, notices);
  const declared = declaredMarketplaces(request.layers, request.trusted, notices);
  let installed: Record<string, InstalledPlugin>;
  try {
    await installRequested({ home, enabled, declared, confirm: request.confirm, install: request.install, notices });
    installed = home.installedPlugins();
  } catch (e) {
    if (!(e instanceof PluginError)) throw e;
    notices.push(e.message);
    return [];
  }
  const loaded: LoadedPlugin[] = [];
  for (const [id, state] of enabled) {
    const record = installed[id];
    if (!state.on || !record) continue;
    const data = home.dataOf(id);
    const parts = await readPlugin({ id, name: id.slice(0, id.lastIndexOf("@")), root: record.installPath, data });
    if (Object.keys(parts.hooks).length > 0 || parts.servers.length > 0) mkdirSync(data, { recursive: true });
    loaded.push({ id, record, enabledBy: state.file, parts });
  }
  return loaded;
}

/**
 * The user's own skills, commands and agents with the bundles' after them. A bundle's item whose
 * name is taken already is left out with one line naming both (an extension's command is renamed
 * `<extension>.<name>` first, as gemini-cli does).
 */
export function withBundles(brought: UserSetup, bundles: Bundles): UserSetup {
  const problems = [...brought.problems];
  const join = <T extends { name: string; file: string; plugin?: string }>(
    mine: readonly T[],
    theirs: readonly T[],
    noun: string,
    rename?: (item: T) => T | undefined,
  ): T[] => {
    const byName = new Map(mine.map((item) => [item.name, item]));
    for (const item of theirs) {
      const taken = byName.get(item.name);
      const renamed = taken && rename?.(item);
      if (!taken) byName.set(item.name, item);
      else if (renamed && !byName.has(renamed.name)) byName.set(renamed.name, renamed);
      else
        problems.push(
          `${item.plugin}: the ${noun} ${item.name} (${item.file}) has the same name as the one ${taken.plugin ? `of ${taken.plugin}` : "of yours"} (${taken.file}); that one is used.`,
        );
    }
    return [...byName.values()];
  };
  const extensionName = new Map(bundles.extensions.map((e) => [e.label, e.name]));
  return {
    skills: join(brought.skills, bundles.skills, "skill").sort((a, b) => a.name.localeCompare(b.name)),
    agents: join(brought.agents, bundles.agents, "agent").sort((a, b) => a.name.localeCompare(b.name)),
    commands: join(brought.commands, bundles.commands, "command", (c) => {
      const extension = c.plugin && extensionName.get(c.plugin);
      return extension ? { ...c, name: `${extension}.${c.name}` } : undefined;
    }).sort((a, b) => a.name.localeCompare(b.name)),
    problems,
  };
}

export type { BundledServer, ContextFile, Extension, PluginLayer };
