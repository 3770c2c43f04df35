/**
 * The conversation so far, as the shell shows it when a session is continued (`-c`), resumed
 * (`-r`, /resume): its last turns — the user's inputs, the answers, one line per tool call with
 * its result, as they looked live — under one line counting what is older. In full (the transcript
 * view, Ctrl-O) nothing is cut: every turn, the reasoning, each tool's whole result.
 */
import type { AssistantMessage, Message, ToolResultMessage, UserPart } from "../llm/types.ts";
import type { Tool } from "../../tools/types.ts";
import { coreTools, optionalTools } from "../../tools/registry.ts";
import { planTools, profileIds, profileTools } from "../profiles/index.ts";
import { describeCall } from "../../tools/metadata.ts";
import { MarkdownStream } from "./markdown.ts";
import { callLabel, colorDiff, diffSummary, indent, type Style } from "./render.ts";
import { proposedChange } from "./approve-prompt.ts";
import { cutToWidth } from "./text-width.ts";

/** Turns (a user input and what followed it) shown in full. */
export const TRANSCRIPT_TURNS = 3;
/** The key that shows the whole transcript (as Claude Code binds it): what a cut line names. */
export const TRANSCRIPT_KEY = "Ctrl-O";
/** Lines of a long input shown. */
const INPUT_LINES = 3;
/** Lines of an answer shown, and of a change's diff. */
const ANSWER_LINES = 20;
const CHANGE_LINES = 12;

export interface TranscriptOptions {
  style: Style;
  columns: number;
  /** Render the answers' markdown (a color terminal). */
  markdown: boolean;
  /** The session's profile: its tools describe their calls first (tool names differ by profile). */
  profile?: string;
  turns?: number;
  /** Everything, nothing cut: every turn, whole inputs and answers, the reasoning, each tool's whole result (the transcript view). */
  full?: boolean;
}

/** The transcript's text (each line ending in a newline); "" for an empty conversation. */
export function renderTranscript(messages: readonly Message[], options: TranscriptOptions): string {
  const { style: s, columns } = options;
  const starts = messages.flatMap((m, i) => (m.role === "user" ? [i] : []));
  if (messages.length === 0) return "";
  const turns = options.full ? Number.POSITIVE_INFINITY : (options.turns ?? TRANSCRIPT_TURNS);
  const from = starts.length > turns ? starts[starts.length - turns] : 0;
  const lines: string[] = [];
  if (from > 0) {
    const inputs = starts.filter((i) => i < from).length;
    lines.push(
      s.dim(`… ${from} earlier messages (${inputs} input${inputs === 1 ? "" : "s"}); /tree lists the whole session`),
    );
  }
  const results = new Map<string, ToolResultMessage>();
  for (const m of messages) if (m.role === "tool") results.set(m.toolCallId, m);
  const tools = toolLookup(options.profile);
  for (const m of messages.slice(from)) {
    if (m.role === "user") lines.push(...inputLines(shownText(m.content), s, columns, options.full));
    else if (m.role === "assistant") lines.push(...answerLines(m, results, tools, options));
  }
  return lines.length ? `${lines.join("\n")}\n` : "";
}

function inputLines(text: string, s: Style, columns: number, full = false): string[] {
  const all = text.trim().split("\n");
  const kept = full ? all.length : INPUT_LINES;
  const shown = all
    .slice(0, kept)
    .map((l, i) => `${i === 0 ? s.cyan("› ") : "  "}${full ? l : cutToWidth(l, columns - 3)}`);
  if (all.length > kept) shown.push(s.dim(`  … ${all.length - kept} more lines (${TRANSCRIPT_KEY} shows them)`));
  return shown;
}

function answerLines(
  message: AssistantMessage,
  results: Map<string, ToolResultMessage>,
  tools: Map<string, Tool>,
  options: TranscriptOptions,
): string[] {
  const { style: s, columns } = options;
  const lines: string[] = [];
  const content = message.content as unknown;
  const parts = Array.isArray(message.content)
    ? message.content
    : typeof content === "string"
      ? [{ type: "text" as const, text: content }]
      : [];
  for (const part of parts) {
    if (part.type === "thinking" && options.full && part.text.trim()) lines.push(s.dim(part.text.trim()));
    else if (part.type === "text" && part.text.trim()) {
      const text = part.text.replace(/\s+$/, "");
      const rendered = options.markdown
        ? (() => {
            const md = new MarkdownStream(s, () => columns);
            return (md.push(`${text}\n`) + md.flush()).replace(/\n$/, "");
          })()
        : text;
      // A long answer is not replayed whole: its start, and how much more there was.
      const rows = rendered.split("\n");
      const kept = options.full ? rows.length : ANSWER_LINES;
      lines.push(...rows.slice(0, kept));
      if (rows.length > kept)
        lines.push(s.dim(`… ${rows.length - kept} more lines of this answer (${TRANSCRIPT_KEY} shows them)`));
    } else if (part.type === "tool_call") {
      const result = results.get(part.id);
      const failed = !result || result.isError;
      const label = callLabel({
        tool_name: part.name,
        call_summary: describeCall(tools.get(part.name), part.arguments).call_summary,
      });
      lines.push(`${failed ? s.red("●") : s.green("●")} ${cutToWidth(label, columns - 3)}`);
      // A change shows as it did live: its size and the lines it removed and added, not the tool's words to the model.
      const change =
        !failed && result.kind === "modify" ? proposedChange(part.arguments as Record<string, unknown>) : undefined;
      const summary = cutToWidth(
        change ? diffSummary(change) : result ? resultSummary(result) : "no result (interrupted)",
        columns - 5,
      );
      lines.push(`  ${s.dim("⎿")} ${failed ? s.red(summary) : s.dim(summary)}`);
      if (change) lines.push(indent(colorDiff(change, s, options.full ? Number.POSITIVE_INFINITY : CHANGE_LINES)));
      else if (options.full && result) lines.push(...wholeResult(result));
    }
  }
  return lines;
}

/** A stored result as the model read it, every line, indented under its call. */
function wholeResult(result: ToolResultMessage): string[] {
  const text = shownText(result.content).replace(/\s+$/, "");
  return text ? text.split("\n").map((l) => `    ${l}`) : [];
}

/** A stored result in one line: a failure's last line, a command's line count, else its first line. */
function resultSummary(result: ToolResultMessage): string {
  const lines = shownText(result.content)
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  if (result.isError) return lines.at(-1) ?? "failed";
  if (result.kind === "shell")
    return lines.length === 0 ? "no output" : `${lines.length} line${lines.length === 1 ? "" : "s"} of output`;
  return lines[0] ?? "done";
}

/** A message's text as the transcript shows it: an image stands as "[image]". */
function shownText(content: string | UserPart[]): string {
  return typeof content === "string"
    ? content
    : content.map((p) => (p.type === "text" ? p.text : p.type === "image" ? "[image]" : "")).join("");
}

/** Every tool a profile can offer, by name; the session's own profile's tools win a shared name. */
function toolLookup(profile: string | undefined): Map<string, Tool> {
  const order = [
    profileTools(profile ?? "default"),
    coreTools,
    planTools,
    optionalTools,
    ...profileIds().map(profileTools),
  ];
  const map = new Map<string, Tool>();
  for (const list of order) for (const tool of list) if (!map.has(tool.name)) map.set(tool.name, tool as Tool);
  return map;
}
