/**
 * The tools of a session's MCP servers. They connect after start-up: each one is registered
 * inactive as it arrives and the session then recomputes its active set, where MCP tools follow
 * the same rule as custom and subagent tools (see sessionToolNames).
 */
import type { McpManager, McpServerEvent } from "../mcp/index.ts";
import type { ToolRegistry } from "../../tools/registry.ts";

export class SessionMcpTools {
  private readonly registered = new Set<string>();
  private readonly detach: () => void;

  constructor(manager: McpManager, registry: ToolRegistry, onToolsChanged: () => void, onEvent: (event: McpServerEvent) => void) {
    this.detach = manager.attach(
      {
        register: (tool) => {
          this.registered.add(tool.name);
          registry.register(tool, { activate: false });
          onToolsChanged();
        },
        unregister: (name) => {
          this.registered.delete(name);
          registry.unregister(name);
        },
      },
      onEvent,
    );
  }

  /** Names of the MCP tools registered now. */
  names(): string[] {
    return [...this.registered];
  }

  close(): void {
    this.detach();
  }
}
