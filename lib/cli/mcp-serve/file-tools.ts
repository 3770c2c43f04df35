/**
 * `gong mcp serve --file-tools`: gong's own file tools offered to the client as they are — read,
 * write, edit, grep, find and ls, with the names and parameters of gong's default profile —
 * working in the server's directory. A call goes through what a session's call goes through: the
 * permission gate (rules, the approval mode, the client's answer when it takes elicitation
 * requests), the tool in the sessions' environment (reads never return a file a deny rule covers;
 * under --sandbox writes stay inside its roots), and the one output cut with the tool's limits, the
 * whole output spilled to `tool-output/` when cut.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { SessionSetup } from "../../core/prepare.ts";
import { approvalGate } from "../../gate/approval.ts";
import { createObserver, type Observer } from "../../output/policy.ts";
import { CAPABILITY_LIMITS } from "../../profiles/tool-limits.ts";
import { randomHex } from "../../hash.ts";
import { createToolRegistry, toDefinition, type ToolRegistry } from "../../../tools/registry.ts";
import type { Tool } from "../../../tools/types.ts";
import { canElicit, elicitingAsker } from "./elicitation.ts";

export const FILE_TOOLS = ["read", "write", "edit", "grep", "find", "ls"] as const;
type FileTool = (typeof FILE_TOOLS)[number];

export interface FileCall {
  requestId: string | number;
  signal: AbortSignal;
}

export class FileTools {
  private readonly registry: ToolRegistry;
  private readonly observer: Observer;
  private ready: Promise<void> | undefined;

  constructor(
    private readonly setup: SessionSetup,
    private readonly server: Server,
  ) {
    // The sessions' own environment: reads guarded, writes inside the sandbox's roots when it is on.
    const env = setup.sessionOptions.env!;
    this.registry = createToolRegistry({ cwd: setup.cwd, env, preset: [...FILE_TOOLS] });
    this.observer = createObserver({ root: setup.cwd, ...setup.sessionOptions.observer, perTool: undefined });
  }

  has(name: string): name is FileTool {
    return (FILE_TOOLS as readonly string[]).includes(name);
  }

  /** The gong tool behind a name `has` accepted. */
  tool(name: FileTool): Tool {
    return this.registry.get(name)!;
  }

  /** The tools as MCP lists them: gong's descriptions and JSON Schemas. */
  definitions(): McpTool[] {
    return FILE_TOOLS.map((name) => {
      const spec = toDefinition(this.registry.get(name)!);
      return { name, description: spec.description, inputSchema: spec.parameters as McpTool["inputSchema"] };
    });
  }

  async call(name: FileTool, args: Record<string, unknown>, call: FileCall): Promise<CallToolResult> {
    const tool = this.tool(name);
    try {
      await (this.ready ??= this.registry.env.initialize());
    } catch (e) {
      this.ready = undefined;
      return { content: [{ type: "text", text: (e as Error).message }], isError: true };
    }
    const id = `mcp-${randomHex(6)}`;
    const blocked = await this.gate(call).beforeToolCall(name, args, { id, tool, env: this.registry.env });
    if (blocked) return { content: [{ type: "text", text: blocked.block }], isError: true };
    const capture = this.observer.capture(name);
    const response = await this.registry.execute(name, args, { signal: call.signal, callId: id, output: capture });
    const seen = await this.observer.observe(name, response, {
      direction: tool.truncation,
      capture,
      limits: CAPABILITY_LIMITS[name],
    });
    return {
      content: [{ type: "text", text: seen.forModel.text }],
      ...(response.status === "error" ? { isError: true } : {}),
    };
  }

  async close(): Promise<void> {
    await this.registry.close();
    await this.observer.settled();
  }

  /** The gate for one call: the client answers what the mode asks when it can, else it is refused as in print mode. */
  private gate(call: FileCall) {
    const { setup, server } = this;
    const asks = canElicit(server);
    return approvalGate({
      mode: () => (asks ? setup.approval : (setup.flags.approval ?? "auto")),
      ask: asks ? elicitingAsker(server, { ...call, cwd: setup.cwd }) : undefined,
      permissions: setup.permissions,
    }).hooks;
  }
}
