/**
 * gemini-cli extensions: folders holding `gemini-extension.json` under `~/.gemini/extensions/` (the
 * user's) and `<project>/.gemini/extensions/` (a project's), as gemini-cli reads them. An extension
 * brings MCP servers (`mcpServers`, with `${extensionPath}`, `${workspacePath}` and `${/}` filled
 * in), a context file (`contextFileName`, else its GEMINI.md; `@file` imports inside it are
 * followed within the extension), `excludeTools` (each a deny rule: `run_shell_command(rm -rf)`
 * keeps `rm -rf` from running under every profile), TOML commands (`commands/git/commit.toml` is
 * `/git:commit`; one that another command already names is `/<extension>.git:commit`, as
 * gemini-cli renames it) and skills (`skills/<name>/SKILL.md`). A folder installed with `link`
 * (`.gemini-extension-install.json` of type "link") is read where its source is.
 */
import { readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import * as v from "valibot";
import { isInside } from "../../paths.ts";
import { readCommand, type CustomCommand } from "../commands.ts";
import { filesUnder, readSetupFile, statOf, type Scope } from "../places.ts";
import { readSkill, type Skill } from "../skills.ts";
import type { BundledServer } from "./contents.ts";
import { parseJsonAs } from "./schema.ts";

export const EXTENSION_MANIFEST = "gemini-extension.json";
export const INSTALL_METADATA = ".gemini-extension-install.json";

const ExtensionSchema = v.looseObject({
  name: v.pipe(v.string(), v.regex(/^[A-Za-z0-9][\w.-]*$/, "must be letters, digits, '-', '_' or '.'")),
  version: v.optional(v.string()),
  description: v.optional(v.string()),
  mcpServers: v.optional(v.record(v.string(), v.unknown())),
  contextFileName: v.optional(v.union([v.string(), v.array(v.string())])),
  excludeTools: v.optional(v.array(v.string())),
});
export type ExtensionManifest = v.InferOutput<typeof ExtensionSchema>;

/** A context file for the prompt: read as the file name `readAs` (the profiles reading GEMINI.md read it). */
export interface ContextFile {
  path: string;
  content: string;
  readAs: string;
}

export interface Extension {
  name: string;
  version?: string;
  /** The folder read (a linked extension's source). */
  root: string;
  scope: Scope;
  /** How listings and lines name it: `superpowers (gemini extension)`. */
  label: string;
  servers: BundledServer[];
  context: ContextFile[];
  /** `excludeTools` as deny rules in Claude Code's syntax. */
  denyRules: string[];
  commands: CustomCommand[];
  skills: Skill[];
  problems: string[];
  /** Why nothing of it loads (its manifest does not parse). */
  broken?: string;
}

/** The user's and the project's extension folders (the project's first). */
export function extensionPlaces(
  cwd: string,
  home = process.env.HOME ?? homedir(),
): Array<{ dir: string; scope: Scope }> {
  const places = [
    { dir: join(cwd, ".gemini", "extensions"), scope: "project" as const },
    { dir: join(home, ".gemini", "extensions"), scope: "user" as const },
  ];
  return places.filter((p, i) => places.findIndex((q) => q.dir === p.dir) === i);
}

/** Every extension of the places, read; a project's wins over the user's of the same name. */
export async function discoverExtensions(cwd: string, home?: string): Promise<Extension[]> {
  const byName = new Map<string, Extension>();
  for (const place of extensionPlaces(cwd, home)) {
    let entries: string[];
    try {
      entries = readdirSync(place.dir).sort();
    } catch {
      continue;
    }
    for (const entry of entries) {
      const dir = join(place.dir, entry);
      if (entry.startsWith(".") || !statOf(dir)?.isDirectory()) continue;
      const extension = await readExtension(dir, place.scope, cwd);
      if (extension && !byName.has(extension.name)) byName.set(extension.name, extension);
    }
  }
  return [...byName.values()];
}

/** Reads one extension folder; undefined when it holds no manifest (a line says what else is wrong). */
export async function readExtension(folder: string, scope: Scope, cwd: string): Promise<Extension | undefined> {
  const root = linkedSource(folder) ?? folder;
  const file = join(root, EXTENSION_MANIFEST);
  if (!statOf(file)?.isFile()) return undefined;
  const read = readSetupFile(file);
  const parsed = typeof read === "string" ? { problem: read } : parseJsonAs(ExtensionSchema, read.text);
  const problems: string[] = [];
  if ("problem" in parsed) {
    // Still listed, so the line reaches the user and nothing of it runs.
    const broken = `gemini extension ${file} ${parsed.problem}`;
    return { ...empty(folder, root, scope), problems: [`${broken}; it was not loaded.`], broken };
  }
  const manifest = hydrate(parsed.value, { extensionPath: root, workspacePath: cwd, "/": sep, pathSeparator: sep });
  const label = `${manifest.name} (gemini extension)`;
  const servers = Object.entries(manifest.mcpServers ?? {}).map(([name, entry]) => ({
    name,
    entry,
    file,
    plugin: label,
    variables: {},
  }));
  const context: ContextFile[] = [];
  const names = manifest.contextFileName ?? "GEMINI.md";
  for (const name of Array.isArray(names) ? names : [names]) {
    const path = resolve(root, name);
    if (!isInside(path, root)) {
      problems.push(`${label}: ${file}: contextFileName ${name} leads outside the extension; it was not read.`);
      continue;
    }
    if (!statOf(path)?.isFile()) continue;
    context.push({ path, content: withImports(path, root, problems, label), readAs: "GEMINI.md" });
  }
  const commands: CustomCommand[] = [];
  const commandsDir = join(root, "commands");
  for (const path of filesUnder(commandsDir, [".toml"])) {
    const name = relative(commandsDir, path).slice(0, -5).split(/[\\/]/).join(":");
    const command = await readCommand(path, name, scope, true);
    if (typeof command === "string") problems.push(`${label}: ${path}: ${command}; command skipped.`);
    else commands.push({ ...command, plugin: label });
  }
  const skills: Skill[] = [];
  for (const path of filesUnder(join(root, "skills"), ["SKILL.md"], 1)) {
    const skill = await readSkill(path, scope);
    if (typeof skill === "string") problems.push(`${label}: ${path}: ${skill}; skill skipped.`);
    else skills.push({ ...skill, plugin: label });
  }
  return {
    name: manifest.name,
    version: manifest.version,
    root,
    scope,
    label,
    servers,
    context,
    denyRules: (manifest.excludeTools ?? []).map(claudeRule),
    commands,
    skills,
    problems,
  };
}

function empty(folder: string, root: string, scope: Scope): Extension {
  const name = folder.split(sep).at(-1) ?? folder;
  return {
    name,
    root,
    scope,
    label: `${name} (gemini extension)`,
    servers: [],
    context: [],
    denyRules: [],
    commands: [],
    skills: [],
    problems: [],
  };
}

/** The source of a folder installed as a link (gemini-cli's `extensions link`). */
function linkedSource(folder: string): string | undefined {
  try {
    const meta = JSON.parse(readFileSync(join(folder, INSTALL_METADATA), "utf8")) as {
      type?: unknown;
      source?: unknown;
    };
    return meta.type === "link" && typeof meta.source === "string" ? resolve(folder, meta.source) : undefined;
  } catch {
    return undefined;
  }
}

/** `${extensionPath}`, `${workspacePath}`, `${/}` in every string of the manifest; other `${…}` are left for the environment. */
function hydrate<T>(value: T, variables: Record<string, string>): T {
  if (typeof value === "string")
    return value.replace(/\$\{([^}]*)\}/g, (m, key: string) =>
      Object.hasOwn(variables, key) ? variables[key] : m,
    ) as T;
  if (Array.isArray(value)) return value.map((item) => hydrate(item, variables)) as T;
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, item]) => [k, hydrate(item, variables)])) as T;
  return value;
}

