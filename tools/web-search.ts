/**
 * The web search capability: the query goes to the provider's own search (Anthropic web_search,
 * OpenAI web_search, Gemini googleSearch) through one model call of the session's web access, and
 * the tool answers with what was found and the pages it came from. Each profile names it as its
 * reference agent does (Claude Code's `WebSearch`, gemini-cli's `google_web_search`).
 */
import type { ToolResponse } from "../lib/envelope.ts";
import { oneLine } from "../lib/output/cut.ts";
import { count } from "./metadata.ts";
import type { Tool, ToolRunContext } from "./types.ts";

export interface SearchRequest {
  query: string;
  /** Only pages of these domains (and their subdomains). */
  allowedDomains?: readonly string[];
  /** Never pages of these domains. */
  blockedDomains?: readonly string[];
}

const inDomain = (url: string, domains: readonly string[]) => {
  const host = URL.canParse(url) ? new URL(url).hostname.toLowerCase() : "";
  return domains.some((d) => host === d.toLowerCase() || host.endsWith(`.${d.toLowerCase()}`));
};

/** Runs one search and answers with the findings and their sources. */
export async function searchWeb(request: SearchRequest, ctx: ToolRunContext): Promise<ToolResponse> {
  if (!ctx.web?.search)
    return ctx.reply.fail(
      "EXECUTION_ERROR",
      "Web search needs a model to run the provider's search, and this session has none. Fetch a page you know the address of instead.",
    );
  const { allowedDomains = [], blockedDomains = [] } = request;
  const limits = [
    ...(allowedDomains.length ? [`Only use pages from ${allowedDomains.join(", ")}.`] : []),
    ...(blockedDomains.length ? [`Do not use pages from ${blockedDomains.join(", ")}.`] : []),
  ];
  const found = await ctx.web.search([request.query, ...limits].join("\n"), ctx.signal);
  const sources = found.sources.filter(
    (s) => (!allowedDomains.length || inDomain(s.url, allowedDomains)) && !inDomain(s.url, blockedDomains),
  );
  const list = sources.map((s) => `- ${s.title ? `${s.title}: ` : ""}${s.url}`).join("\n");
  const text = `Web search for "${request.query}":\n${found.text}${list ? `\n\nSources:\n${list}` : ""}`;
  return ctx.reply.success({ query: request.query, sources }, text, { stats: { sources: sources.length } });
}

/** What every profile's search tool says about itself. */
export const searchToolMetadata = {
  kind: "web",
  summarizeResult: (r: ToolResponse) =>
    r.status === "error"
      ? (r.error?.message ?? "")
      : count(Array.isArray(r.data.sources) ? r.data.sources.length : 0, "source"),
} as const satisfies Partial<Tool>;

export const summarizeQuery = (a: { query?: string }) => oneLine(a.query ?? "");
