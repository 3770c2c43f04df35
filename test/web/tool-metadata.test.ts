/**
 * What the fetch tools say about themselves (issue 29): kind "web" (ACP's "fetch"), the URL as the
 * call's line, approval asked like a command's, and gemini's URLs taken from its prompt.
 */
import { expect, test } from "bun:test";
import { acpKind } from "../../lib/cli/acp/updates.ts";
import { declareCall } from "../../lib/gate/declare.ts";
import { needsApproval } from "../../lib/gate/modes.ts";
import { WebFetchTool } from "../../lib/profiles/anthropic/web-fetch.ts";
import { geminiWebFetchTool } from "../../lib/profiles/gemini/web-fetch.ts";
import { urlsInText } from "../../tools/web-fetch.ts";
import { describeCall } from "../../tools/metadata.ts";
import { webFetchTool } from "../../tools/web-fetch.ts";
import type { Tool } from "../../tools/types.ts";

test("every fetch tool is of kind web, shown with its URL", () => {
  expect(describeCall(webFetchTool, { url: "https://bun.sh/docs" })).toEqual({
    kind: "web",
    call_summary: "https://bun.sh/docs",
  });
  expect(describeCall(WebFetchTool, { url: "https://bun.sh/docs", prompt: "x" }).call_summary).toBe(
    "https://bun.sh/docs",
  );
  expect(
    describeCall(geminiWebFetchTool, { prompt: "Compare https://a.example/x and https://b.example/y." }).call_summary,
  ).toBe("https://a.example/x https://b.example/y");
  expect(acpKind("web")).toBe("fetch");
});

test("a web fetch waits for consent like a command: in ask and edits modes, not in auto", () => {
  expect(needsApproval("ask", "web")).toBe(true);
  expect(needsApproval("edits", "web")).toBe(true);
  expect(needsApproval("auto", "web")).toBe(false);
});

test("gemini's web_fetch takes up to 20 distinct URLs from its prompt, without trailing punctuation", () => {
  expect(urlsInText("See https://a.example/x, then (https://b.example/y). Again https://a.example/x")).toEqual([
    "https://a.example/x",
    "https://b.example/y",
  ]);
  const many = Array.from({ length: 25 }, (_, i) => `https://h${i}.example/`).join(" ");
  expect(urlsInText(many)).toHaveLength(20);
});

test("the web tools load lazily: a session's modules pull in no fetcher, converter or HTML library until a fetch", () => {
  const code = `await import(${JSON.stringify(`${import.meta.dir}/../../lib/agent/index.ts`)}); console.log(JSON.stringify(Object.keys(require.cache)));`;
  const out = Bun.spawnSync([process.execPath, "-e", code], { stdout: "pipe", stderr: "pipe" });
  expect(out.exitCode).toBe(0);
  const loaded = JSON.parse(out.stdout.toString()) as string[];
  expect(loaded.some((m) => m.endsWith("lib/web/access.ts"))).toBe(true);
  expect(
    loaded.filter((m) => /lib\/web\/(fetch-page|convert|html-stream)\.ts$|linkedom|turndown|readability/.test(m)),
  ).toEqual([]);
});

test("the hosts a fetch call reaches, as each tool declares them, for permission rules by domain", async () => {
  const hosts = async (tool: Tool, args: Record<string, unknown>) =>
    (await declareCall(tool.name, args, tool, { cwd: "/" })).touches.map((t) => t.host);
  expect(await hosts(webFetchTool, { url: "https://Docs.Python.org./3/library/" })).toEqual(["docs.python.org"]);
  expect(await hosts(WebFetchTool, { url: "https://a.example/x", prompt: "and https://b.example/y?" })).toEqual([
    "a.example",
  ]);
  expect(
    await hosts(geminiWebFetchTool, {
      prompt: "Compare https://a.example/x and https://b.example/y and https://a.example/z",
    }),
  ).toEqual(["a.example", "b.example", "a.example"]);
  expect(await hosts(webFetchTool, { url: "not a url" })).toEqual([undefined]);
});
