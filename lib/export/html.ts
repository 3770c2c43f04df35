/**
 * A self-contained HTML page of a session: one file, its style inline, no script, nothing fetched
 * (its Content-Security-Policy forbids every load), so it opens offline and can be mailed or
 * attached. Each turn is a section; tool calls fold open to show arguments and output.
 */
import { ExportError, type ExportSource } from "./source.ts";
import { callLine, clipped, NOTE_TITLES, transcriptOf, usageLine, type TranscriptItem } from "./transcript.ts";

const STYLE = `
:root { color-scheme: light dark; --fg: #1d1d1f; --bg: #fff; --muted: #6e6e73; --line: #d2d2d7; --user: #eef4ff; --agent: #f6f6f6; --note: #fff8e6; --error: #b00020; }
@media (prefers-color-scheme: dark) { :root { --fg: #e8e8ed; --bg: #161617; --muted: #a1a1a6; --line: #3a3a3c; --user: #1c2738; --agent: #222224; --note: #2e2818; --error: #ff6b6b; } }
body { margin: 0 auto; max-width: 60rem; padding: 1.5rem; font: 15px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
h1 { font-size: 1.3rem; margin: 0 0 .5rem; } h2 { font-size: 1rem; margin: 0 0 .5rem; }
.about { color: var(--muted); margin: 0 0 1.5rem; } .about code { font-size: .9em; }
.turn { border: 1px solid var(--line); border-radius: 8px; padding: .75rem 1rem; margin: 0 0 1rem; }
.user { background: var(--user); } .agent { background: var(--agent); } .system { background: var(--note); }
.meta, time { color: var(--muted); font-weight: normal; font-size: .85rem; margin-left: .5rem; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: .5rem; margin: .5rem 0; font: 13px/1.4 ui-monospace, monospace; }
details { margin: .5rem 0; } summary { cursor: pointer; font: 13px ui-monospace, monospace; }
.error > summary, .failed { color: var(--error); }
.omitted { color: var(--muted); font-style: italic; }
`;

export function* htmlChunks(source: ExportSource): Generator<string> {
  const { header, name } = source;
  const title = `${name ? `${name} — ` : ""}gong session ${header.id}`;
  yield `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="gong">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p class="about">started ${escapeHtml(header.timestamp)} in <code>${escapeHtml(header.cwd)}</code>${source.path ? `<br>file <code>${escapeHtml(source.path)}</code>` : ""}</p>
<main>
`;
  let turns = 0;
  for (const item of transcriptOf(source.branch())) {
    turns++;
    yield htmlItem(item, turns);
  }
  if (turns === 0) throw new ExportError(`Session ${header.id} has no conversation to export.`);
  yield `</main>\n<p class="about">${turns} turn(s).</p>\n</body>\n</html>\n`;
}

function htmlItem(item: TranscriptItem, n: number): string {
  const when = item.timestamp
    ? `<time datetime="${escapeHtml(item.timestamp)}">${escapeHtml(item.timestamp)}</time>`
    : "";
  const open = (title: string, meta = "") =>
    `<section class="turn ${item.kind}" id="turn-${n}" data-turn="${n}" data-kind="${item.kind}">\n<h2>${title}${meta ? `<span class="meta">${escapeHtml(meta)}</span>` : ""}${when}</h2>\n`;
  switch (item.kind) {
    case "user":
      return `${open(item.steering ? "User (while the agent worked)" : "User")}<div class="text">${escapeHtml(item.text)}</div>${item.images ? `<p class="omitted">${item.images} image(s) attached</p>` : ""}\n</section>\n`;
    case "system":
      return `${open(`gong: ${NOTE_TITLES[item.what]}`)}<div class="text">${escapeHtml(item.text)}</div>\n</section>\n`;
    case "agent": {
      const parts = [open("Agent", [item.model, usageLine(item.usage)].filter(Boolean).join(" · "))];
      if (item.reasoning)
        parts.push(
          `<details class="reasoning"><summary>reasoning</summary><div class="text">${escapeHtml(item.reasoning)}</div></details>\n`,
        );
      if (item.text) parts.push(`<div class="text">${escapeHtml(item.text)}</div>\n`);
      for (const call of item.calls) {
        const failed = call.result?.isError;
        parts.push(
          `<details class="call${failed ? " error" : ""}"${failed ? " open" : ""}><summary>${escapeHtml(callLine(call))}</summary>\n`,
        );
        parts.push(`<pre class="arguments">${escapeHtml(JSON.stringify(call.arguments, null, 2))}</pre>\n`);
        if (call.result) {
          const shown = clipped(call.result.text);
          parts.push(`<pre class="output">${escapeHtml(shown.text)}</pre>\n`);
          if (shown.omitted) parts.push(`<p class="omitted">${escapeHtml(shown.omitted)}</p>\n`);
        } else parts.push(`<p class="omitted">no result recorded</p>\n`);
        parts.push("</details>\n");
      }
      if (item.error) parts.push(`<p class="failed">The call failed: ${escapeHtml(item.error)}</p>\n`);
      parts.push("</section>\n");
      return parts.join("");
    }
  }
}

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}
