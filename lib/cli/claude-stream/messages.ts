/**
 * Claude Code's stream-json messages, as the Claude Agent SDK reads and writes them (its
 * `SDKMessage` types): what a line on stdin may be, and gong's session messages in Claude Code's
 * shapes — the `system` init line, `assistant` messages with Anthropic content blocks, `user`
 * messages carrying tool results. The control protocol (`control_request` / `control_response`)
 * builds on the same lines.
 */
import type { AssistantMessage, ToolResultMessage, Usage } from "../../llm/types.ts";

/** A user message as Claude Code reads it on stdin (`{"type":"user","message":{"role":"user","content":…}}`). */
export interface UserInput {
  text: string;
  images: { mimeType: string; data: string }[];
  /** The line as it came (replayed with --replay-user-messages). */
  line: Record<string, unknown>;
}

/** What one input line is. */
export type InputLine =
  | { kind: "user"; input: UserInput }
  | { kind: "control_request"; requestId: string; subtype: string; request: Record<string, unknown> }
  | { kind: "control_response"; line: Record<string, unknown> }
  /** Any other type: the host decides (keep_alive is skipped, a type it does not know is an error). */
  | { kind: "other"; type: string }
  | { kind: "invalid"; problem: string };

export function parseInputLine(text: string): InputLine {
  let line: unknown;
  try {
    line = JSON.parse(text);
  } catch (e) {
    return { kind: "invalid", problem: `not JSON (${(e as Error).message})` };
  }
  if (typeof line !== "object" || line === null || Array.isArray(line))
    return { kind: "invalid", problem: "not a JSON object" };
  const o = line as Record<string, unknown>;
  if (o.type === "control_request") {
    const request = (o.request ?? {}) as Record<string, unknown>;
    return {
      kind: "control_request",
      requestId: String(o.request_id ?? ""),
      subtype: String(request.subtype),
      request,
    };
  }
  if (o.type === "control_response") return { kind: "control_response", line: o };
  if (o.type !== "user") return { kind: "other", type: String(o.type) };
  const message = o.message as { role?: unknown; content?: unknown } | undefined;
  if (message?.role !== "user")
    return { kind: "invalid", problem: 'a "user" line needs "message": {"role": "user", "content": …}' };
  const content = message.content;
  if (typeof content === "string") return { kind: "user", input: { text: content, images: [], line: o } };
  if (!Array.isArray(content))
    return { kind: "invalid", problem: '"message.content" must be a string or a list of blocks' };
  const texts: string[] = [];
  const images: UserInput["images"] = [];
  for (const block of content as Record<string, unknown>[]) {
    if (block?.type === "text" && typeof block.text === "string") texts.push(block.text);
    else if (block?.type === "image") {
      const source = block.source as { type?: string; media_type?: string; data?: string } | undefined;
      if (source?.type !== "base64" || !source.media_type || !source.data)
        return { kind: "invalid", problem: "an image block needs a base64 source with media_type and data" };
      images.push({ mimeType: source.media_type, data: source.data });
    } else
      return {
        kind: "invalid",
        problem: `content blocks of type '${String(block?.type)}' are not read (text and image are)`,
      };
  }
  return { kind: "user", input: { text: texts.join("\n\n"), images, line: o } };
}

/** Anthropic's usage names for gong's counts. */
export function anthropicUsage(usage: Usage | undefined) {
  return {
    input_tokens: usage?.input ?? 0,
    output_tokens: usage?.output ?? 0,
    cache_read_input_tokens: usage?.cacheRead ?? 0,
    cache_creation_input_tokens: usage?.cacheWrite ?? 0,
  };
}

const STOP_REASONS: Record<string, string> = {
  end_turn: "end_turn",
  tool_use: "tool_use",
  max_tokens: "max_tokens",
  refusal: "refusal",
  pause_turn: "pause_turn",
};

/** An assistant message of the history as Claude Code's `assistant` line. */
export function assistantLine(message: AssistantMessage, sessionId: string): Record<string, unknown> {
  const content = message.content.flatMap((part): Record<string, unknown>[] => {
    if (part.type === "text") return part.text ? [{ type: "text", text: part.text }] : [];
    if (part.type === "thinking")
      return part.redacted
        ? [{ type: "redacted_thinking", data: part.signature ?? "" }]
        : [{ type: "thinking", thinking: part.text, signature: part.signature ?? "" }];
    if (part.type === "tool_call") return [{ type: "tool_use", id: part.id, name: part.name, input: part.arguments }];
    return part.api === "anthropic-messages" ? [part.block] : [];
  });
  return {
    type: "assistant",
    message: {
      id: message.responseId ?? `msg_${crypto.randomUUID().replace(/-/g, "")}`,
      type: "message",
      role: "assistant",
      model: message.model?.slice(message.model.indexOf("/") + 1) ?? "",
      content,
      stop_reason: (message.finishReason && STOP_REASONS[message.finishReason]) ?? null,
      stop_sequence: null,
      usage: anthropicUsage(message.usage),
    },
    parent_tool_use_id: null,
    session_id: sessionId,
    uuid: crypto.randomUUID(),
  };
}

/** A tool's result as Claude Code's `user` line with one tool_result block. */
export function toolResultLine(message: ToolResultMessage, sessionId: string): Record<string, unknown> {
  const content =
    typeof message.content === "string"
      ? message.content
      : message.content.map((part) =>
          part.type === "text"
            ? { type: "text", text: part.text }
            : { type: "image", source: { type: "base64", media_type: part.mimeType, data: part.data } },
        );
  return {
    type: "user",
    message: {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: message.toolCallId, content, is_error: message.isError }],
    },
    parent_tool_use_id: null,
    session_id: sessionId,
    uuid: crypto.randomUUID(),
  };
}
