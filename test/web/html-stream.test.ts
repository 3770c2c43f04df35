/**
 * The streaming HTML→markdown pass for pages too large for a DOM (issue 29, the 10 MB page):
 * headings, lists, code, emphasis and absolute links kept; scripts, styles, navigation, hidden
 * parts dropped; entities decoded.
 */
import { expect, test } from "bun:test";
import { streamHtmlToMarkdown } from "../../lib/web/html-stream.ts";

test("a large page's structure survives the streaming pass; its noise does not", () => {
  const html = `<!doctype html><html><head><title>Release &amp; notes</title><style>p{}</style><script>alert(1)</script></head>
  <body><nav><a href="/home">Home</a></nav><header>Site header</header>
  <main><h1>
      Version 2.0</h1><p>Read the <a href="guide/start.html"> guide</a> &mdash; <strong>now</strong> with <em>more</em>.</p>
  <ul><li>One</li><li>Two <code>x()</code></li></ul>
  <pre>const a = 1;
  const b = 2;</pre>
  <div aria-hidden="true">invisible</div><p hidden>also hidden</p>
  <a href="javascript:void(0)">js link</a></main><footer>Footer text</footer></body></html>`;
  const { title, text } = streamHtmlToMarkdown(html, "https://example.org/docs/index.html");
  expect(title).toBe("Release & notes");
  expect(text).toContain("# Version 2.0");
  expect(text).toContain("Read the [guide](https://example.org/docs/guide/start.html) — **now** with _more_.");
  expect(text).toContain("- One");
  expect(text).toContain("- Two `x()`");
  expect(text).toContain("```\nconst a = 1;\n  const b = 2;\n```");
  expect(text).toContain("js link");
  for (const gone of [
    "alert(1)",
    "p{}",
    "Home",
    "Site header",
    "Footer text",
    "invisible",
    "also hidden",
    "javascript:",
  ])
    expect(text).not.toContain(gone);
});
