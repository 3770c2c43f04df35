/**
 * Claude Code's fetch tool, `WebFetch { url, prompt }`: the page is fetched and the prompt answered
 * about it, by the one fetcher every profile's fetch tool runs (`answerFetch`).
 */
import * as v from "valibot";
import { text } from "../../../tools/args.ts";
import { oneLine } from "../../output/cut.ts";
import type { Tool } from "../../../tools/types.ts";
import { answerFetch, webToolMetadata } from "../../../tools/web-fetch.ts";

const schema = v.strictObject({
  url: v.pipe(v.string(), v.url(), v.description("The URL to fetch content from.")),
  prompt: text("What to find out from the fetched content."),
});

export const WebFetchTool: Tool<v.InferOutput<typeof schema>> = {
  name: "WebFetch",
  description:
    "Fetches a URL, converts the page to markdown and answers the prompt about it with a small, fast model; returns that answer. " +
    "Use it for documentation, issue threads and changelogs. Only public http(s) addresses are fetched. Pages are remembered for 15 minutes. " +
    "When the URL redirects to another host, the new URL is returned: fetch it with a new call.",
  schema,
  truncation: "head",
  ...webToolMetadata,
  summarizeCall: (a) => oneLine(a.url ?? ""),
  run: (args, ctx) => answerFetch({ urls: [args.url], prompt: args.prompt }, ctx),
};
