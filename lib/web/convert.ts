/**
 * A fetched body as text a model reads: HTML becomes markdown of its main content (Readability
 * picks the article, Turndown writes it; links made absolute and kept, scripts, styles and
 * navigation dropped; a page too large for a DOM goes through html-stream.ts), markdown, plain
 * text, JSON and XML pass through; a PDF or any other binary is refused with its content type (a
 * PDF with the commands that read it). The HTML libraries load on first use only, so a session
 * that never fetches never pays for them. Turndown's browser build is used: it is given DOM nodes
 * (linkedom's), never strings, so it needs no HTML parser of its own. Text is decoded with the
 * charset the server named, else the page's BOM or <meta> declaration, else UTF-8.
 */
import { ToolError } from "../envelope.ts";
import type { FetchedPage } from "./fetch-page.ts";

export interface ReadablePage {
  /** "markdown" (converted HTML or a markdown page), "text", "json". */
  format: "markdown" | "text" | "json";
  title?: string;
  text: string;
  /** The charset the bytes were decoded with. */
  charset?: string;
}

const TEXT_TYPES =
  /^(text\/|application\/(json|ld\+json|xml|xhtml\+xml|javascript|x-javascript|ecmascript|x-yaml|yaml|toml|x-sh|sql|graphql|rss\+xml|atom\+xml)$|application\/[\w.+-]+\+(json|xml)$)/;

export async function toReadable(page: FetchedPage): Promise<ReadablePage> {
  const kind = kindOf(page);
  if (kind === "pdf") {
    // PDF text extraction (pdf.js) would add megabytes to the single binary and cannot be bytecode-compiled with it.
    throw new ToolError(
      "BINARY_FILE",
      `${page.finalUrl} is a PDF (${page.mediaType || "application/pdf"}), which web fetch does not read; download it with a command (curl -o file.pdf) and extract its text (pdftotext file.pdf -).`,
    );
  }
  if (kind === "binary") {
    throw new ToolError(
      "BINARY_FILE",
      `${page.finalUrl} is ${page.mediaType || "binary data"}, not a page with text; only HTML, text, JSON and XML are read.`,
    );
  }
  const charset = detectCharset(page.body, page.charset, kind === "html");
  const text = decode(page.body, charset);
  if (kind === "html") return { format: "markdown", charset, ...(await htmlToMarkdown(text, page.finalUrl)) };
  if (kind === "json") return { format: "json", charset, text };
  return {
    format: page.mediaType === "text/markdown" || page.mediaType === "text/x-markdown" ? "markdown" : "text",
    charset,
    text,
  };
}

type BodyKind = "html" | "json" | "text" | "pdf" | "binary";

function kindOf(page: FetchedPage): BodyKind {
  const type = page.mediaType;
  if (type === "text/html" || type === "application/xhtml+xml") return "html";
  if (type === "application/pdf" || type === "application/x-pdf") return "pdf";
  if (type === "application/json" || type.endsWith("+json")) return "json";
  if (TEXT_TYPES.test(type)) return "text";
  if (type !== "" && type !== "application/octet-stream") return "binary";
  // No useful type: look at the bytes.
  const head = page.body.subarray(0, 1024);
  if (startsWith(head, "%PDF-")) return "pdf";
  if (head.includes(0)) return "binary";
  const start = new TextDecoder().decode(head).trimStart().slice(0, 100).toLowerCase();
  if (start.startsWith("<!doctype html") || start.startsWith("<html")) return "html";
  return "text";
}

function startsWith(bytes: Uint8Array, ascii: string): boolean {
  return ascii.split("").every((c, i) => bytes[i] === c.charCodeAt(0));
}

