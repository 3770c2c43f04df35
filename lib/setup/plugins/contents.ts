/**
 * What one plugin folder brings, read as Claude Code reads it: the manifest
 * (`.claude-plugin/plugin.json`, optional), commands (`commands/*.md` and the manifest's
 * `commands`), agents (`agents/*.md`, `agents`), skills (`skills/<name>/SKILL.md`, a `SKILL.md` at
 * the root, `skills`), hooks (`hooks/hooks.json`, `hooks`) and MCP servers (`.mcp.json`,
 * `mcpServers`). Everything is namespaced by the plugin's name: `/superpowers:brainstorm`, the
 * skill and agent `superpowers:code-reviewer`, the MCP server `plugin:superpowers:<server>` (its
 * tools `mcp__plugin_superpowers_<server>__<tool>`). `${CLAUDE_PLUGIN_ROOT}` and
 * `${CLAUDE_PLUGIN_DATA}` are the plugin's folder and its data folder, in hook commands and server
 * entries, and hooks and servers also get them as variables.
 *
 * A part that cannot be used is one line naming the plugin and the file, and the rest loads;
 * what makes the whole plugin unusable (a manifest that does not parse, a path it names that is
 * missing or leads out of the folder) is `fatal`, which refuses an install.
 */
import { readFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { isInside } from "../../paths.ts";
import { readAgent, type AgentDefinition } from "../agents.ts";
import { readCommand, type CustomCommand } from "../commands.ts";
import { mergeHookConfigs, parseHookConfig, type HookConfig } from "../hook-config.ts";
import { filesUnder, readSetupFile, statOf } from "../places.ts";
import { readSkill, type Skill } from "../skills.ts";
import { insideRoot } from "./folders.ts";
import { parseJsonAs, PluginManifestSchema, UNSUPPORTED_PARTS, type PluginManifest } from "./schema.ts";

export interface PluginIdentity {
  /** `name@marketplace` (how lines and listings name it). */
  id: string;
  /** The plugin's name before any manifest is read (the marketplace entry's). */
  name: string;
  /** The installed folder. */
  root: string;
  /** The plugin's data folder (made when a hook or server may use it). */
  data: string;
}

/** An MCP server a plugin or extension brings, as written; the core checks and starts it. */
export interface BundledServer {
  /** The name the server goes by (`plugin:<plugin>:<server>`, an extension's own name). */
  name: string;
  entry: unknown;
  /** The file that holds it. */
  file: string;
  /** The plugin or extension (for listings and lines). */
  plugin: string;
  /** Variables its `${…}` may name and it runs with, beside the user's (CLAUDE_PLUGIN_ROOT, …). */
  variables: Record<string, string>;
}

export interface PluginParts {
  /** The name everything is namespaced by (the manifest's, else the marketplace entry's). */
  name: string;
  manifest?: PluginManifest;
  skills: Skill[];
  commands: CustomCommand[];
  agents: AgentDefinition[];
  hooks: HookConfig;
  servers: BundledServer[];
  /** Parts of the manifest gong does not run (`outputStyles`, `lspServers`, …). */
  unsupported: string[];
  /** One line per part left out, naming the plugin and the file. */
  problems: string[];
  /** What makes the plugin unusable: an install refuses it. */
  fatal: string[];
}

export const MANIFEST = join(".claude-plugin", "plugin.json");

/** Reads a plugin folder; never throws. */
export async function readPlugin(plugin: PluginIdentity): Promise<PluginParts> {
  const { root } = plugin;
  const at = (file: string) => relative(root, file) || ".";
  const parts: PluginParts = {
    name: plugin.name,
    skills: [],
    commands: [],
    agents: [],
    hooks: {},
    servers: [],
    unsupported: [],
    problems: [],
    fatal: [],
  };
  const problem = (file: string, what: string) => parts.problems.push(`plugin ${plugin.id}: ${at(file)}: ${what}`);
  const manifest = readManifest(plugin, parts);
  if (manifest) {
    parts.manifest = manifest;
    parts.name = manifest.name;
    parts.unsupported = UNSUPPORTED_PARTS.filter((key) => manifest[key] !== undefined);
  }
  /** The manifest's paths for one part, each inside the plugin, or fatal. */
  const named = (key: string, value: unknown): string[] =>
    (Array.isArray(value) ? value : value === undefined ? [] : [value]).flatMap((p) => {
      if (typeof p !== "string") return [];
      const path = insideRoot(root, p);
      if (!path)
        parts.fatal.push(
          `plugin ${plugin.id}: ${MANIFEST} names ${p} in "${key}", which leads outside the plugin's folder.`,
        );
      else if (!statOf(path))
        parts.fatal.push(`plugin ${plugin.id}: ${MANIFEST} names ${p} in "${key}", which does not exist.`);
      else return [path];
      return [];
    });

  const ns = (name: string) => `${parts.name}:${name}`;
  const mark = <T extends { plugin?: string }>(item: T): T => Object.assign(item, { plugin: plugin.id });

  // Skills: skills/<name>/SKILL.md, the manifest's folders (a skill, or a folder of skills), a SKILL.md at the root.
  const skillFiles = [
    ...skillsIn(join(root, "skills")),
    ...named("skills", manifest?.skills).flatMap(skillsIn),
    ...(statOf(join(root, "SKILL.md"))?.isFile() ? [join(root, "SKILL.md")] : []),
  ];
  // Commands: commands/*.md (a folder holding SKILL.md there is a skill), the manifest's files and folders.
  const commandPaths = [
    join(root, "commands"),
    ...(isPathList(manifest?.commands) ? named("commands", manifest?.commands) : []),
  ];
  const commandFiles: string[] = [];
  for (const path of commandPaths) {
    if (statOf(path)?.isFile()) commandFiles.push(path);
    else {
      skillFiles.push(...skillsIn(path));
      commandFiles.push(...filesUnder(path, [".md"]).filter((f) => basename(f) !== "SKILL.md"));
    }
  }
  for (const file of unique(skillFiles)) {
    const skill = await readSkill(file, "user");
    if (typeof skill === "string") problem(file, `${skill}; skill skipped.`);
    else parts.skills.push(mark({ ...skill, name: ns(skill.name) }));
  }
  for (const file of unique(commandFiles)) {
    const command = await readCommand(file, ns(basename(file, ".md")), "user", false);
    if (typeof command === "string") problem(file, `${command}; command skipped.`);
    else parts.commands.push(mark(command));
  }
  if (manifest?.commands && !isPathList(manifest.commands))
    parts.commands.push(...(await objectCommands(plugin, manifest, ns, parts)).map(mark));

  // Agents: agents/*.md and the manifest's files, named after the file when the frontmatter has no name.
  const agentFiles = [...filesUnder(join(root, "agents"), [".md"]), ...named("agents", manifest?.agents)];
  for (const file of unique(agentFiles)) {
    const agent = await readAgent(file, "user", basename(file, ".md"));
    if (typeof agent === "string") problem(file, `${agent}; agent skipped.`);
    else parts.agents.push(mark({ ...agent, name: ns(agent.name) }));
  }

  // Hooks: hooks/hooks.json, then the manifest's files and inline objects.
  const hookSources: Array<{ file: string; hooks: unknown }> = [];
  const hooksFile = join(root, "hooks", "hooks.json");
  if (statOf(hooksFile)?.isFile()) hookSources.push(...hooksIn(hooksFile, parts, plugin.id));
  for (const value of listOf(manifest?.hooks)) {
    if (typeof value === "string")
      for (const file of named("hooks", value)) hookSources.push(...hooksIn(file, parts, plugin.id));
    else hookSources.push({ file: join(root, MANIFEST), hooks: value });
  }
  const variables = { CLAUDE_PLUGIN_ROOT: root, CLAUDE_PLUGIN_DATA: plugin.data };
  for (const { file, hooks } of hookSources) {
    const notices: string[] = [];
    const config = parseHookConfig(hooks, at(file), notices);
    for (const notice of notices) parts.problems.push(`plugin ${plugin.id}: ${notice}`);
    parts.hooks = mergeHookConfigs(parts.hooks, pluginHooks(config, plugin, at(file), variables, parts));
  }

  // MCP servers: .mcp.json, then the manifest's files and inline maps.
  const serverSources: Array<{ file: string; map: unknown }> = [];
  const mcpJson = join(root, ".mcp.json");
  if (statOf(mcpJson)?.isFile()) serverSources.push(...serversIn(mcpJson, parts, plugin.id));
  for (const value of listOf(manifest?.mcpServers)) {
    if (typeof value !== "string") serverSources.push({ file: join(root, MANIFEST), map: value });
    else if (/\.(mcpb|dxt)$/.test(value) || /^[a-z]+:\/\//.test(value))
      problem(
        join(root, MANIFEST),
        `"mcpServers" names the MCP bundle ${value}; gong does not run MCP bundles, so it was left out.`,
      );
    else for (const file of named("mcpServers", value)) serverSources.push(...serversIn(file, parts, plugin.id));
  }
  for (const { file, map } of serverSources) {
    if (!isObject(map)) continue;
    for (const [name, entry] of Object.entries(map))
      parts.servers.push({ name: `plugin:${parts.name}:${name}`, entry, file, plugin: plugin.id, variables });
  }
  return parts;
}

function readManifest(plugin: PluginIdentity, parts: PluginParts): PluginManifest | undefined {
  const file = join(plugin.root, MANIFEST);
  if (!statOf(file)) return undefined;
  const read = readSetupFile(file);
  const parsed = typeof read === "string" ? { problem: read } : parseJsonAs(PluginManifestSchema, read.text);
  if ("problem" in parsed) {
    parts.fatal.push(`plugin ${plugin.id}: ${MANIFEST} ${parsed.problem}.`);
    return undefined;
  }
  return parsed.value;
}

/** The manifest's `commands` object: name → a file (`source`) or the text (`content`). */
async function objectCommands(
  plugin: PluginIdentity,
  manifest: PluginManifest,
  ns: (name: string) => string,
  parts: PluginParts,
): Promise<CustomCommand[]> {
  const out: CustomCommand[] = [];
  const file = join(plugin.root, MANIFEST);
  for (const [name, c] of Object.entries(manifest.commands as Record<string, Record<string, unknown>>)) {
    const where = `plugin ${plugin.id}: ${MANIFEST} "commands.${name}"`;
    if ((c.source === undefined) === (c.content === undefined)) {
      parts.fatal.push(`${where} needs either "source" (a file) or "content" (the text), not both.`);
      continue;
    }
    let command: CustomCommand | string;
    if (typeof c.source === "string") {
      const path = insideRoot(plugin.root, c.source);
      if (!path || !statOf(path)?.isFile()) {
        parts.fatal.push(
          `${where} names ${c.source}, which ${path ? "does not exist" : "leads outside the plugin's folder"}.`,
        );
        continue;
      }
      command = await readCommand(path, ns(name), "user", false);
    } else command = { name: ns(name), template: String(c.content), syntax: "claude", file, scope: "user" };
    if (typeof command === "string") {
      parts.problems.push(`${where}: ${command}; command skipped.`);
      continue;
    }
    if (typeof c.description === "string") command.description = c.description;
    if (typeof c.argumentHint === "string") command.argumentHint = c.argumentHint;
    if (typeof c.model === "string") command.model = c.model;
    if (Array.isArray(c.allowedTools)) command.allowedTools = c.allowedTools.map(String);
    out.push(command);
  }
  return out;
}

/** A plugin's hooks with its variables in their commands and environment; a script that cannot run is left out, said once. */
function pluginHooks(
  config: HookConfig,
  plugin: PluginIdentity,
  file: string,
  variables: Record<string, string>,
  parts: PluginParts,
): HookConfig {
  const out: HookConfig = {};
  for (const [event, groups] of Object.entries(config) as [
    keyof HookConfig,
    NonNullable<HookConfig[keyof HookConfig]>,
  ][]) {
    const kept = groups
      .map((group) => ({
        ...group,
        hooks: group.hooks.flatMap((h) => {
          const command = h.command
            .replaceAll("${CLAUDE_PLUGIN_ROOT}", variables.CLAUDE_PLUGIN_ROOT)
            .replaceAll("${CLAUDE_PLUGIN_DATA}", variables.CLAUDE_PLUGIN_DATA);
          const script = firstWord(command);
          const info = script && isInside(script, plugin.root) ? statOf(script) : undefined;
          if (info?.isFile() && (Number(info.mode) & 0o111) === 0) {
            parts.problems.push(
              `plugin ${plugin.id}: ${file}: the ${event} hook runs ${relative(plugin.root, script!)}, which is not executable (chmod +x it); that hook was left out.`,
            );
            return [];
          }
          return [{ ...h, command, env: variables, source: `plugin ${plugin.id}, ${file}` }];
        }),
      }))
      .filter((group) => group.hooks.length > 0);
    if (kept.length > 0) out[event] = kept;
  }
  return out;
}

/** The program a command line starts, unquoted. */
function firstWord(command: string): string | undefined {
  const m = /^\s*(?:"([^"]*)"|'([^']*)'|(\S+))/.exec(command);
  return m ? (m[1] ?? m[2] ?? m[3]) : undefined;
}

/** A hooks file (`{ "description"?, "hooks": {…} }`). */
function hooksIn(file: string, parts: PluginParts, id: string): Array<{ file: string; hooks: unknown }> {
  const json = readJson(file, parts, id);
  if (json === undefined) return [];
  if (!isObject(json) || !isObject(json.hooks)) {
    parts.problems.push(`plugin ${id}: ${file} has no "hooks" object; its hooks were not loaded.`);
    return [];
  }
  return [{ file, hooks: json.hooks }];
}

/** An MCP file: `{ "mcpServers": {…} }` or the map of servers itself (both are published). */
function serversIn(file: string, parts: PluginParts, id: string): Array<{ file: string; map: unknown }> {
  const json = readJson(file, parts, id);
  if (json === undefined) return [];
  if (!isObject(json)) {
    parts.problems.push(`plugin ${id}: ${file} does not hold a JSON object; its MCP servers were not loaded.`);
    return [];
  }
  return [{ file, map: isObject(json.mcpServers) ? json.mcpServers : json }];
}

function readJson(file: string, parts: PluginParts, id: string): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    parts.problems.push(`plugin ${id}: ${file} is not valid JSON (${(e as Error).message}); it was not read.`);
    return undefined;
  }
}

/** SKILL.md files of a folder: the folder itself when it holds one, else its subfolders'. */
function skillsIn(dir: string): string[] {
  if (!statOf(dir)?.isDirectory()) return [];
  const own = join(dir, "SKILL.md");
  if (statOf(own)?.isFile()) return [own];
  return filesUnder(dir, ["SKILL.md"], 1).filter((f) => dirname(dirname(f)) === dir);
}

function isPathList(value: unknown): value is string | string[] {
  return typeof value === "string" || Array.isArray(value);
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined ? [] : [value];
}

function unique(files: string[]): string[] {
  return [...new Set(files)];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
