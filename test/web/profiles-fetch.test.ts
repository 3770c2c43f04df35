/**
 * Each profile's fetch tool with the scripted model (issue 29): the model calls its family's
 * tool (anthropic WebFetch {url, prompt}, gemini web_fetch {prompt} with the URL inside, openai and
 * default web_fetch {url, prompt?}); with a prompt a second, small model call (web.fetchModel)
 * answers it from the page and the main model gets that answer; without one the page itself goes
 * through the framework's cut, whole in the spill file.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import type { ScriptedRequest, ScriptTurn } from "../../lib/testing/fake-llm/types.ts";
import { harness } from "../agent/harness.ts";
import { startWebServer, type WebServer } from "../helpers/web-server.ts";

let server: WebServer;
beforeAll(async () => {
  server = await startWebServer();
});
afterAll(() => server.close());

const ANSWER = "publish = false makes a repository non-publishing.";

/** The request a fetch prompt makes: it carries the page between <page> tags. */
const isPageQuestion = (r: ScriptedRequest) => JSON.stringify(r.body).includes("<page url=");
const hasToolResult = (r: ScriptedRequest) => JSON.stringify(r.body).includes("Fetched http");

function script(call: { name: string; arguments: Record<string, unknown> }) {
  return (request: ScriptedRequest): ScriptTurn => {
    if (isPageQuestion(request)) return { text: ANSWER };
    if (hasToolResult(request)) return { text: "Done." };
    return { toolCalls: [call] };
  };
}

const cases = [
  {
    profile: "anthropic",
    model: "anthropic/claude-sonnet-4-5",
    call: (url: string) => ({
      name: "WebFetch",
      arguments: { url, prompt: "How is a repository made non-publishing?" },
    }),
  },
  {
    profile: "gemini",
    model: "gemini/gemini-2.5-pro",
    call: (url: string) => ({
      name: "web_fetch",
      arguments: { prompt: `How is a repository made non-publishing according to ${url}?` },
    }),
  },
  {
    profile: "openai",
    model: "openai/gpt-5",
    call: (url: string) => ({
      name: "web_fetch",
      arguments: { url, prompt: "How is a repository made non-publishing?" },
    }),
  },
  {
    profile: "default",
    model: "anthropic/claude-sonnet-4-5",
    call: (url: string) => ({
      name: "web_fetch",
      arguments: { url, prompt: "How is a repository made non-publishing?" },
    }),
  },
];

describe("each profile's fetch tool answers a prompt with the fetch model", () => {
  for (const c of cases) {
    test(`${c.profile}: ${c.call("URL").name}`, async () => {
      const url = `${server.url}/docs`;
      await using h = await harness(script(c.call(url)), {
        profile: c.profile,
        model: c.model,
        web: { allowHosts: ["127.0.0.1"], fetchModel: "anthropic/claude-haiku-4-5" },
      });
      expect(h.session.tools).toContain(c.call(url).name);
      await h.session.submit("Read the docs");
      const question = h.fake.requests.find(isPageQuestion);
      expect(question).toBeDefined();
      // The small model is the configured one and sees the page as markdown.
      expect(question?.body.model).toBe("anthropic/claude-haiku-4-5");
      expect(JSON.stringify(question?.body)).toContain("publish = false");
      const end = h.of("tool_call_end")[0];
      expect(end.data.is_error).toBe(false);
      expect(end.data.kind).toBe("web");
      expect(end.data.output.text).toContain(ANSWER);
      const last = h.fake.requests[h.fake.requests.length - 1];
      expect(JSON.stringify(last.body)).toContain(ANSWER);
    });
  }
});

test("without a prompt the page goes through the framework's cut, the whole page in the spill file", async () => {
  const url = `${server.url}/big`;
  await using h = await harness(script({ name: "web_fetch", arguments: { url } }), {
    profile: "openai",
    model: "openai/gpt-5",
    web: { allowHosts: ["127.0.0.1"] },
  });
  await h.session.submit("Read it");
  expect(h.fake.requests.some(isPageQuestion)).toBe(false);
  const end = h.of("tool_call_end")[0];
  expect(end.data.is_error).toBe(false);
  const spill = end.data.full_output_path;
  expect(typeof spill).toBe("string");
  const spilled = existsSync(spill!) ? spill! : `${h.dir}/${spill}`;
  expect(readFileSync(spilled, "utf8").length).toBeGreaterThan(5_000_000);
  const sent = JSON.stringify(h.fake.requests[h.fake.requests.length - 1].body);
  // The model got the read limit's worth (50,000 characters) and the notice, not 9 MB.
  expect(sent.length).toBeLessThan(200_000);
  expect(sent).toContain("obsolescence markers");
});
