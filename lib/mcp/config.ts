/**
 * Where MCP servers are configured and what an entry means. Three places, later ones winning by
 * server name: `mcpServers` in the global settings, the project's `.mcp.json` (the file other
 * agents already read: `{"mcpServers": {name: {type?, command, args, env, url, headers}}}`), and
 * `mcpServers` in the project settings. Project-level servers run code the repository chose, so
 * they start only in a trusted project. Strings may use `${VAR}` and `${VAR:-default}`.
 */
import { isSecretName } from "../env/env-vars.ts";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { configIssue } from "../../tools/args.ts";

const stringMap = v.record(v.string(), v.string());
const positiveMs = v.pipe(v.number(), v.integer(), v.minValue(1));

/** The keys every place understands (Claude Code's `.mcp.json` shape). */
const baseEntries = {
  type: v.optional(v.picklist(["stdio", "http", "sse"], 'must be "stdio", "http" or "sse"')),
  command: v.optional(v.string()),
  args: v.optional(v.array(v.string())),
  env: v.optional(stringMap),
  cwd: v.optional(v.string()),
  url: v.optional(v.string()),
  headers: v.optional(stringMap),
};

/** gong's own extras, also accepted in `.mcp.json`. */
const gongEntries = {
  enabled: v.optional(v.boolean()),
  startupTimeoutMs: v.optional(positiveMs),
  toolTimeoutMs: v.optional(positiveMs),
  enabledTools: v.optional(v.array(v.string())),
  disabledTools: v.optional(v.array(v.string())),
};

const needsEndpoint = (entry: { type?: string; command?: string; url?: string }) => {
  if (entry.type === "stdio") return typeof entry.command === "string";
  if (entry.type === "http" || entry.type === "sse") return typeof entry.url === "string";
  return (typeof entry.command === "string") !== (typeof entry.url === "string");
};
const ENDPOINT_MESSAGE = 'needs a "command" (a local server over stdio) or a "url" (streamable HTTP or SSE), not both';

/** One server in gong's settings files: unknown keys are mistakes worth naming. */
export const McpServerSettings = v.pipe(
  v.strictObject({ ...baseEntries, ...gongEntries }),
  v.check((entry) => needsEndpoint(entry), ENDPOINT_MESSAGE),
);
/** One server in `.mcp.json`: other tools' extra keys are ignored. */
const McpJsonServer = v.pipe(
  v.object({ ...baseEntries, ...gongEntries }),
  v.check((entry) => needsEndpoint(entry), ENDPOINT_MESSAGE),
);
const McpJsonFile = v.object({ mcpServers: v.record(v.string(), McpJsonServer) });

export type McpServerSettingsEntry = v.InferOutput<typeof McpServerSettings>;

export type McpScope = "global" | "project" | "sdk";
export type McpTransportKind = "stdio" | "http" | "sse";

/** A server entry after `${VAR}` expansion and defaults: what a connection is made from. */
export interface McpServerConfig {
  name: string;
  /** "http" for a url without a type: streamable HTTP first, SSE when the server is older. */
  transport: McpTransportKind;
  /** True when the type was not given (a url then falls back to SSE). */
  inferred: boolean;
  command?: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  url?: string;
  headers: Record<string, string>;
  enabled: boolean;
  startupTimeoutMs: number;
  toolTimeoutMs: number;
  enabledTools?: string[];
  disabledTools: string[];
  scope: McpScope;
  /** The file the entry came from (absent for entries given in code). */
  file?: string;
  /** The file and key the entry came from, for messages. */
  source: string;
  /** A configuration problem found after parsing (an unset variable): the server fails with it. */
  problem?: string;
  /**
   * A wire the host provides in place of a process or an address: a server living in the host's
   * own program (a Claude Agent SDK program's `createSdkMcpServer`, reached over its control messages).
   * It returns an MCP SDK `Transport`; typed as `unknown` here because this type is published and the
   * MCP SDK is bundled into gong, not a dependency of the package (transport.ts takes it as one).
   */
  open?: () => unknown;
  /**
   * Secret-looking variables (by the envPolicy rule: KEY, TOKEN, SECRET, …) whose values `${VAR}`
   * put into the server's command line — which every process of the machine can read (`ps`).
   */
  secretsInCommandLine?: string[];
}

