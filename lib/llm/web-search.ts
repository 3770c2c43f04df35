/**
 * The providers' own web search, gathered the same way for every wire API: each adapter reports
 * the queries, results and cited sources it reads from its stream (server tool blocks and
 * citations, web_search_call items and url_citation annotations, grounding metadata), and the
 * turn's message carries them as one WebSearchActivity. Searches are priced per provider and added
 * to the turn's cost.
 */
import type { Usage, WebSearchActivity, WebSource, WireApi } from "./types.ts";

/**
 * USD per search (the providers' list prices: Anthropic $10 and OpenAI $10 per 1,000 searches;
 * Gemini's grounding $14 per 1,000 search queries). Chat Completions has no search tool.
 */
export const WEB_SEARCH_PRICE_USD: Partial<Record<WireApi, number>> = {
  "anthropic-messages": 0.01,
  "openai-responses": 0.01,
  gemini: 0.014,
};

export class WebSearchCollector {
  private readonly queries: string[] = [];
  private readonly results = new Map<string, WebSource>();
  private readonly citations = new Map<string, WebSource>();
  private searches = 0;

  query(query: string | undefined): void {
    if (query && !this.queries.includes(query)) this.queries.push(query);
  }

  /** One search ran (its query, when the stream names it). */
  searched(query?: string): void {
    this.searches += 1;
    this.query(query);
  }

  /** The billed count, when the provider reports it itself (Anthropic's usage); else the searches seen. */
  billed(count: number): void {
    this.searches = Math.max(this.searches, count);
  }

  result(source: Partial<WebSource> | undefined): void {
    add(this.results, source);
  }

  citation(source: Partial<WebSource> | undefined): void {
    add(this.citations, source);
  }

  activity(): WebSearchActivity | undefined {
    if (this.searches === 0 && this.queries.length === 0 && this.results.size === 0 && this.citations.size === 0)
      return undefined;
    return {
      queries: [...this.queries],
      results: [...this.results.values()],
      citations: [...this.citations.values()],
      searches: Math.max(this.searches, this.queries.length),
    };
  }

  /** The usage with the searches counted and priced. */
  priced(usage: Usage, api: WireApi): Usage {
    const count = this.activity()?.searches ?? 0;
    if (count === 0) return usage;
    return { ...usage, webSearches: count, cost: usage.cost + count * (WEB_SEARCH_PRICE_USD[api] ?? 0) };
  }
}

function add(into: Map<string, WebSource>, source: Partial<WebSource> | undefined): void {
  if (!source?.url) return;
  const known = into.get(source.url);
  if (known?.title) return;
  into.set(source.url, {
    url: source.url,
    ...(source.title ? { title: source.title } : known?.title ? { title: known.title } : {}),
  });
}
