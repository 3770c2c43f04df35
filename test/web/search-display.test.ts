/**
 * Provider web search as the user sees it (issue 29): the shell prints the queries and the cited
 * pages (titles and URLs) after the answer, ACP editors get them as links in the agent's message
 * (live and when a session is replayed), `--web-search` and the settings' `web` block switch it on.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { streamUpdate, webSourcesUpdate } from "../../lib/cli/acp/updates.ts";
import { parseCliArgs } from "../../lib/cli/args.ts";
import { webSearchLines } from "../../lib/cli/event-renderer.ts";
import { makeStyle } from "../../lib/cli/render.ts";
import { readSettingsFile } from "../../lib/core/settings.ts";
import type { SessionEvent } from "../../lib/agent/index.ts";
import type { AssistantMessage, WebSearchActivity } from "../../lib/llm/types.ts";
import { tempDir } from "../helpers/temp.ts";

const search: WebSearchActivity = {
  queries: ["bun 1.4 release notes"],
  results: [
    { url: "https://bun.sh/blog/bun-v1.4", title: "Bun v1.4" },
    { url: "https://github.com/oven-sh/bun/releases" },
  ],
  citations: [{ url: "https://bun.sh/blog/bun-v1.4", title: "Bun v1.4" }],
  searches: 1,
};

test("the shell shows the queries and the cited pages with titles and URLs", () => {
  const text = webSearchLines(search, makeStyle(false), 100);
  expect(text).toContain("Web search: bun 1.4 release notes");
  expect(text).toContain("Bun v1.4 — https://bun.sh/blog/bun-v1.4");
  // Cited pages are shown; the uncited result is not.
  expect(text).not.toContain("releases");
  // Without citations the pages found are shown.
  expect(webSearchLines({ ...search, citations: [] }, makeStyle(false), 100)).toContain(
    "https://github.com/oven-sh/bun/releases",
  );
});

test("ACP: the answer's message_end adds its sources as markdown links to the agent's message", () => {
  const message: AssistantMessage = {
    role: "assistant",
    content: [{ type: "text", text: "Bun 1.4 is out." }],
    webSearch: search,
  };
  const event = { kind: "message_end", data: { message } } as unknown as SessionEvent;
  const update = streamUpdate(event) as { sessionUpdate: string; content: { text: string } };
  expect(update.sessionUpdate).toBe("agent_message_chunk");
  expect(update.content.text).toContain("[Bun v1.4](https://bun.sh/blog/bun-v1.4)");
  expect(update.content.text).toContain("bun 1.4 release notes");
  expect(webSourcesUpdate(search)).toEqual(update as never);
  // An answer without search adds nothing.
  expect(
    streamUpdate({
      kind: "message_end",
      data: { message: { ...message, webSearch: undefined } },
    } as unknown as SessionEvent),
  ).toBeUndefined();
});

test("--web-search and the settings' web block", () => {
  expect(parseCliArgs(["--web-search", "-p", "hi"]).webSearch).toBe(true);
  expect(parseCliArgs(["-p", "hi"]).webSearch).toBeUndefined();
  using dir = tempDir();
  const file = dir.path("settings.json");
  writeFileSync(
    file,
    JSON.stringify({
      web: { allowHosts: ["127.0.0.1", "intranet.example"], fetchModel: "anthropic/claude-haiku-4-5", search: true },
    }),
  );
  expect(readSettingsFile(file).web).toEqual({
    allowHosts: ["127.0.0.1", "intranet.example"],
    fetchModel: "anthropic/claude-haiku-4-5",
    search: true,
  });
  writeFileSync(file, JSON.stringify({ web: { fetchModel: "haiku" } }));
  expect(() => readSettingsFile(file)).toThrow(/web\.fetchModel/);
  writeFileSync(file, JSON.stringify({ web: { search: "yes" } }));
  expect(() => readSettingsFile(file)).toThrow(/web\.search/);
});
