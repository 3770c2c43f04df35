/**
 * The tools of a session's MCP servers. They connect after start-up: each one is kept here as it
 * arrives and the session then builds a new Toolset, where MCP tools follow the same rule as
 * custom and subagent tools (see buildToolset).
 */
import type { McpManager, McpServerEvent } from "../mcp/index.ts";
import type { Tool } from "../../tools/types.ts";

export class SessionMcpTools {
  private readonly connected = new Map<string, Tool>();
  private readonly detach: () => void;

  constructor(manager: McpManager, onToolsChanged: () => void, onEvent: (event: McpServerEvent) => void) {
    this.detach = manager.attach(
      {
        register: (tool) => {
          this.connected.set(tool.name, tool);
          onToolsChanged();
        },
        unregister: (name) => {
          if (this.connected.delete(name)) onToolsChanged();
        },
      },
      onEvent,
    );
  }

  /** The MCP tools connected now. */
  tools(): Tool[] {
    return [...this.connected.values()];
  }

  close(): void {
    this.detach();
  }
}