/** Imports followed inside a context file, this deep. */
const MAX_IMPORT_DEPTH = 5;

/** A context file with its `@path` imports (files inside the extension) put in their place. */
function withImports(path: string, root: string, problems: string[], label: string, chain: string[] = []): string {
  const text = readFileSync(path, "utf8");
  return text.replace(/(^|\s)@((?:\.{1,2}\/)?[\w./-]+\.\w+)/g, (whole, lead: string, target: string) => {
    const imported = resolve(dirname(path), target);
    if (!isInside(imported, root) || !statOf(imported)?.isFile()) return whole;
    if (chain.includes(imported) || chain.length >= MAX_IMPORT_DEPTH) {
      problems.push(
        `${label}: ${relative(root, path)} imports ${target} in a loop or too deep; it was left as written.`,
      );
      return whole;
    }
    return `${lead}${withImports(imported, root, problems, label, [...chain, path]).trimEnd()}`;
  });
}

/**
 * gemini-cli's tool names as the calls Claude Code's rules name (a profile's own tool of another
 * name declares the same call, so the rule holds under every profile); other names stay as written.
 */
const GEMINI_CALLS: Record<string, string> = {
  run_shell_command: "Bash",
  read_file: "Read",
  read_many_files: "Read",
  write_file: "Write",
  replace: "Edit",
  edit: "Edit",
  glob: "Glob",
  grep_search: "Grep",
  search_file_content: "Grep",
  list_directory: "Glob",
  web_fetch: "WebFetch",
  google_web_search: "WebSearch",
};

/** An `excludeTools` entry as a deny rule: `run_shell_command(git push)` keeps every command starting so from running. */
export function claudeRule(entry: string): string {
  const m = /^([\w-]+)(?:\((.*)\))?$/s.exec(entry.trim());
  if (!m) return entry;
  const tool = GEMINI_CALLS[m[1]] ?? m[1];
  if (m[2] === undefined) return tool;
  return tool === "Bash" ? `Bash(${m[2].trim()}:*)` : `${tool}(${m[2]})`;
}
