/**
 * gemini-cli's fetch tool, `web_fetch { prompt }`: the prompt holds up to 20 http(s) URLs and the
 * request about them. It runs the one fetcher every profile's fetch tool runs (`answerFetch`).
 */
import * as v from "valibot";
import { text } from "../../../tools/args.ts";
import { oneLine } from "../../output/cut.ts";
import type { Tool } from "../../../tools/types.ts";
import { answerFetch, MAX_PROMPT_URLS, urlsInText, webToolMetadata } from "../../../tools/web-fetch.ts";

const schema = v.strictObject({
  prompt: text(
    `A request naming the URLs to read (up to ${MAX_PROMPT_URLS}, each starting with http:// or https://) and what to do with their content, e.g. "Summarize the breaking changes in https://example.com/changelog".`,
  ),
});

export const geminiWebFetchTool: Tool<v.InferOutput<typeof schema>> = {
  name: "web_fetch",
  description:
    "Reads the web pages whose URLs appear in the prompt and carries out the prompt's request about them (summarize, compare, extract). " +
    "Only public http(s) addresses are fetched.",
  schema: schema,
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
