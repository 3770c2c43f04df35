/**
 * The MCP servers a host runs: one manager per run, built from the settings files and the project's
 * `.mcp.json` (trust decides whether the project's own start), the user's own files (codex's
 * `config.toml`, the servers `gong mcp add` keeps for this project) and the command line's
 * `--mcp-config` (with `--strict-mcp-config`, only those), shared by every session the run opens (a
 * session swap does not restart servers).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  loadMcpConfig,
  McpConfigError,
  type LoadedMcpConfig,
  type McpServerConfig,
  type UserMcpLayer,
} from "../mcp/config.ts";
import { localServers } from "../mcp/local-servers.ts";
import type { McpManager } from "../mcp/manager.ts";
import { gongHome } from "../store/paths.ts";
import { ConfigError } from "./errors.ts";
import type { SessionFlags } from "./flags.ts";
import type { LoadedSettings } from "./settings.ts";
import { untrustedHint } from "./trust.ts";

/** Servers besides the settings and `.mcp.json`: read before the project's, after it, or instead of all (strict). */
export interface UserMcpSources {
  before: UserMcpLayer[];
  after: UserMcpLayer[];
  only?: UserMcpLayer[];
  /** Servers plugins and extensions bring; any configured server of the same name wins. */
  bundled?: McpServerConfig[];
}

/**
 * The user's own servers and the command line's: codex's config (its TOML parser loads only when the
 * file exists), the project's local-scope servers, then `--mcp-config`. `--strict-mcp-config` keeps
 * only the last. `at(dir)` gives them for another project (its own local-scope servers).
 */
export async function userMcpSources(
  cwd: string,
  env: Record<string, string | undefined>,
  flags: Pick<SessionFlags, "mcpConfigs" | "strictMcpConfig" | "skipCodexConfig"> = {},
): Promise<{ sources: UserMcpSources; warnings: string[]; at(dir: string): UserMcpSources }> {
  const given: UserMcpLayer[] = (flags.mcpConfigs ?? []).map((c) => ({ file: c.source, servers: c.servers }));
  const codex =
    flags.skipCodexConfig || flags.strictMcpConfig
      ? { warnings: [] }
      : await (await import("../mcp/codex-config.ts")).codexServers(env);
  const at = (dir: string): UserMcpSources => {
    if (flags.strictMcpConfig) return { before: [], after: [], only: given };
    const local = localLayer(dir);
    return { before: codex.layer ? [codex.layer] : [], after: [...(local ? [local] : []), ...given] };
  };
  return { sources: at(cwd), warnings: codex.warnings, at };
}

/** The servers `gong mcp add` keeps for the project at `dir`; a file that does not parse is a configuration error. */
function localLayer(dir: string): UserMcpLayer | undefined {
  try {
    return localServers(gongHome(), dir);
  } catch (e) {
    if (e instanceof McpConfigError) throw new ConfigError(e.message);
    throw e;
  }
}

export interface HostMcp {
  /** Undefined when no server is configured. */
  manager?: McpManager;
  /** Lines for the user: project servers left out, secrets put into a server's command line. */
  warnings: string[];
}

/**
 * Reads the configuration (a malformed file is a configuration error naming file and key); does not
 * connect. The MCP client code loads only when a server is configured.
 */
export async function configureMcp(
  cwd: string,
  loaded: LoadedSettings,
  trusted: boolean,
  env: Record<string, string | undefined>,
  sources?: UserMcpSources,
): Promise<HostMcp> {
  const { config, warnings } = mcpConfiguration(cwd, loaded, trusted, env, sources);
  if (!config) return { warnings };
  const { McpManager } = await import("../mcp/manager.ts");
  return { manager: new McpManager(config.servers, cwd, config.untrusted), warnings };
}

/** The configured servers (undefined when there are none, trusted or not) and the lines to tell the user. */
export function mcpConfiguration(
  cwd: string,
  loaded: LoadedSettings,
  trusted: boolean,
  env: Record<string, string | undefined>,
  sources?: UserMcpSources,
): { config?: LoadedMcpConfig; warnings: string[] } {
  let config: ReturnType<typeof loadMcpConfig>;
  try {
    config = loadMcpConfig({
      cwd,
      trusted,
      env,
      ...sources,
      settings: loaded.layers
        .filter((l) => l.settings.mcpServers)
        .map((l) => ({ file: l.file, scope: l.scope, servers: l.settings.mcpServers! })),
    });
  } catch (e) {
    if (e instanceof McpConfigError) throw new ConfigError(e.message);
    throw e;
  }
  const hasAny = config.servers.length > 0 || config.untrusted.length > 0;
  const trust = trustNotice(cwd, config, trusted);
  const warnings = [
    ...(trust ? [trust] : []),
    ...config.servers.filter((s) => s.enabled && s.secretsInCommandLine).map(commandLineNotice),
  ];
  return { config: hasAny ? config : undefined, warnings };
}

/**
 * A secret in a server's command line is readable by every process on the machine (`ps`), the
 * model's unboxed commands too: said once, with the way out (the server's `env`, readable only by
 * processes of the same user — and by none of the commands under the sandbox, which hides them).
 */
function commandLineNotice(server: McpServerConfig): string {
  const names = server.secretsInCommandLine!.map((n) => `\${${n}}`).join(", ");
  return `warning: MCP server '${server.name}' (${server.source}) puts ${names} in its command line, which every process on this machine can read with ps; pass it in the server's "env" instead if the server reads it from there, or run with --sandbox.`;
}

/**
 * One line when an untrusted project's `.mcp.json` is left out. (Servers in its settings file are
 * told about by the settings' own trust notice, with the other keys that need trust.)
 */
function trustNotice(cwd: string, config: LoadedMcpConfig, trusted: boolean): string | undefined {
  const file = join(cwd, ".mcp.json");
  if (trusted || !existsSync(file)) return undefined;
  const names = config.untrusted.filter((s) => s.file === file && s.enabled).map((s) => s.name);
  if (names.length === 0 && !config.unreadable) return undefined;
  const what =
    names.length > 0 ? `the MCP server${names.length > 1 ? "s" : ""} ${names.join(", ")} from ${file}` : file;
  return `ignoring ${what}: ${untrustedHint()}`;
}
