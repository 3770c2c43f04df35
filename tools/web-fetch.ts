/**
 * web_fetch: reads a web page for the model (lib/web does the fetching, the safety checks and the
 * conversion to markdown). With a `prompt` and a model to ask, the model gets the answer to the
 * prompt about the page; without, it gets the page itself, which the framework cuts like any long
 * output (spilling the whole page to the call's file). A redirect to another host is reported, not
 * followed: the model fetches the new URL itself if it wants it. The profiles' fetch tools (Claude
 * Code's WebFetch, gemini-cli's web_fetch with URLs inside its prompt) share `answerFetch`.
 */
import * as v from "valibot";
import type { ToolResponse } from "../lib/envelope.ts";
import { isToolError } from "../lib/envelope.ts";
import { createWebAccess, readPage, type ReadPage, type RedirectNotice, type WebAccess } from "../lib/web/access.ts";
import { text } from "./args.ts";
import { oneLine } from "../lib/output/cut.ts";
import type { Tool, ToolRunContext, Touch } from "./types.ts";

export interface FetchRequest {
  urls: string[];
  /** What to find out from the pages; absent: the pages themselves are the answer. */
  prompt?: string;
}

/** The session's web access, or defaults (public addresses only, no model to ask, no shared cache). */
function accessOf(ctx: ToolRunContext): WebAccess {
  return ctx.web ?? createWebAccess();
}

function sizeOf(bytes: number): string {
  return bytes >= 1024 * 1024
    ? `${(bytes / 1024 / 1024).toFixed(1)} MB`
    : bytes >= 1024
      ? `${Math.round(bytes / 1024)} KB`
      : `${bytes} bytes`;
}

function describePage(page: ReadPage): string {
  const cut = page.truncated ? `; only the first ${sizeOf(page.bytes)} were read (the fetch limit)` : "";
  return `${page.finalUrl}${page.title ? ` — ${page.title}` : ""} (${page.format} from ${page.mediaType || "an untyped body"}, ${sizeOf(page.bytes)}${cut})`;
}

function redirectSentence(r: RedirectNotice): string {
  return `${r.url} redirected (HTTP ${r.status}) to another host: ${r.location}. It was not followed; fetch that URL if you want it.`;
}

/** Fetches each URL and answers: the model's answer to the prompt, or the pages through the output capture. */
export async function answerFetch(request: FetchRequest, ctx: ToolRunContext): Promise<ToolResponse> {
  const access = accessOf(ctx);
  const outcomes = await Promise.all(
    request.urls.map((url) =>
      readPage(url, access, ctx.signal).then(
        (result) => ({ url, result }) as const,
        (error: unknown) => {
          if (!isToolError(error)) throw error;
          return { url, error } as const;
        },
      ),
    ),
  );
  const pages = outcomes.flatMap((o) => ("result" in o && o.result.kind === "page" ? [o.result] : []));
  const notes = outcomes.flatMap((o) =>
    "error" in o ? [o.error.message] : o.result.kind === "redirect" ? [redirectSentence(o.result)] : [],
  );
  const data = {
    pages: pages.map((p) => ({
      url: p.url,
      final_url: p.finalUrl,
      title: p.title ?? null,
      format: p.format,
      bytes: p.bytes,
      truncated: p.truncated,
    })),
    redirects: outcomes.flatMap((o) =>
      "result" in o && o.result.kind === "redirect"
        ? [{ url: o.url, location: o.result.location, status: o.result.status }]
        : [],
    ),
  };
  const failures = outcomes.flatMap((o) => ("error" in o ? [o.error] : []));
  if (pages.length === 0) {
    // Nothing to read: one URL's own error keeps its code; a redirect is an answer, not a failure.
    if (failures.length === outcomes.length && failures.length === 1)
      return ctx.reply.fail(failures[0].code, failures[0].message, { data });
    if (failures.length === outcomes.length) return ctx.reply.fail(failures[0].code, notes.join("\n"), { data });
    return ctx.reply.success(data, notes.join("\n"));
  }
  const truncated = pages.some((p) => p.truncated);
  if (request.prompt !== undefined && access.answer) {
    try {
      const answer = await access.answer(
        { prompt: request.prompt, pages: pages.map((p) => ({ url: p.finalUrl, title: p.title, text: p.text })) },
        ctx.signal,
      );
      const head = pages
        .map((p) => `Fetched ${describePage(p)}.`)
        .concat(notes)
        .join("\n");
      return (truncated ? ctx.reply.partial : ctx.reply.success)({ ...data, answered: true }, `${head}\n\n${answer}`);
    } catch (e) {
      if (ctx.signal?.aborted) throw e;
      notes.push(
        `The request could not be answered by the fetch model (${(e as Error).message}); the page content follows instead.`,
      );
    }
  }
  // The page itself: written to the capture, so the framework's one cut decides what the model sees and the spill file keeps it all.
  const parts = [...notes, ...pages.map((p) => `Fetched ${describePage(p)}:\n\n${p.text}`)];
  parts.forEach((part, i) => {
    ctx.output.write(i === 0 ? part : `\n\n${part}`);
  });
  const output = ctx.output.finish().text;
  return (truncated ? ctx.reply.partial : ctx.reply.success)({ ...data, answered: false }, output);
}

