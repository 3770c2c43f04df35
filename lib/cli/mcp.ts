/** `gong mcp list`: connects to each configured server (lib/core/mcp.ts) and shows its state and tools. */
import type { McpServerStatus } from "../mcp/manager.ts";
import type { HostMcp } from "../core/mcp.ts";
import { oneLine } from "./render.ts";

/** `gong mcp list`: every configured server, its state and its tools. */
export async function listMcpServers(mcp: HostMcp, out: (s: string) => void): Promise<void> {
  if (!mcp.manager) {
    out('No MCP servers configured. Add them to .mcp.json or under "mcpServers" in ~/.gong/settings.json.\n');
    return;
  }
  await mcp.manager.settled();
  for (const server of mcp.manager.status()) out(describeServer(server));
}

function describeServer(s: McpServerStatus): string {
  const head = `${s.name}  ${s.state}  ${s.transport}  ${s.source}`;
  const lines = [head];
  if (s.state === "untrusted") lines.push("  not started: the project is not trusted");
  else if (s.state === "disabled") lines.push('  not started: "enabled": false');
  else if (s.error) lines.push(`  ${s.error}`);
  for (const t of s.tools) lines.push(`  ${t.exposedAs}${t.description ? `  ${oneLine(t.description, 70)}` : ""}`);
  if (s.state === "connected" && s.tools.length === 0) lines.push("  (no tools)");
  return `${lines.join("\n")}\n`;
}
