/**
 * How a run ends (004 §2; the stop reasons themselves are in vocabulary.ts): the sentence saying
 * why an answer is not complete, and what the loop tells the model when a turn ended unfinished. The model-level
 * reasons (`FinishReason`, lib/llm/types.ts) reach here unchanged; `completed` is the run's word
 * for a final turn that ended with `end_turn`.
 */
import type { AssistantMessage, FinishReason } from "../llm/types.ts";
import { UNFINISHED_STOPS, type UnfinishedStop } from "./vocabulary.ts";

export function isUnfinished(reason: FinishReason | undefined): reason is UnfinishedStop {
  return (UNFINISHED_STOPS as readonly string[]).includes(reason ?? "");
}

/** One sentence saying why the answer stopped, with the provider's own words when it gave some. */
export function unfinishedSentence(
  reason: UnfinishedStop,
  message: Pick<AssistantMessage, "model" | "finishDetail"> | undefined,
): string {
  const provider = message?.model?.split("/")[0] ?? "the provider";
  const detail = message?.finishDetail ? ` (${provider}: ${message.finishDetail})` : "";
  switch (reason) {
    case "max_tokens":
      return `The answer is incomplete: the model reached its output limit (max_tokens) and was continued as often as allowed${detail}.`;
    case "refusal":
      return `The model refused to answer${detail}.`;
    case "content_filter":
      return `The answer was stopped by ${provider}'s content filter${detail}.`;
    case "malformed_call":
      return `The model produced a tool call ${provider} could not parse, again after being told${detail}.`;
    case "incomplete":
      return `The answer is incomplete: ${provider} ended the response before it was finished${detail}.`;
    case "pause_turn":
      return `The answer is incomplete: ${provider} paused a long server-side turn more often than it may be resumed${detail}.`;
  }
}

/** What the model is told so it can go on after an output-limit cut of its text answer. */
export const CONTINUE_PROMPT =
  "Your previous answer was cut off at the output limit. Continue exactly where it stopped, without repeating anything.";

/** What the model is told once when its tool call could not be parsed. */
export function malformedCallPrompt(message: AssistantMessage): string {
  const detail = message.finishDetail ? ` (${message.finishDetail})` : "";
  return `Your last tool call could not be parsed by the provider${detail}. Call the tool again with arguments that are valid JSON matching its schema.`;
}
