/**
 * A stdio MCP server with N tools (argv[2], default 100), each with a paragraph of description and
 * five documented parameters — the size of the tools real servers (issue trackers, wikis) offer.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const count = Number(process.argv[2] ?? 100);
const areas = [
  "issues",
  "pull requests",
  "pages",
  "tickets",
  "deployments",
  "alerts",
  "documents",
  "users",
  "projects",
  "builds",
];
const tools = Array.from({ length: count }, (_, i) => {
  const area = areas[i % areas.length];
  return {
    name: `operation_${i}`,
    description:
      `Operation ${i} on ${area}: looks up the ${area} that match the filters, applies the change the arguments describe, and returns the ${area} as they are afterwards. ` +
      `Use it when the user asks to find, update or summarise ${area}; results are paged, so pass the cursor of the previous page to go on. Fails when the caller has no access to the project.`,
    inputSchema: {
      type: "object" as const,
      properties: {
        project: { type: "string", description: `The project whose ${area} to work on, as owner/name.` },
        query: { type: "string", description: "Words to match in titles and bodies; empty matches everything." },
        state: {
          type: "string",
          enum: ["open", "closed", "all"],
          description: "Which states to include (default open).",
        },
        limit: { type: "integer", description: "Items per page, 1 to 100 (default 30)." },
        cursor: { type: "string", description: "The cursor of the previous page, to get the next one." },
      },
      required: ["project"],
    },
  };
});
const server = new Server({ name: "many", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => ({
  content: [{ type: "text", text: JSON.stringify(request.params.arguments ?? {}) }],
}));
await server.connect(new StdioServerTransport());
