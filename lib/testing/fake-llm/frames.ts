/** Small helpers every wire format of the fake LLM server shares. */
import type { Fault, ScriptFinish, ScriptToolCall, ScriptTurn } from "./types.ts";

/** One complete SSE frame; `event` adds the `event:` line Anthropic and Responses use. */
export function sse(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
}

/** Splits text into pieces of `size` characters — code points, so no piece ends inside a pair (at least one piece, possibly empty). */
export function pieces(text: string, size = 8): string[] {
  if (text.length === 0) return [""];
  const out: string[] = [];
  // Without surrogate pairs every code unit is a character: slicing is enough (and linear, where
  // splitting a 20 MB argument into an array of characters took most of a second).
  if (!/[\uD800-\uDFFF]/.test(text)) {
    for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
    return out;
  }
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}

/** Deterministic id of a scripted call when the script gives none. */
export function scriptedCallId(prefix: string, requestIndex: number, callIndex: number): string {
  return `${prefix}${String(requestIndex).padStart(4, "0")}${String(callIndex).padStart(4, "0")}`;
}

/** The turn's usage with zeros filled in; input/output default to small plausible counts. */
export function turnUsage(turn: ScriptTurn): Required<NonNullable<ScriptTurn["usage"]>> {
  const u = turn.usage ?? {};
  return {
    input: u.input ?? 10,
    output: u.output ?? Math.max(1, Math.ceil(((turn.text?.length ?? 0) + (turn.thinking?.length ?? 0)) / 4)),
    cacheRead: u.cacheRead ?? 0,
    cacheWrite: u.cacheWrite ?? 0,
    reasoning: u.reasoning ?? 0,
  };
}

/** The Chat Completions names scripts may use as well. */
const ALIASES: Record<string, ScriptFinish> = { stop: "end_turn", length: "max_tokens", tool_calls: "tool_use" };

/** The ending a turn implies: tool calls end with tool_use unless the script says otherwise. */
export function turnFinish(turn: ScriptTurn): ScriptFinish {
  const given = turn.finishReason;
  if (given) return ALIASES[given] ?? (given as ScriptFinish);
  return turn.toolCalls?.length ? "tool_use" : "end_turn";
}

/** The argument text a scripted call streams: its raw text when given, else the JSON of its arguments. */
export function argumentText(call: ScriptToolCall): string {
  return call.argumentText ?? JSON.stringify(call.arguments);
}

const HTTP_MESSAGES: Record<number, string> = {
  400: "Bad request",
  401: "Invalid API key",
  403: "Permission denied",
  404: "Not found",
  408: "Request timeout",
  409: "Conflict",
  429: "Rate limit exceeded, please retry later",
  500: "Internal server error",
  502: "Bad gateway",
  503: "Service unavailable",
  529: "Overloaded",
};

/** Anthropic's real thinking-ordering complaint: an invalid request, not an overflow. */
const THINKING_ORDER_MESSAGE =
  "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`. When `thinking` is enabled, " +
  "a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and " +
  "`tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`.";

/** What a fault says when the script gives no message: the service's usual wording. */
export function faultMessage(fault: Fault): string {
  switch (fault.type) {
    case "http":
      return fault.message ?? HTTP_MESSAGES[fault.status] ?? `HTTP ${fault.status}`;
    case "invalid_request":
      return fault.message ?? THINKING_ORDER_MESSAGE;
    case "error_event":
      return fault.message ?? "Overloaded";
    default:
      return "";
  }
}
