/**
 * The summary request: the conversation before the cut, rendered as plain text (so no tool call can
 * be orphaned in the request), sent with a prompt asking for fixed sections. When an earlier
 * compaction exists its summary goes along with an UPDATE instruction, so the new summary revises
 * the old one instead of summarising a summary blind.
 */
import type { LlmClient, Message } from "../../llm/types.ts";

export const SUMMARY_SYSTEM =
  "You write handover notes for a coding assistant. The assistant will continue the work below with nothing but your notes, " +
  "so keep every fact it needs (paths, names, commands, errors, decisions, user preferences) and drop chatter. Output only the notes.";

const SECTIONS = `## Goal
What the user wants achieved, in one to three sentences.

## Constraints & Preferences
Requirements, limits and preferences the user stated (or "none").

## Progress
### Done
- finished work, with file paths
### In Progress
- work started but not finished
### Blocked
- open problems and what blocks them (or "none")

## Key Decisions
- decisions taken and why

## Next Steps
1. what to do next, in order

## Critical Context
- exact values, error messages, identifiers and anything else needed to go on`;

/** Longest tool output copied into the summary request; the rest of it is elided. */
export const TOOL_OUTPUT_CHARS = 2000;

export function summaryPrompt(conversation: string, previousSummary?: string, customInstructions?: string): string {
  const extra = customInstructions ? `\n\nAlso follow these instructions: ${customInstructions}` : "";
  if (previousSummary) {
    return (
      `<previous-summary>\n${previousSummary}\n</previous-summary>\n\n<conversation>\n${conversation}\n</conversation>\n\n` +
      "UPDATE the previous summary with the conversation that followed it. Keep what still holds, move finished items to Done, " +
      `drop what the new messages made obsolete, and add new goals, decisions and context. Use exactly these sections:\n\n${SECTIONS}${extra}`
    );
  }
  return `<conversation>\n${conversation}\n</conversation>\n\nSummarise the conversation above using exactly these sections:\n\n${SECTIONS}${extra}`;
}

/** The messages as labelled plain text; long tool outputs are shortened. */
export function serializeConversation(messages: readonly Message[]): string {
  const out: string[] = [];
  for (const message of messages) {
    const role = (message as { role: string }).role;
    if (message.role === "tool") {
      out.push(
        `[Tool result: ${message.toolName}${message.isError ? " (error)" : ""}]\n${shorten(contentText(message.content))}`,
      );
    } else if (message.role === "assistant") {
      for (const part of Array.isArray(message.content) ? message.content : []) {
        if (part.type === "text" && part.text) out.push(`[Assistant]\n${part.text}`);
        else if (part.type === "thinking" && part.text) out.push(`[Assistant thinking]\n${part.text}`);
        else if (part.type === "tool_call")
          out.push(`[Assistant tool call: ${part.name}] ${JSON.stringify(part.arguments)}`);
      }
    } else {
      out.push(`[${role === "user" ? "User" : role}]\n${contentText(message.content)}`);
    }
  }
  return out.join("\n\n");
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p) => (p?.type === "text" ? p.text : p?.type === "image" ? "[image]" : "")).join("\n");
}

function shorten(text: string): string {
  return text.length <= TOOL_OUTPUT_CHARS
    ? text
    : `${text.slice(0, TOOL_OUTPUT_CHARS)}\n[… ${text.length - TOOL_OUTPUT_CHARS} more characters]`;
}

export interface SummarizeOptions {
  client: LlmClient;
  /** "provider/model-id" */
  model: string;
  messages: readonly Message[];
  previousSummary?: string;
  customInstructions?: string;
  /** Output budget for the summary (default 8192). */
  maxTokens?: number;
  signal?: AbortSignal;
}

/** One summary request. Throws the LLM error (or on an empty answer); it never retries by itself beyond the client's policy. */
export async function summarize(options: SummarizeOptions): Promise<string> {
  const prompt = summaryPrompt(
    serializeConversation(options.messages),
    options.previousSummary,
    options.customInstructions,
  );
  const response = await options.client.complete(
    {
      model: options.model,
      system: SUMMARY_SYSTEM,
      messages: [{ role: "user", content: prompt }],
      maxTokens: options.maxTokens ?? 8192,
    },
    { signal: options.signal },
  );
  const text = response.text.trim();
  if (!text) throw new Error("the summary request returned no text");
  return text;
}
