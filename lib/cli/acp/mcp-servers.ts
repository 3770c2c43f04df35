/**
 * The MCP servers of one editor session: gong's configured servers for the session's own `cwd`
 * (the global settings, and that project's `.mcp.json` and `.gong/settings.json` when the project
 * is trusted), plus those the editor hands over with `session/new` and `session/load` (ACP's
 * `mcpServers`: stdio, http and sse entries with their env and headers as name/value lists).
 */
import type * as acp from "@agentclientprotocol/sdk";
import { McpManager, serverFromOptions, type McpServerConfig } from "../../mcp/index.ts";
import { mcpConfiguration, type UserMcpSources } from "../../core/mcp.ts";
import { loadSettings } from "../../core/settings.ts";
import { canonical, globalSettings, isProjectTrusted } from "../../core/trust.ts";

export interface SessionMcpOptions {
  /** The session's working directory (from session/new or session/load). */
  cwd: string;
  /** The directory gong started in, whose servers `shared` runs. */
  startCwd: string;
  /** The servers of gong's start directory, shared by the sessions opened there. */
  shared?: McpManager;
  /** The servers the editor gave. */
  given?: acp.McpServer[];
  /** `--trust` was given. */
  trustFlag?: boolean;
  /** The user's own servers and the command line's for a directory (codex's config, local scope, --mcp-config). */
  sourcesAt?(cwd: string): UserMcpSources;
  env: Record<string, string | undefined>;
  /** One line for stderr (a project's servers left out because it is not trusted). */
  warn(line: string): void;
}

/**
 * The manager for a session; `owned` when it was made for that session alone (the caller stops it).
 * A session in gong's start directory without servers of the editor shares the run's manager.
 * Throws a ConfigError for a malformed settings or `.mcp.json` file of the session's directory.
 */
export function sessionMcp(options: SessionMcpOptions): { manager?: McpManager; owned: boolean } {
  const sameDir = canonical(options.cwd) === canonical(options.startCwd);
  const given = editorServers(options.given ?? []);
  if (sameDir && given.length === 0) return { manager: options.shared, owned: false };
  const own = sameDir ? (options.shared?.configs ?? []) : configuredFor(options);
  const names = new Set(given.map((s) => s.name));
  const servers = [...own.filter((s) => !names.has(s.name)), ...given];
  if (servers.length === 0) return { manager: undefined, owned: false };
  return { manager: new McpManager(servers, options.cwd).start(), owned: true };
}

/** What gong's settings and `.mcp.json` configure for `cwd`, with trust decided for that directory. */
function configuredFor(options: SessionMcpOptions): McpServerConfig[] {
  const loaded = loadSettings(options.cwd);
  const trusted = isProjectTrusted(options.cwd, { flag: options.trustFlag, global: globalSettings(loaded) });
  const mcp = mcpConfiguration(options.cwd, loaded, trusted, options.env, options.sourcesAt?.(options.cwd));
  for (const warning of mcp.warnings) options.warn(`gong: ${warning}`);
  return mcp.config?.servers ?? [];
}

function editorServers(servers: acp.McpServer[]): McpServerConfig[] {
  const pairs = (list: { name: string; value: string }[] | undefined) =>
    Object.fromEntries((list ?? []).map((p) => [p.name, p.value]));
  return servers.map((s) =>
    "type" in s && (s.type === "http" || s.type === "sse")
      ? serverFromOptions(s.name, { type: s.type, url: s.url, headers: pairs(s.headers) })
      : serverFromOptions(s.name, {
          command: (s as acp.McpServerStdio).command,
          args: (s as acp.McpServerStdio).args,
          env: pairs((s as acp.McpServerStdio).env),
        }),
  );
}
