/**
 * A readable markdown transcript: a heading per turn (user, agent, gong's notes), the agent's
 * text as it wrote it, its reasoning quoted, each tool call with its arguments and output in
 * fences long enough for any backticks inside. Long outputs are shown up to SHOWN_OUTPUT.
 */
import { ExportError, type ExportSource } from "./source.ts";
import { callLine, clipped, NOTE_TITLES, transcriptOf, usageLine, type TranscriptItem } from "./transcript.ts";

export function* markdownChunks(source: ExportSource): Generator<string> {
  const { header, name } = source;
  yield `# ${name ? `${name} — ` : ""}gong session ${header.id}\n\n`;
  yield `- started: ${header.timestamp}\n- working directory: \`${header.cwd}\`\n`;
  if (source.path) yield `- file: \`${source.path}\`\n`;
  let turns = 0;
  for (const item of transcriptOf(source.branch())) {
    turns++;
    yield `\n${markdownItem(item)}`;
  }
  if (turns === 0) throw new ExportError(`Session ${header.id} has no conversation to export.`);
}

function markdownItem(item: TranscriptItem): string {
  const when = item.timestamp ? ` · ${item.timestamp}` : "";
  switch (item.kind) {
    case "user": {
      const images = item.images ? `\n\n*(${item.images} image(s) attached)*` : "";
      return `## ${item.steering ? "User (while the agent worked)" : "User"}${when}\n\n${item.text}${images}\n`;
    }
    case "system":
      return `## gong: ${NOTE_TITLES[item.what]}${when}\n\n${fenced(item.text)}`;
    case "agent": {
      const about = [item.model, usageLine(item.usage)].filter(Boolean).join(" · ");
      const parts = [`## Agent${about ? ` (${about})` : ""}${when}\n`];
      if (item.reasoning) parts.push(`${quoted(item.reasoning)}\n`);
      if (item.text) parts.push(`${item.text}\n`);
      for (const call of item.calls) {
        parts.push(
          `**Tool call** \`${callLine(call, 80).replaceAll("`", "'")}\`\n\n${fenced(JSON.stringify(call.arguments, null, 2), "json")}`,
        );
        if (!call.result) {
          parts.push("*No result recorded.*\n");
          continue;
        }
        const shown = clipped(call.result.text);
        const label = call.result.isError ? "**Error**" : "**Result**";
        parts.push(`${label}\n\n${fenced(shown.text)}${shown.omitted ? `*(${shown.omitted})*\n` : ""}`);
      }
      if (item.error) parts.push(`*The call failed: ${item.error}*\n`);
      return parts.join("\n");
    }
  }
}

/** A fenced block whose fence is longer than any run of backticks in the text. */
function fenced(text: string, language = ""): string {
  let longest = 2;
  for (const run of text.matchAll(/`{3,}/g)) longest = Math.max(longest, run[0].length);
  const fence = "`".repeat(longest + 1);
  return `${fence}${language}\n${text}${text.endsWith("\n") ? "" : "\n"}${fence}\n`;
}

function quoted(text: string): string {
  return text
    .split("\n")
    .map((line) => (line ? `> ${line}` : ">"))
    .join("\n");
}
