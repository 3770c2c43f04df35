/**
 * The fetch tool in the reference agents' shapes: Claude Code's `WebFetch { url, prompt }` (the
 * prompt is answered about the page) and gemini-cli's `web_fetch { prompt }`, whose prompt holds
 * up to 20 http(s) URLs and the request about them. Both run `answerFetch`.
 */
import * as v from "valibot";
import { text } from "../args.ts";
import { oneLine } from "../../lib/output/cut.ts";
import type { Tool } from "../types.ts";
import { answerFetch, MAX_PROMPT_URLS, urlsInText, webToolMetadata } from "../web-fetch.ts";

export { MAX_PROMPT_URLS, urlsInText };

const claudeSchema = v.strictObject({
  url: v.pipe(v.string(), v.url(), v.description("The URL to fetch content from.")),
  prompt: text("What to find out from the fetched content."),
});

export const WebFetchTool: Tool<v.InferOutput<typeof claudeSchema>> = {
  name: "WebFetch",
  description:
    "Fetches a URL, converts the page to markdown and answers the prompt about it with a small, fast model; returns that answer. " +
    "Use it for documentation, issue threads and changelogs. Only public http(s) addresses are fetched. Pages are remembered for 15 minutes. " +
    "When the URL redirects to another host, the new URL is returned: fetch it with a new call.",
  schema: claudeSchema,
  truncation: "head",
  ...webToolMetadata,
  summarizeCall: (a) => oneLine(a.url ?? ""),
  run: (args, ctx) => answerFetch({ urls: [args.url], prompt: args.prompt }, ctx),
};

const geminiSchema = v.strictObject({
  prompt: text(
    `A request naming the URLs to read (up to ${MAX_PROMPT_URLS}, each starting with http:// or https://) and what to do with their content, e.g. "Summarize the breaking changes in https://example.com/changelog".`,
  ),
});

export const geminiWebFetchTool: Tool<v.InferOutput<typeof geminiSchema>> = {
  name: "web_fetch",
  description:
    "Reads the web pages whose URLs appear in the prompt and carries out the prompt's request about them (summarize, compare, extract). " +
    "Only public http(s) addresses are fetched.",
  schema: geminiSchema,
  truncation: "head",
  ...webToolMetadata,
  summarizeCall: (a) => oneLine(urlsInText(a.prompt ?? "").join(" ") || (a.prompt ?? "")),
  run(args, ctx) {
    const urls = urlsInText(args.prompt);
    if (urls.length === 0)
      return Promise.resolve(
        ctx.reply.fail("INVALID_PARAM", "The prompt must contain at least one URL starting with http:// or https://."),
      );
    return answerFetch({ urls, prompt: args.prompt }, ctx);
  },
};
