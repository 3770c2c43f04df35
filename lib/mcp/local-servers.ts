/**
 * The user's own MCP servers for one project (`gong mcp add --scope local`, Claude Code's local
 * scope): private to the user, kept under GONG_HOME rather than in the repository, so they need no
 * trust. One file for every project: `{"projects": {"/abs/project": {"mcpServers": {…}}}}`.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { McpConfigError, parseMcpServers, type McpServerSettingsEntry, type UserMcpLayer } from "./config.ts";

export function localServersFile(gongHome: string): string {
  return join(gongHome, "local-mcp.json");
}

/** The whole file as an object (empty when there is none); a file that does not parse is an McpConfigError. */
export function readLocalServersFile(file: string): {
  projects: Record<string, { mcpServers?: Record<string, unknown> }>;
} {
  if (!existsSync(file)) return { projects: {} };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new McpConfigError(`Invalid MCP configuration in ${file}: ${(e as Error).message}`);
  }
  const projects = (raw as { projects?: unknown } | null)?.projects;
  if (
    typeof raw !== "object" ||
    raw === null ||
    (projects !== undefined && (typeof projects !== "object" || projects === null))
  )
    throw new McpConfigError(`Invalid MCP configuration in ${file}: expected {"projects": {…}}`);
  return { ...(raw as object), projects: (projects ?? {}) as Record<string, { mcpServers?: Record<string, unknown> }> };
}

/** This project's servers in the file, validated as `.mcp.json` entries; undefined when it has none. */
export function localServers(gongHome: string, cwd: string): UserMcpLayer | undefined {
  const file = localServersFile(gongHome);
  const entry = readLocalServersFile(file).projects[resolve(cwd)];
  if (!entry?.mcpServers || Object.keys(entry.mcpServers).length === 0) return undefined;
  const servers: Record<string, McpServerSettingsEntry> = parseMcpServers(
    { mcpServers: entry.mcpServers },
    `${file} (projects["${resolve(cwd)}"])`,
  );
  return { file, servers };
}
