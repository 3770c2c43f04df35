/**
 * Scripts for several conversations served by one fake server (or one scripted client), e.g. a parent agent and the children
 * it spawns: each request is routed by the text of its first user message, and answered with the
 * next turn of that conversation (counted from the assistant turns the request already carries), so
 * conversations running at the same time never take each other's turns.
 */
import type { RecordedRequest, ScriptedRequest, ScriptTurn } from "./types.ts";

/** A request either scripted model received: the fake server's (wire format) or the scripted client's (gong's own). */
export type ScriptRequest = RecordedRequest | ScriptedRequest;

/**
 * `routes` maps a piece of the first user message to that conversation's turns. The longest
 * matching key wins. A request that matches no key, or has used up its turns, gets `fallback`
 * (default: a short text answer).
 */
export function routeByPrompt<R extends ScriptRequest = ScriptRequest>(
  routes: Record<string, RoutedTurn<R>[]>,
  fallback: ScriptTurn = { text: "(no scripted turn left)" },
): (request: R) => ScriptTurn {
  const keys = Object.keys(routes).sort((a, b) => b.length - a.length);
  return (request: R) => {
    const { firstUser, assistantTurns } = conversationOf(request);
    const key = keys.find((k) => firstUser.includes(k));
    const turn = key !== undefined ? routes[key][assistantTurns] : undefined;
    return (typeof turn === "function" ? turn(request) : turn) ?? fallback;
  };
}

/** A scripted turn, or a function of the request (to answer with what earlier tool results said). */
export type RoutedTurn<R extends ScriptRequest = ScriptRequest> = ScriptTurn | ((request: R) => ScriptTurn);

/** The first user text of a request and how many assistant turns it already holds, for every wire format and gong's own. */
export function conversationOf(request: ScriptRequest): { firstUser: string; assistantTurns: number } {
  const body: any = request.body ?? {};
  const format = "format" in request ? request.format : undefined;
  const items: unknown[] =
    format === "gemini"
      ? (body.contents ?? [])
      : format === "openai-responses"
        ? (body.input ?? [])
        : (body.messages ?? []);
  let firstUser: string | undefined;
  let assistantTurns = 0;
  let inAssistant = false;
  for (const item of items as Record<string, any>[]) {
    const assistant =
      item.role === "assistant" ||
      item.role === "model" ||
      ["function_call", "custom_tool_call", "reasoning"].includes(item.type);
    if (assistant && !inAssistant) assistantTurns++;
    inAssistant = assistant;
    const toolResult = ["function_call_output", "custom_tool_call_output"].includes(item.type) || item.role === "tool";
    if (firstUser === undefined && !assistant && !toolResult && item.role === "user")
      firstUser = wireText(item.content ?? item.parts);
  }
  return { firstUser: firstUser ?? "", assistantTurns };
}

/** The text of a wire format's content: a string, or parts with a `text` (Gemini's have no `type`). */
function wireText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part: any) => (typeof part?.text === "string" ? part.text : "")).join("");
}
