/**
 * Which tools of MCP servers a session offers: they follow the session's tool selection like the
 * built-in tools do — all of them under the `default` preset, none under `minimal` or `readonly`,
 * and those a list names (`["read", "mcp__github__create_pr"]`). They connect after start-up, so
 * the choice is made each time one arrives and again when the selection changes.
 */
import type { McpManager, McpServerEvent } from "../mcp/index.ts";
import type { ToolPreset, ToolRegistry } from "../../tools/registry.ts";

export type ToolSelection = ToolPreset | readonly string[];

export function selectsMcpTool(selection: ToolSelection, name: string): boolean {
  if (typeof selection === "string") return selection === "default";
  return selection.includes(name) || selection.includes("default");
}

export class SessionMcpTools {
  private readonly names = new Set<string>();
  private readonly detach: () => void;

  constructor(
    manager: McpManager,
    private readonly registry: ToolRegistry,
    private readonly selection: () => ToolSelection,
    onEvent: (event: McpServerEvent) => void,
  ) {
    this.detach = manager.attach(
      {
        register: (tool) => {
          this.names.add(tool.name);
          this.registry.register(tool, { activate: selectsMcpTool(this.selection(), tool.name) });
        },
        unregister: (name) => {
          this.names.delete(name);
          this.registry.unregister(name);
        },
      },
      onEvent,
    );
  }

  /** After the selection changed: the MCP tools it takes join the active set. */
  reselect(): void {
    const chosen = [...this.names].filter((n) => selectsMcpTool(this.selection(), n));
    if (chosen.length > 0) this.registry.setActive([...new Set([...this.registry.names(), ...chosen])]);
  }

  close(): void {
    this.detach();
  }
}