/** gemini-cli takes at most this many URLs from one prompt. */
export const MAX_PROMPT_URLS = 20;

/** The http(s) URLs in a text, in order, without duplicates or trailing punctuation. */
export function urlsInText(prompt: string): string[] {
  const found = prompt.match(/https?:\/\/[^\s<>"'`)\]]+/g) ?? [];
  return [...new Set(found.map((u) => u.replace(/[.,;:!?]+$/, "")))].slice(0, MAX_PROMPT_URLS);
}

/**
 * The URLs a fetch call reaches: its `url`, or the URLs inside its `prompt` (gemini-cli's shape,
 * read as the tool reads them) — what a rule such as `WebFetch(domain:docs.python.org)` matches.
 */
export function fetchTargets(args: unknown): string[] {
  const a = (args ?? {}) as { url?: unknown; prompt?: unknown };
  return typeof a.url === "string" ? [a.url] : typeof a.prompt === "string" ? urlsInText(a.prompt) : [];
}

/** The metadata every fetch tool shares: kind "web", the URL as the call's line, the pages as its result, one WebFetch per URL. */
export const webToolMetadata = {
  kind: "web",
  touches(args: { url?: string; prompt?: string }): Touch[] {
    return fetchTargets(args).map((url) => ({ as: "WebFetch", target: url, input: { url, prompt: args.prompt } }));
  },
  summarizeResult(response: ToolResponse): string {
    if (response.status === "error") return response.error?.message ?? "";
    const pages = (response.data.pages ?? []) as { title: string | null; bytes: number; final_url: string }[];
    const redirects = (response.data.redirects ?? []) as unknown[];
    const shown = pages.map((p) => `${p.title ?? p.final_url} · ${sizeOf(p.bytes)}`);
    if (redirects.length > 0)
      shown.push(`${redirects.length} redirect${redirects.length > 1 ? "s" : ""} to another host`);
    return shown.join("; ");
  },
} as const satisfies Partial<Tool>;

const webFetchSchema = v.strictObject({
  url: text("The http(s) URL."),
  prompt: v.optional(text("A question about the page: its answer comes back instead of the page.")),
});

export const webFetchTool: Tool<v.InferOutput<typeof webFetchSchema>> = {
  name: "web_fetch",
  description:
    "Reads a web page (docs, issues, changelogs, JSON) as markdown. Public addresses only; a redirect to another host is reported, not followed.",
  schema: webFetchSchema,
  truncation: "head",
  ...webToolMetadata,
  summarizeCall: (a) => oneLine(a.url ?? ""),
  run: (args, ctx) => answerFetch({ urls: [args.url], prompt: args.prompt }, ctx),
};
