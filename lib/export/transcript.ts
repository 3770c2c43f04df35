/**
 * A session's active branch as the turns a reader follows — what every export format renders.
 * Entries are read one at a time and turned into items as they come: an assistant turn is held
 * only until the results of its tool calls have joined it, so a session of any size streams.
 */
import type { AssistantMessage, FinishReason, Message, ToolResultMessage, Usage } from "../llm/types.ts";
import type { Entry } from "../store/format.ts";

/** A tool call of an agent turn, with its result once it came. */
export interface TranscriptCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  result?: { text: string; isError: boolean; images: number };
}

export type TranscriptItem =
  /** What the user typed; `steering` when sent while the agent worked. */
  | { kind: "user"; text: string; images: number; timestamp?: string; steering?: boolean }
  /** One model call: its text, reasoning, tool calls (with their results), model and usage. */
  | {
      kind: "agent";
      text: string;
      reasoning: string;
      calls: TranscriptCall[];
      model?: string;
      usage?: Usage;
      finishReason?: FinishReason;
      error?: string;
      timestamp?: string;
      reasoningEffort?: string;
    }
  /** Something gong itself put in the conversation: a compaction summary, a branch summary, a loop warning, a result whose call is not on the branch. */
  | { kind: "system"; what: SystemNote; text: string; timestamp?: string; callId?: string };

export type SystemNote = "compaction" | "branch_summary" | "loop_detection" | "tool_result";

/** How the readable formats title each note. */
export const NOTE_TITLES: Record<SystemNote, string> = {
  compaction: "the earlier conversation, summarised",
  branch_summary: "a branch that was left, summarised",
  loop_detection: "repeated tool calls noticed",
  tool_result: "a result whose call is not on this branch",
};

type AgentItem = Extract<TranscriptItem, { kind: "agent" }>;

/** The items of a branch's entries, in order. */
export function* transcriptOf(entries: Iterable<Entry>): Generator<TranscriptItem> {
  let pending: AgentItem | undefined;
  let effort: string | undefined;
  const flush = function* () {
    if (pending) yield pending;
    pending = undefined;
  };
  for (const entry of entries) {
    switch (entry.type) {
      case "thinking_level_change":
        effort = entry.thinkingLevel === "off" ? undefined : entry.thinkingLevel;
        break;
      case "compaction":
      case "branch_summary":
        yield* flush();
        if (entry.summary) yield { kind: "system", what: entry.type, text: entry.summary, timestamp: entry.timestamp };
        break;
      case "injected":
        yield* flush();
        if (entry.origin === "loop_detection")
          yield {
            kind: "system",
            what: "loop_detection",
            text: messageText(entry.message),
            timestamp: entry.timestamp,
          };
        else yield { ...userItem(entry.message, entry.timestamp), steering: true };
        break;
      case "message": {
        const message = entry.message;
        if (message.role === "tool") {
          const call = pending?.calls.find((c) => c.id === message.toolCallId && !c.result);
          if (call) call.result = resultOf(message);
          else
            yield {
              kind: "system",
              what: "tool_result",
              text: resultOf(message).text,
              timestamp: entry.timestamp,
              callId: message.toolCallId,
            };
          break;
        }
        yield* flush();
        if (message.role === "user") yield userItem(message, entry.timestamp);
        else pending = agentItem(message, entry.timestamp, effort);
        break;
      }
    }
  }
  yield* flush();
}

function userItem(message: Message, timestamp: string): Extract<TranscriptItem, { kind: "user" }> {
  return { kind: "user", text: messageText(message), images: imageCount(message), timestamp };
}

function agentItem(message: AssistantMessage, timestamp: string, effort: string | undefined): AgentItem {
  // Tolerated shapes from outside: content as a string or null.
  const parts = Array.isArray(message.content)
    ? message.content
    : typeof message.content === "string"
      ? [{ type: "text" as const, text: message.content }]
      : [];
  const text: string[] = [];
  const reasoning: string[] = [];
  const calls: TranscriptCall[] = [];
  for (const part of parts) {
    if (part.type === "text") text.push(part.text);
    else if (part.type === "thinking" && part.text) reasoning.push(part.text);
    else if (part.type === "tool_call") calls.push({ id: part.id, name: part.name, arguments: part.arguments ?? {} });
  }
  return {
    kind: "agent",
    text: text.join(""),
    reasoning: reasoning.join("\n\n"),
    calls,
    model: message.model,
    usage: message.usage,
    finishReason: message.finishReason,
    error: message.errorMessage,
    timestamp,
    reasoningEffort: effort,
  };
}

function resultOf(message: ToolResultMessage): NonNullable<TranscriptCall["result"]> {
  return { text: messageText(message), isError: message.isError, images: imageCount(message) };
}

/** The text parts of a message, joined; images are counted apart. */
export function messageText(message: Message): string {
  const content = message.content as unknown;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((p): p is { type: "text"; text: string } => p?.type === "text" && typeof p.text === "string")
    .map((p) => p.text)
    .join("\n");
}

function imageCount(message: Message): number {
  const content = message.content as unknown;
  return Array.isArray(content) ? content.filter((p) => p?.type === "image").length : 0;
}

/** Readable formats show a tool's output up to this many lines and characters (the ATIF and JSONL exports keep all of it). */
export const SHOWN_OUTPUT = { lines: 200, chars: 20_000 };

/** The head of a long text and a sentence saying how much was left out. */
export function clipped(text: string, limits = SHOWN_OUTPUT): { text: string; omitted?: string } {
  let end = Math.min(text.length, limits.chars);
  let lines = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < end; i = text.indexOf("\n", i + 1)) {
    if (++lines === limits.lines) {
      end = i;
      break;
    }
  }
  if (end >= text.length) return { text };
  const rest = text.slice(end);
  const restLines = rest.split("\n").length - (rest.startsWith("\n") ? 1 : 0);
  return { text: text.slice(0, end), omitted: `${restLines} more line(s), ${rest.length} characters, not shown` };
}

/** A call as one line: its name and its arguments, shortened. */
export function callLine(call: TranscriptCall, max = 160): string {
  const args = JSON.stringify(call.arguments) ?? "{}";
  return `${call.name} ${args.length > max ? `${args.slice(0, max - 1)}…` : args}`;
}

/** Tokens and cost of a model call in a few words. */
export function usageLine(usage: Usage | undefined): string {
  if (!usage) return "";
  const tokens = `${usage.input + usage.cacheRead + usage.cacheWrite} in (${usage.cacheRead} cached), ${usage.output} out`;
  return usage.cost > 0 ? `${tokens}, $${usage.cost.toFixed(4)}` : tokens;
}
