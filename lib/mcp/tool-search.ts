/**
 * MCP tool search, as Claude Code does it: when the definitions of the MCP servers' tools would
 * take more than a share of the model's context window, they are deferred — the request carries a
 * search tool whose description lists each deferred tool by name with one line, and a call to it
 * loads the schemas of the tools it finds, which the next request then carries. `select:a,b` loads
 * tools by name; any other query ranks the tools by the words of their names and descriptions.
 */
import * as v from "valibot";
import type { Tool } from "../../tools/types.ts";
import { firstLine } from "../output/cut.ts";

/** Rough tokens of a tool definition as a request carries it: its JSON at four characters a token. */
export function definitionTokens(tool: Tool): number {
  return Math.ceil(
    JSON.stringify({ name: tool.name, description: tool.description, input_schema: tool.jsonSchema ?? {} }).length / 4,
  );
}

/** Whether `tools`' definitions pass `percent` % of a `contextWindow`-token window (0: always). */
export function shouldDefer(tools: readonly Tool[], contextWindow: number, percent: number): boolean {
  if (tools.length === 0) return false;
  if (percent <= 0) return true;
  const tokens = tools.reduce((sum, t) => sum + definitionTokens(t), 0);
  return tokens > (contextWindow * percent) / 100;
}

const DEFAULT_RESULTS = 5;

/**
 * The search tool over the deferred tools, named as the profile names it (`ToolSearch`,
 * `tool_search`). `load` makes the found tools part of the following requests (the session
 * re-activates its tools).
 */
export function toolSearchTool(
  name: string,
  deferred: readonly Tool[],
  load: (names: string[]) => void,
): Tool<{ query: string; max_results?: number }> {
  const lines = deferred.map((t) => `- ${t.name}: ${firstLine(t.description, 120)}`);
  return {
    name,
    description: [
      "Load deferred tools so you can call them. The tools below are available but their parameters are not loaded yet: call this first with",
      '"select:<name>[,<name>…]" for tools you know by name, or with keywords to find matching tools. The tools it returns can be called from then on.',
      "",
      "Deferred tools:",
      ...lines,
    ].join("\n"),
    schema: v.object({
      query: v.pipe(
        v.string(),
        v.minLength(1),
        v.description('"select:name1,name2" to load tools by name, or keywords to search names and descriptions.'),
      ),
      max_results: v.optional(
        v.pipe(
          v.number(),
          v.integer(),
          v.minValue(1),
          v.description(`How many tools to return for a keyword search (default ${DEFAULT_RESULTS}).`),
        ),
      ),
    }),
    truncation: "head",
    kind: "search",
    summarizeCall: (a) => a.query ?? "",
    // It reads the descriptions of tools already connected: nothing beyond itself.
    touches: () => [],
    run: async (args, ctx) => {
      const found = findTools(deferred, args.query, args.max_results ?? DEFAULT_RESULTS);
      if (found.length === 0) {
        return ctx.reply.success(
          { tools: [] },
          `No deferred tool matches '${args.query}'. The deferred tools are listed in this tool's description.`,
        );
      }
      load(found.map((t) => t.name));
      const text = found
        .map(
          (t) =>
            `<function>${JSON.stringify({ name: t.name, description: t.description, parameters: t.jsonSchema ?? {} })}</function>`,
        )
        .join("\n");
      return ctx.reply.success(
        { tools: found.map((t) => t.name) },
        `Loaded ${found.length} tool${found.length > 1 ? "s" : ""}; call ${found.length > 1 ? "them" : "it"} directly now:\n${text}`,
      );
    },
  };
}

/** `select:` names in the order given, or the tools whose names and descriptions share the most words with the query. */
export function findTools(tools: readonly Tool[], query: string, max: number): Tool[] {
  const q = query.trim();
  if (q.startsWith("select:")) {
    const names = q
      .slice(7)
      .split(",")
      .map((n) => n.trim())
      .filter(Boolean);
    return names.flatMap((n) => tools.filter((t) => t.name === n));
  }
  const words = q
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);
  const scored = tools
    .map((tool) => {
      const name = tool.name.toLowerCase();
      const text = `${name} ${tool.description.toLowerCase()}`;
      const score = words.reduce((sum, w) => sum + (name.includes(w) ? 3 : 0) + (text.includes(w) ? 1 : 0), 0);
      return { tool, score };
    })
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.tool.name.localeCompare(b.tool.name));
  return scored.slice(0, max).map((s) => s.tool);
}
