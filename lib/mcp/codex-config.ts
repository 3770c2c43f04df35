/**
 * The MCP servers of codex's `config.toml` (`$CODEX_HOME/config.toml`, default `~/.codex/`), read
 * as gong reads `.mcp.json`: `[mcp_servers.NAME]` tables with codex's keys mapped onto the same
 * entry — `command`, `args`, `env`, `env_vars` (variables passed through), `cwd`; `url`,
 * `bearer_token_env_var`, `http_headers`, `env_http_headers`; `enabled`, `enabled_tools`,
 * `disabled_tools`, `startup_timeout_sec` / `startup_timeout_ms`, `tool_timeout_sec`. It is the
 * user's own file, so no trust is needed; like Claude Code's files, one that does not parse (or a
 * server that is not valid) is a warning and is left out, never a stop.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { McpConfigError, parseMcpServers, type UserMcpLayer } from "./config.ts";

export function codexConfigFile(env: Record<string, string | undefined>): string {
  return join(env.CODEX_HOME || join(env.HOME || homedir(), ".codex"), "config.toml");
}

/** The servers of codex's config, and a line for each thing that could not be read. */
export async function codexServers(
  env: Record<string, string | undefined>,
): Promise<{ layer?: UserMcpLayer; warnings: string[] }> {
  const file = codexConfigFile(env);
  if (!existsSync(file)) return { warnings: [] };
  let config: Record<string, unknown>;
  try {
    // The TOML parser loads only for users who have a codex config.
    const { parse } = await import("smol-toml");
    config = parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch (e) {
    return {
      warnings: [
        `warning: ${file} could not be read (${(e as Error).message.split("\n")[0]}); its MCP servers were left out.`,
      ],
    };
  }
  const tables = config.mcp_servers;
  if (typeof tables !== "object" || tables === null) return { warnings: [] };
  const warnings: string[] = [];
  const servers: UserMcpLayer["servers"] = {};
  for (const [name, table] of Object.entries(tables as Record<string, unknown>)) {
    try {
      Object.assign(servers, parseMcpServers({ mcpServers: { [name]: entryOf(table) } }, file));
    } catch (e) {
      if (!(e instanceof McpConfigError)) throw e;
      warnings.push(`warning: ${e.message}; the server '${name}' was left out.`);
    }
  }
  return { layer: Object.keys(servers).length > 0 ? { file, servers } : undefined, warnings };
}

/** One `[mcp_servers.NAME]` table as a `.mcp.json` entry (validated by the caller). */
function entryOf(table: unknown): unknown {
  if (typeof table !== "object" || table === null) return table;
  const t = table as Record<string, unknown>;
  const entry: Record<string, unknown> = {};
  if (t.command !== undefined) entry.command = t.command;
  if (t.args !== undefined) entry.args = t.args;
  if (t.cwd !== undefined) entry.cwd = t.cwd;
  const env = { ...(isTable(t.env) ? t.env : {}) } as Record<string, unknown>;
  if (Array.isArray(t.env_vars)) for (const name of t.env_vars) if (typeof name === "string") env[name] = `\${${name}}`;
  if (Object.keys(env).length > 0) entry.env = env;
  if (t.url !== undefined) {
    entry.type = "http";
    entry.url = t.url;
  }
  const headers = { ...(isTable(t.http_headers) ? t.http_headers : {}) } as Record<string, unknown>;
  if (isTable(t.env_http_headers))
    for (const [header, name] of Object.entries(t.env_http_headers)) headers[header] = `\${${String(name)}}`;
  if (typeof t.bearer_token_env_var === "string") headers.Authorization = `Bearer \${${t.bearer_token_env_var}}`;
  if (Object.keys(headers).length > 0) entry.headers = headers;
  if (t.enabled !== undefined) entry.enabled = t.enabled;
  if (t.enabled_tools !== undefined) entry.enabledTools = t.enabled_tools;
  if (t.disabled_tools !== undefined) entry.disabledTools = t.disabled_tools;
  const startup =
    seconds(t.startup_timeout_sec) ?? (typeof t.startup_timeout_ms === "number" ? t.startup_timeout_ms : undefined);
  if (startup !== undefined) entry.startupTimeoutMs = Math.round(startup);
  const tool = seconds(t.tool_timeout_sec);
  if (tool !== undefined) entry.toolTimeoutMs = Math.round(tool);
  return entry;
}

const isTable = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function seconds(value: unknown): number | undefined {
  return typeof value === "number" ? value * 1000 : undefined;
}