/** Codex's defaults: a server gets 10 s to start, a call 60 s (progress notifications extend it). */
export const DEFAULT_STARTUP_TIMEOUT_MS = 10_000;
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

export class McpConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "McpConfigError";
  }
}

/** The servers of one settings layer, as the settings loader read them. */
export interface McpSettingsLayer {
  file: string;
  scope: "global" | "project";
  servers: Record<string, McpServerSettingsEntry>;
}

/** Servers of a file or flag the user gave (never trust-filtered): codex's config, `gong mcp add`'s local scope, `--mcp-config`. */
export interface UserMcpLayer {
  /** The file, or the flag (`--mcp-config`). */
  file: string;
  servers: Record<string, McpServerSettingsEntry>;
}

export interface LoadMcpOptions {
  cwd: string;
  /** `mcpServers` of each settings file read, global first. */
  settings: McpSettingsLayer[];
  /** Whether project-level servers may start; untrusted projects' servers are skipped. */
  trusted: boolean;
  env?: Record<string, string | undefined>;
  /** The user's own files read after the global settings, before the project's (codex's config.toml). */
  before?: UserMcpLayer[];
  /** The user's own servers for this project and the command line's, read last (they win). */
  after?: UserMcpLayer[];
  /** `--strict-mcp-config`: these servers and no others. */
  only?: UserMcpLayer[];
  /** Servers plugins and extensions bring (see bundledServer); a settings server of the same name wins. */
  bundled?: McpServerConfig[];
}

export interface LoadedMcpConfig {
  servers: McpServerConfig[];
  /** Project servers left out because the project is not trusted. */
  untrusted: McpServerConfig[];
  /** Why `.mcp.json` could not be read, when the project is not trusted (a trusted one throws). */
  unreadable?: string;
}

/** Reads every place servers are configured; a malformed `.mcp.json` throws an error naming the file and the key. */
export function loadMcpConfig(options: LoadMcpOptions): LoadedMcpConfig {
  const env = options.env ?? process.env;
  const byName = new Map<string, McpServerConfig>((options.bundled ?? []).map((s) => [s.name, s]));
  const add = (name: string, entry: McpServerSettingsEntry, scope: McpScope, file: string) =>
    byName.set(name, { ...resolveServer(name, entry, scope, `${file} (mcpServers.${name})`, env), file });
  const addUser = (layers: UserMcpLayer[] | undefined) => {
    for (const layer of layers ?? [])
      for (const [name, entry] of Object.entries(layer.servers)) add(name, entry, "global", layer.file);
  };
  if (options.only) {
    byName.clear();
    addUser(options.only);
    return { servers: [...byName.values()], untrusted: [] };
  }
  for (const layer of options.settings.filter((l) => l.scope === "global")) {
    for (const [name, entry] of Object.entries(layer.servers)) add(name, entry, "global", layer.file);
  }
  addUser(options.before);
  const mcpJson = join(options.cwd, ".mcp.json");
  let unreadable: string | undefined;
  if (existsSync(mcpJson)) {
    try {
      for (const [name, entry] of Object.entries(readMcpJson(mcpJson))) add(name, entry, "project", mcpJson);
    } catch (e) {
      // An untrusted project's file would not be used anyway: its mistakes must not stop gong.
      if (options.trusted) throw e;
      unreadable = (e as Error).message;
    }
  }
  for (const layer of options.settings.filter((l) => l.scope === "project")) {
    for (const [name, entry] of Object.entries(layer.servers)) add(name, entry, "project", layer.file);
  }
  addUser(options.after);
  const all = [...byName.values()];
  if (options.trusted) return { servers: all, untrusted: [] };
  return {
    servers: all.filter((s) => s.scope !== "project"),
    untrusted: all.filter((s) => s.scope === "project"),
    unreadable,
  };
}

/** Parses and validates `.mcp.json`. */
export function readMcpJson(file: string): Record<string, McpServerSettingsEntry> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new McpConfigError(`Invalid MCP configuration in ${file}: ${(e as Error).message}`);
  }
  return parseMcpServers(raw, file);
}

