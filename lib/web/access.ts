/**
 * What the web tools are given by the session (never a global): the hosts the user opened, the
 * fetch limits, the page cache, and — when a model is at hand — the small model call that answers
 * a prompt about a page (Claude Code's way: the main model gets the answer, not the page). Tools
 * without one (a registry used on its own) fetch with the defaults and return the page itself.
 * Only this file and the cache load with the tools; the fetcher and the converter on first use.
 */
import type { LlmClient, WebSource } from "../llm/types.ts";
import { PageCache } from "./cache.ts";
import type { ReadablePage } from "./convert.ts";
import type { FetchLimits } from "./fetch-page.ts";

/** The `web` block of the settings. */
export interface WebSettings {
  /** Hosts or addresses a fetch may reach although they are loopback, private or link-local. */
  allowHosts?: string[];
  /** "provider/model-id" that answers a fetch tool's prompt about a page; default the session's model. */
  fetchModel?: string;
  /** Turns on the provider's own web search (Anthropic web_search, OpenAI web_search, Gemini googleSearch). */
  search?: boolean;
}

export interface PageQuestion {
  prompt: string;
  pages: { url: string; title?: string; text: string }[];
}

export interface WebAccess {
  allowHosts: readonly string[];
  limits?: Partial<FetchLimits>;
  cache: PageCache<ReadPage>;
  /** Answers a prompt about pages with a small model call; absent: the page itself goes to the model. */
  answer?(question: PageQuestion, signal?: AbortSignal): Promise<string>;
  /** Searches the web with the provider's own search (a model call that may search); absent without a model. */
  search?(query: string, signal?: AbortSignal): Promise<SearchAnswer>;
}

/** What a search found: the model's summary of the results and the pages it drew on. */
export interface SearchAnswer {
  text: string;
  sources: WebSource[];
}

export interface ReadPage extends ReadablePage {
  kind: "page";
  url: string;
  finalUrl: string;
  status: number;
  mediaType: string;
  /** Bytes read (decoded), at most the limit. */
  bytes: number;
  truncated: boolean;
}

export interface RedirectNotice {
  kind: "redirect";
  url: string;
  status: number;
  location: string;
}

/** Reads one URL through the cache: a readable page, or a redirect to another host to report. */
export async function readPage(
  url: string,
  access: WebAccess,
  signal?: AbortSignal,
): Promise<ReadPage | RedirectNotice> {
  const key = url.trim();
  const cached = access.cache.get(key);
  if (cached) return cached;
  // The fetcher (node:http, node:zlib, DNS) and the converter load on the first fetch, not at start-up.
  const [{ fetchPage }, { toReadable }] = await Promise.all([import("./fetch-page.ts"), import("./convert.ts")]);
  const fetched = await fetchPage(key, { ...access.limits, allowHosts: access.allowHosts, signal });
  if (fetched.kind === "redirect") return fetched;
  const readable = await toReadable(fetched);
  const page: ReadPage = {
    ...readable,
    kind: "page",
    url: fetched.url,
    finalUrl: fetched.finalUrl,
    status: fetched.status,
    mediaType: fetched.mediaType,
    bytes: fetched.body.length,
    truncated: fetched.truncated,
  };
  access.cache.set(key, page);
  return page;
}

/** Page text a small model is given at most (the rest is cut, as Claude Code's fetch does). */
export const ANSWER_PAGE_CHARS = 100_000;

const SEARCH_SYSTEM = `You search the web for a coding agent and report what you found.
Search for the query, then answer it briefly from the results: the facts, versions, commands and API names exactly as the pages give them.
Name the page each fact comes from; say plainly when the results do not answer the query.`;

const ANSWER_SYSTEM = `You read web content fetched for a coding agent and answer its request about that content.
Answer only from the content given; say plainly when it does not contain the answer.
Be concise and precise: keep code, commands, version numbers, API names and URLs exactly as written; quote short passages when wording matters.`;

export interface WebAccessOptions {
  settings?: WebSettings;
  /** With a client and a model, prompts about pages are answered by a model call. */
  client?: LlmClient;
  /** The session's model, used when settings.fetchModel names none. */
  model?: string;
  limits?: Partial<FetchLimits>;
}

export function createWebAccess(options: WebAccessOptions = {}): WebAccess {
  const { settings = {}, client } = options;
  const model = settings.fetchModel ?? options.model;
  return {
    allowHosts: [...(settings.allowHosts ?? [])],
    limits: options.limits,
    cache: new PageCache(),
    ...(client && model
      ? {
          async answer(question: PageQuestion, signal?: AbortSignal) {
            const budget = Math.floor(ANSWER_PAGE_CHARS / Math.max(1, question.pages.length));
            const content = question.pages
              .map(
                (p) =>
                  `<page url="${p.url}"${p.title ? ` title="${p.title.replace(/"/g, "'")}"` : ""}>\n${p.text.length > budget ? `${p.text.slice(0, budget)}\n[… cut at ${budget} characters]` : p.text}\n</page>`,
              )
              .join("\n\n");
            const response = await client.complete(
              {
                model,
                system: ANSWER_SYSTEM,
                messages: [{ role: "user", content: `${content}\n\nRequest: ${question.prompt}` }],
                maxTokens: 4096,
              },
              { signal },
            );
            return response.text.trim();
          },
          async search(query: string, signal?: AbortSignal) {
            // The provider's own search (Anthropic web_search, OpenAI web_search, Gemini googleSearch) runs inside this call.
            const response = await client.complete(
              {
                model,
                system: SEARCH_SYSTEM,
                messages: [{ role: "user", content: query }],
                maxTokens: 4096,
                webSearch: true,
              },
              { signal },
            );
            const found = response.message.webSearch;
            const sources = [...(found?.citations ?? []), ...(found?.results ?? [])];
            const unique = sources.filter((s, i) => sources.findIndex((o) => o.url === s.url) === i);
            return { text: response.text.trim(), sources: unique };
          },
        }
      : {}),
  };
}
