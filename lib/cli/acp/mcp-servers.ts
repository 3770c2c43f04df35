/**
 * The MCP servers an editor hands gong with `session/new` and `session/load` (ACP's `mcpServers`:
 * stdio, http and sse entries with their env and headers as name/value lists). They join the
 * servers of gong's own settings for that session only.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { McpManager, serverFromOptions } from "../../mcp/index.ts";

/** A manager for the session when the editor gave servers (the caller closes it), else the shared one. */
export function editorMcp(servers: acp.McpServer[] | undefined, shared: McpManager | undefined, cwd: string): { manager?: McpManager; owned: boolean } {
  if (!servers || servers.length === 0) return { manager: shared, owned: false };
  const pairs = (list: { name: string; value: string }[] | undefined) => Object.fromEntries((list ?? []).map((p) => [p.name, p.value]));
  const given = servers.map((s) =>
    "type" in s && (s.type === "http" || s.type === "sse")
      ? serverFromOptions(s.name, { type: s.type, url: s.url, headers: pairs(s.headers) })
      : serverFromOptions(s.name, { command: (s as acp.McpServerStdio).command, args: (s as acp.McpServerStdio).args, env: pairs((s as acp.McpServerStdio).env) }),
  );
  const names = new Set(given.map((s) => s.name));
  const own = (shared?.configs ?? []).filter((s) => !names.has(s.name));
  return { manager: new McpManager([...own, ...given], cwd).start(), owned: true };
}