/** Validates `{"mcpServers": {…}}` (the shape of `.mcp.json` and `--mcp-config`); `source` names it in the error. */
export function parseMcpServers(raw: unknown, source: string): Record<string, McpServerSettingsEntry> {
  const result = v.safeParse(McpJsonFile, raw);
  if (!result.success) {
    throw new McpConfigError(`Invalid MCP configuration in ${source}: ${configIssue(result.issues[0])}`);
  }
  return result.output.mcpServers;
}

/**
 * A server a plugin or extension brings, in the `.mcp.json` shape: `variables` (a plugin's
 * CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA) fill its `${…}` before the user's environment does
 * and are passed to it; `plugin` names the bundle in its source. Throws a McpConfigError naming
 * the bundle, the file and the server.
 */
export function bundledServer(
  server: { name: string; entry: unknown; file: string; plugin: string; variables: Record<string, string> },
  env: Record<string, string | undefined> = process.env,
): McpServerConfig {
  const source = `${server.plugin}: ${server.file} (mcpServers.${server.name.slice(server.name.lastIndexOf(":") + 1)})`;
  const result = v.safeParse(McpJsonServer, server.entry);
  if (!result.success) throw new McpConfigError(`Invalid MCP server of ${source}: ${configIssue(result.issues[0])}`);
  const config = resolveServer(server.name, result.output, "global", source, { ...env, ...server.variables });
  return { ...config, env: { ...server.variables, ...config.env }, file: server.file };
}

/** Validates one entry given in code (createSession({ mcpServers })); throws naming the server and key. */
export function serverFromOptions(
  name: string,
  entry: unknown,
  env: Record<string, string | undefined> = process.env,
): McpServerConfig {
  const result = v.safeParse(McpServerSettings, entry);
  if (!result.success) {
    throw new McpConfigError(`Invalid MCP server '${name}': ${configIssue(result.issues[0])}`);
  }
  return resolveServer(name, result.output, "sdk", `mcpServers.${name}`, env);
}

function resolveServer(
  name: string,
  entry: McpServerSettingsEntry,
  scope: McpScope,
  source: string,
  env: Record<string, string | undefined>,
): McpServerConfig {
  const missing = new Set<string>();
  const expand = (s: string) => expandVars(s, env, missing);
  const expandMap = (m: Record<string, string> | undefined) =>
    Object.fromEntries(Object.entries(m ?? {}).map(([k, val]) => [k, expand(val)]));
  const transport: McpTransportKind = entry.type ?? (entry.command !== undefined ? "stdio" : "http");
  const config: McpServerConfig = {
    name,
    transport,
    inferred: entry.type === undefined,
    command: entry.command === undefined ? undefined : expand(entry.command),
    args: (entry.args ?? []).map(expand),
    env: expandMap(entry.env),
    cwd: entry.cwd === undefined ? undefined : expand(entry.cwd),
    url: entry.url === undefined ? undefined : expand(entry.url),
    headers: expandMap(entry.headers),
    enabled: entry.enabled ?? true,
    startupTimeoutMs: entry.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS,
    toolTimeoutMs: entry.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    enabledTools: entry.enabledTools,
    disabledTools: entry.disabledTools ?? [],
    scope,
    source,
  };
  const inCommandLine = [entry.command ?? "", ...(entry.args ?? [])].flatMap((word) =>
    [...word.matchAll(VARIABLE)].map((m) => m[1]),
  );
  const secrets = [...new Set(inCommandLine)].filter((name) => isSecretName(name));
  if (secrets.length > 0) config.secretsInCommandLine = secrets;
  if (missing.size > 0)
    config.problem = `${source} uses ${[...missing].map((n) => `\${${n}}`).join(", ")}, which ${missing.size > 1 ? "are" : "is"} not set in the environment.`;
  return config;
}

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** `${VAR}` → its value; `${VAR:-default}` → the default when VAR is unset or empty. Unset names are collected. */
export function expandVars(text: string, env: Record<string, string | undefined>, missing: Set<string>): string {
  return text.replace(VARIABLE, (_, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && value !== "") return value;
    if (fallback !== undefined) return fallback;
    missing.add(name);
    return "";
  });
}