/** The charset to decode with: a BOM wins, then the server's, then (HTML) the page's <meta>, then UTF-8. */
export function detectCharset(body: Uint8Array, declared: string | undefined, html: boolean): string {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return "utf-8";
  if (body[0] === 0xff && body[1] === 0xfe) return "utf-16le";
  if (body[0] === 0xfe && body[1] === 0xff) return "utf-16be";
  if (declared && isKnownCharset(declared)) return normalize(declared);
  if (html) {
    const head = new TextDecoder("latin1").decode(body.subarray(0, 2048));
    const meta = /<meta[^>]+charset\s*=\s*["']?\s*([\w-]+)/i.exec(head)?.[1];
    if (meta && isKnownCharset(meta)) return normalize(meta);
  }
  return "utf-8";
}

function isKnownCharset(label: string): boolean {
  try {
    new TextDecoder(label);
    return true;
  } catch {
    return false;
  }
}

function normalize(label: string): string {
  return new TextDecoder(label).encoding;
}

function decode(body: Uint8Array, charset: string): string {
  return new TextDecoder(charset).decode(body);
}

/** Elements that are never content. */
const NOISE =
  "script, style, noscript, template, iframe, svg, canvas, nav, header, footer, aside, form, button, [role=navigation], [aria-hidden=true]";

/**
 * Past this many characters of HTML a DOM (and Readability's scoring) costs seconds and hundreds of
 * megabytes: such a page is converted in one streaming pass instead (html-stream.ts).
 */
export const DOM_MAX_CHARS = 1_500_000;

async function htmlToMarkdown(html: string, baseUrl: string): Promise<{ title?: string; text: string }> {
  const { title, text } =
    html.length > DOM_MAX_CHARS
      ? (await import("./html-stream.ts")).streamHtmlToMarkdown(html, baseUrl)
      : await domToMarkdown(html, baseUrl);
  return {
    ...(title ? { title } : {}),
    text: title && !text.startsWith(`# ${title}`) ? `# ${title}\n\n${text}` : text,
  };
}

/** The page's main content (Readability), or the page less its noise, as markdown (Turndown) — through a linkedom DOM. */
async function domToMarkdown(html: string, baseUrl: string): Promise<{ title?: string; text: string }> {
  const [{ parseHTML }, { Readability }, { default: TurndownService }] = await Promise.all([
    import("linkedom"),
    import("@mozilla/readability"),
    import("turndown/lib/turndown.browser.es.js"),
  ]);
  const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
  turndown.remove(["script", "style", "noscript", "template", "iframe"] as never);
  const parse = () => {
    const { document } = parseHTML(html);
    absolutize(document, baseUrl);
    for (const el of Array.from(document.querySelectorAll("script, style, noscript, template"))) el.remove();
    return document;
  };
  let document = parse();
  const title = document.querySelector("title")?.textContent?.trim() || undefined;
  let main: { title?: string | null; content?: unknown } | null = null;
  try {
    // Readability changes the document it reads; its article comes back as an element, not re-serialized HTML.
    main = new Readability(document as unknown as Document, {
      charThreshold: 200,
      serializer: (el: Node) => el,
    }).parse();
  } catch {
    main = null;
  }
  let markdown: string;
  if (main?.content) markdown = turndown.turndown(main.content as HTMLElement);
  else {
    document = parse();
    for (const el of Array.from(document.querySelectorAll(NOISE))) el.remove();
    markdown = turndown.turndown((document.body ?? document.documentElement) as unknown as HTMLElement);
  }
  const heading = main?.title?.trim() || title;
  return { ...(heading ? { title: heading } : {}), text: markdown.replace(/\n{3,}/g, "\n\n").trim() };
}

/** Links and images point where they pointed on the page. */
function absolutize(document: { querySelectorAll(selector: string): ArrayLike<Element> }, baseUrl: string): void {
  for (const [selector, attribute] of [
    ["a[href]", "href"],
    ["img[src]", "src"],
  ] as const) {
    for (const el of Array.from(document.querySelectorAll(selector))) {
      const value = el.getAttribute(attribute) ?? "";
      if (value.startsWith("#") || /^javascript:/i.test(value)) {
        if (attribute === "href") el.removeAttribute("href");
        continue;
      }
      try {
        el.setAttribute(attribute, new URL(value, baseUrl).href);
      } catch {
        // A value that is no URL stays as the page had it.
      }
    }
  }
}
