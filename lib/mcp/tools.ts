/**
 * An MCP server's tool as a gong tool: the namespaced name, the server's description and its
 * JSON Schema passed through, and a run that calls the server and maps the answer to the envelope.
 * Failures (server gone, timeout, cancel) are error envelopes the model can act on.
 */
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { ToolError, type ErrorCode } from "../envelope.ts";
import type { Tool } from "../../tools/types.ts";
import { McpCallError, type McpConnection } from "./connection.ts";
import { mcpToolName } from "./names.ts";
import { toEnvelope } from "./result.ts";

const ERROR_CODES: Record<McpCallError["kind"], ErrorCode> = {
  unavailable: "EXECUTION_ERROR",
  died: "EXECUTION_ERROR",
  timeout: "TIMEOUT",
  aborted: "EXECUTION_ERROR",
  protocol: "EXECUTION_ERROR",
  oversized: "EXECUTION_ERROR",
};

/** The gong tools of a connected server; names that collide once cleaned get a hash. */
export function toolsOf(connection: McpConnection): Tool[] {
  const taken = new Set<string>();
  return connection.tools.map((tool) => {
    let name = mcpToolName(connection.name, tool.name);
    if (taken.has(name)) name = mcpToolName(connection.name, tool.name, true);
    taken.add(name);
    return wrapTool(connection, tool, name);
  });
}

function wrapTool(connection: McpConnection, tool: McpTool, name: string): Tool {
  const server = connection.name;
  return {
    name,
    description: tool.description?.trim() || tool.title || `Tool '${tool.name}' of the MCP server '${server}'.`,
    jsonSchema: objectSchema(tool.inputSchema),
    truncation: "head",
    // What a server's tool does is the server's business: no file or shell semantics are assumed.
    kind: "other",
    // Its name, the files and addresses its arguments name (deny rules on them hold) and whether the
    // server says it changes things; nothing else about a server's tool can be known here.
    touches: (args: Record<string, unknown>) => [
      {
        as: name,
        mentions: mentionsIn(args),
        writes: tool.annotations?.readOnlyHint !== true && tool.annotations?.destructiveHint === true,
      },
    ],
    async run(args, { reply, signal, onProgress }) {
      try {
        const result = await connection.call(tool.name, args as Record<string, unknown>, { signal, onProgress });
        return toEnvelope(reply, result, server, tool.name);
      } catch (e) {
        if (e instanceof McpCallError) throw new ToolError(ERROR_CODES[e.kind], e.message);
        throw e;
      }
    },
  };
}

/** How deep into an MCP call's arguments paths and URLs are looked for. */
const MENTION_DEPTH = 4;

/**
 * The strings among an MCP call's arguments that name a file or a web address: http(s) URLs,
 * `file:` URLs (as their path), and absolute, `~/`, `./` or `../` paths.
 */
export function mentionsIn(value: unknown, depth = 0, out: string[] = []): string[] {
  if (typeof value === "string") {
    const text = value.trim();
    if (/^https?:\/\//i.test(text)) out.push(text);
    else if (/^file:\/\//i.test(text)) {
      try {
        out.push(decodeURIComponent(new URL(text).pathname));
      } catch {}
    } else if (/^(\/|~\/|\.\.?\/)/.test(text) && !text.includes("\n")) out.push(text);
  } else if (depth < MENTION_DEPTH && typeof value === "object" && value !== null)
    for (const v of Object.values(value)) mentionsIn(v, depth + 1, out);
  return out;
}

/** Providers need an object schema at the root; a server that sends none gets an empty one. */
function objectSchema(schema: McpTool["inputSchema"] | undefined): Record<string, unknown> {
  const s = (schema ?? {}) as Record<string, unknown>;
  return { ...s, type: "object", properties: s.properties ?? {} };
}
