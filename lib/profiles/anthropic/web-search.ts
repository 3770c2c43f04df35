/**
 * Claude Code's search tool, `WebSearch {query, allowed_domains?, blocked_domains?}` (the tool
 * definition every release from 0.2.126 to 2.1.110 sends), over the one web search (tools/web-search.ts).
 */
import * as v from "valibot";
import type { Tool } from "../../../tools/types.ts";
import { searchToolMetadata, searchWeb, summarizeQuery } from "../../../tools/web-search.ts";

const domains = (description: string) => v.optional(v.pipe(v.array(v.string()), v.description(description)));

const schema = v.strictObject({
  query: v.pipe(
    v.string(),
    v.minLength(2, "needs at least 2 characters"),
    v.description("What to search the web for."),
  ),
  allowed_domains: domains("Only results from these domains."),
  blocked_domains: domains("Never results from these domains."),
});

export const WebSearchTool: Tool<v.InferOutput<typeof schema>> = {
  name: "WebSearch",
  description:
    "Searches the web and returns what it found, with the pages it came from. Use it for facts newer than your knowledge: releases, current APIs, error messages. Cite the sources in your answer.",
  schema,
  truncation: "head",
  ...searchToolMetadata,
  summarizeCall: summarizeQuery,
  // A search names no page: a WebSearch rule (no parentheses) speaks to it, a WebFetch domain rule cannot.
  touches: (a) => [{ as: "WebSearch", target: a.query, input: { query: a.query } }],
  run: (args, ctx) =>
    searchWeb({ query: args.query, allowedDomains: args.allowed_domains, blockedDomains: args.blocked_domains }, ctx),
};
