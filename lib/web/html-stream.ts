/**
 * HTML to markdown in one streaming pass (htmlparser2's SAX parser), for pages too large for a DOM:
 * a 10 MB page as a linkedom DOM and Turndown costs hundreds of megabytes and seconds, this costs
 * about the size of its output. Simpler than the DOM path — no main-content detection — it keeps
 * headings, paragraphs, lists, links (made absolute), code and emphasis, and drops scripts, styles,
 * navigation, headers, footers, forms and everything hidden from readers.
 */
import { Parser } from "htmlparser2";

/** Elements whose whole subtree is never content. */
const SKIP = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "iframe",
  "svg",
  "canvas",
  "nav",
  "header",
  "footer",
  "aside",
  "form",
  "button",
  "select",
  "head",
  "object",
  "embed",
]);
/** Elements that start and end a block of text. */
const BLOCK = new Set([
  "p",
  "div",
  "section",
  "article",
  "main",
  "table",
  "tr",
  "ul",
  "ol",
  "dl",
  "dt",
  "dd",
  "blockquote",
  "figure",
  "figcaption",
  "details",
  "summary",
  "body",
  "hr",
]);

export function streamHtmlToMarkdown(html: string, baseUrl: string): { title?: string; text: string } {
  const out: string[] = [];
  /** True when the output so far ends a line: the next words start without a space. */
  let lineStart = true;
  const emit = (piece: string) => {
    if (piece === "") return;
    out.push(piece);
    // After a line break, a list dash, a heading's hashes or a link's bracket, words start without a space.
    lineStart = /\n\s*$|^- $|^\n- $|#+ $|^\[$/.test(piece) || (lineStart && /^\s*$/.test(piece));
  };
  let skipDepth = 0;
  let preDepth = 0;
  let inTitle = false;
  let title = "";
  const links: (string | null)[] = [];
  const absolute = (href: string | undefined): string | null => {
    if (!href || href.startsWith("#") || /^javascript:/i.test(href)) return null;
    try {
      const url = new URL(href, baseUrl);
      return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
    } catch {
      return null;
    }
  };
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === "title") inTitle = true;
        if (
          skipDepth > 0 ||
          SKIP.has(name) ||
          attributes["aria-hidden"] === "true" ||
          attributes.hidden !== undefined
        ) {
          skipDepth++;
          return;
        }
        if (/^h[1-6]$/.test(name)) emit(`\n\n${"#".repeat(Number(name[1]))} `);
        else if (name === "li") emit("\n- ");
        else if (name === "br") emit("\n");
        else if (name === "pre") {
          preDepth++;
          emit("\n\n```\n");
        } else if (name === "code" && preDepth === 0) emit("`");
        else if (name === "strong" || name === "b") emit("**");
        else if (name === "em" || name === "i") emit("_");
        else if (name === "a") {
          const href = absolute(attributes.href);
          links.push(href);
          if (href) emit("[");
        } else if (name === "img" && attributes.alt) emit(`![${attributes.alt}]`);
        else if (BLOCK.has(name)) emit("\n\n");
      },
      ontext(text) {
        if (inTitle) title += text;
        if (skipDepth > 0) return;
        if (preDepth > 0) emit(text);
        else {
          const words = text.replace(/\s+/g, " ");
          emit(lineStart ? words.trimStart() : words);
        }
      },
      onclosetag(name) {
        if (name === "title") inTitle = false;
        if (skipDepth > 0) {
          skipDepth--;
          return;
        }
        if (/^h[1-6]$/.test(name)) emit("\n\n");
        else if (name === "pre") {
          preDepth = Math.max(0, preDepth - 1);
          emit("\n```\n\n");
        } else if (name === "code" && preDepth === 0) emit("`");
        else if (name === "strong" || name === "b") emit("**");
        else if (name === "em" || name === "i") emit("_");
        else if (name === "a") {
          const href = links.pop();
          if (href) emit(`](${href})`);
        } else if (BLOCK.has(name)) emit("\n\n");
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.end(html);
  const text = out
    .join("")
    .replace(/ +\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  const heading = title.trim().replace(/\s+/g, " ");
  return { ...(heading ? { title: heading } : {}), text };
}
