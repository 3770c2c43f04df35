/**
 * The providers' own web search (issue 29): with config.webSearch the request carries each wire
 * API's search tool (Anthropic web_search_20250305, OpenAI Responses web_search, Gemini
 * googleSearch), and recorded real search streams, replayed verbatim over loopback HTTP, come
 * back with their queries, results and citations on the answer, in the events and in the usage.
 */
import { afterEach, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createSession, type SessionEvent } from "../../lib/agent/index.ts";
import { createClient } from "../../lib/llm/client.ts";
import type { AssistantMessage, WireApi } from "../../lib/llm/types.ts";
import { tempDir } from "../helpers/temp.ts";

const FIXTURES = join(import.meta.dir, "..", "fixtures", "web-search");

/** The recording as the API sent it: JSON-per-line recordings get their SSE framing back, a raw SSE body is sent as is. */
function sseBody(file: string, api: WireApi): string {
  const text = readFileSync(join(FIXTURES, file), "utf8");
  if (api === "gemini") return text;
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => `event: ${JSON.parse(line).type}\ndata: ${line}\n\n`)
    .join("");
}

interface Replay {
  url: string;
  bodies: any[];
  server: Server;
}

async function replay(body: string): Promise<Replay> {
  const bodies: any[] = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      bodies.push(JSON.parse(raw || "{}"));
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, server };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const CASES = [
  {
    api: "anthropic-messages" as const,
    model: "anthropic/claude-sonnet-4-5",
    file: "anthropic-web-search.chunks.txt",
    baseUrl: (u: string) => ({ anthropic: u }),
    tool: { type: "web_search_20250305", name: "web_search" },
    tools: (body: any) => body.tools,
    query: "tech news today September 26 2025",
    result: "https://www.crescendo.ai/news/latest-ai-news-and-updates",
    cited: "https://www.apple.com/newsroom/2025/09/the-all-new-apple-ginza-opens-this-friday-september-26-in-tokyo/",
    text: "Apple",
  },
  {
    api: "openai-responses" as const,
    model: "openai/gpt-5-mini",
    file: "openai-web-search.chunks.txt",
    baseUrl: (u: string) => ({ openai: `${u}/v1` }),
    tool: { type: "web_search" },
    tools: (body: any) => body.tools,
    query: "tech news today December 5 2025",
    result: "https://www.wired.com/story/the-big-interview-2025-recap",
    cited: undefined,
    text: "Petco",
  },
  {
    api: "gemini" as const,
    model: "gemini/gemini-2.5-pro",
    file: "gemini-google-search.sse",
    baseUrl: (u: string) => ({ gemini: u }),
    tool: { googleSearch: {} },
    tools: (body: any) => body.tools,
    query: "weather in San Francisco today",
    result: "https://www.google.com/search?q=weather+in+San Francisco, CA,+US",
    cited: undefined,
    text: "Hourly forecasts",
  },
];

for (const c of CASES) {
  test(`${c.api}: web search is requested with the API's own tool, and a recorded search comes back with queries, sources, citations and its cost`, async () => {
    const server = await replay(sseBody(c.file, c.api));
    cleanups.push(() => new Promise<void>((resolve) => server.server.close(() => resolve())));
    const dir = tempDir("gong-search-");
    cleanups.push(() => dir.cleanup());
    const client = createClient({
      env: {},
      apiKeys: { anthropic: "k", openai: "k", gemini: "k" },
      baseUrls: c.baseUrl(server.url),
      retry: { maxRetries: 0 },
    });
    const session = await createSession({ model: c.model, cwd: dir.dir, client, store: false, web: { search: true } });
    cleanups.push(() => session.close());
    const events: SessionEvent[] = [];
    session.subscribe((e) => events.push(e));
    await session.submit("What happened in tech today?");

    // The request carried the provider's search tool beside the function tools.
    expect(c.tools(server.bodies[0])).toContainEqual(c.tool);

    const answer = session.messages.findLast((m) => m.role === "assistant") as AssistantMessage;
    expect(JSON.stringify(answer.content)).toContain(c.text);
    const search = answer.webSearch!;
    expect(search.queries).toContain(c.query);
    expect(search.results.map((r) => r.url)).toContain(c.result);
    if (c.cited) expect(search.citations.map((r) => r.url)).toContain(c.cited);
    else expect(search.citations.length).toBeGreaterThan(0);
    expect(search.citations.every((s) => s.url.startsWith("http"))).toBe(true);

    // Carried by the events (and so by RPC and ACP), counted in usage and cost.
    const ended = events
      .filter((e) => e.kind === "message_end")
      .map((e) => (e as SessionEvent<"message_end">).data.message)
      .find((m) => m.role === "assistant") as AssistantMessage;
    expect(ended.webSearch?.queries).toContain(c.query);
    expect(answer.usage?.webSearches).toBeGreaterThanOrEqual(1);
    expect(answer.usage!.cost).toBeGreaterThanOrEqual(answer.usage!.webSearches! * 0.01);
  });
}

test("openai-responses: the next request after a search sends the answer's text back, not its reasoning items (their web_search_call items are gone)", async () => {
  const server = await replay(sseBody("openai-web-search.chunks.txt", "openai-responses"));
  cleanups.push(() => new Promise<void>((resolve) => server.server.close(() => resolve())));
  const dir = tempDir("gong-search-");
  cleanups.push(() => dir.cleanup());
  const client = createClient({
    env: {},
    apiKeys: { openai: "k" },
    baseUrls: { openai: `${server.url}/v1` },
    retry: { maxRetries: 0 },
  });
  const session = await createSession({
    model: "openai/gpt-5-mini",
    cwd: dir.dir,
    client,
    store: false,
    web: { search: true },
  });
  cleanups.push(() => session.close());
  await session.submit("What happened in tech today?");
  await session.submit("And yesterday?");
  const input = server.bodies[1].input as { type?: string; role?: string }[];
  expect(input.some((item) => item.type === "reasoning")).toBe(false);
  expect(JSON.stringify(input)).toContain("Petco");
});

test("the fake server's request log: each wire API's search tool beside the function tools, none on Chat Completions or when off", async () => {
  const { httpHarness } = await import("../agent/harness.ts");
  const cases: [string, (body: any) => unknown[], unknown][] = [
    ["anthropic/claude-sonnet-4-5", (b) => b.tools, { type: "web_search_20250305", name: "web_search" }],
    ["openai/gpt-5", (b) => b.tools, { type: "web_search" }],
    ["gemini/gemini-2.5-pro", (b) => b.tools, { googleSearch: {} }],
  ];
  for (const [model, tools, tool] of cases) {
    await using on = await httpHarness([{ text: "ok" }], { model, profile: "auto", config: { webSearch: true } });
    await on.session.submit("hi");
    expect(tools(on.fake.requests[0].body)).toContainEqual(tool);
    await using off = await httpHarness([{ text: "ok" }], { model, profile: "auto" });
    await off.session.submit("hi");
    expect(tools(off.fake.requests[0].body)).not.toContainEqual(tool);
  }
  await using chat = await httpHarness([{ text: "ok" }], {
    model: "deepseek/deepseek-chat",
    config: { webSearch: true },
  });
  await chat.session.submit("hi");
  const chatTools = chat.fake.requests[0].body.tools as { type: string }[];
  expect(chatTools.length).toBeGreaterThan(0);
  expect(chatTools.every((t) => t.type === "function")).toBe(true);
  expect(chat.fake.requests[0].body.web_search_options).toBeUndefined();
});
