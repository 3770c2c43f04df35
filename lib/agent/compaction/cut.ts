/**
 * Where to cut a message list for compaction: everything before the cut is summarised, everything
 * from it on is kept verbatim.
 *
 * Walking back from the newest message, the cut keeps at least `keepRecentTokens` (when the list
 * has that many) and lands only where it splits nothing: before a user message, or before an
 * assistant message — never before a tool result, and never between a tool call and its result
 * (results answering a call before the cut would be orphaned, so such positions are skipped).
 * Leading `system` messages are pinned: never summarised, always first.
 */
import type { Message } from "../../llm/types.ts";
import { DEFAULT_KEEP_RECENT_TOKENS, estimateMessageTokens } from "./tokens.ts";

/** Number of leading system messages (not part of the unified type, but tolerated as input). */
export function pinnedCount(messages: readonly Message[]): number {
  let n = 0;
  while (n < messages.length && (messages[n] as { role: string }).role === "system") n++;
  return n;
}

/** Index of the first kept message, or undefined when nothing can be summarised. */
export function findCutPoint(
  messages: readonly Message[],
  keepRecentTokens = DEFAULT_KEEP_RECENT_TOKENS,
): number | undefined {
  const pinned = pinnedCount(messages);
  const valid = validCuts(messages, pinned);
  let candidate = -1;
  let kept = 0;
  for (let i = messages.length - 1; i >= pinned; i--) {
    kept += estimateMessageTokens(messages[i]);
    if (kept >= keepRecentTokens) {
      candidate = i;
      break;
    }
  }
  if (candidate < 0) return undefined;
  for (let i = candidate; i > pinned; i--) if (valid[i]) return i;
  for (let i = candidate + 1; i < messages.length; i++) if (valid[i]) return i;
  return undefined;
}

/** valid[i]: cutting right before message i leaves something to summarise and splits no call from its result. */
function validCuts(messages: readonly Message[], pinned: number): boolean[] {
  const callAt = new Map<string, number>();
  // blocked[i] > 0: some call before i has its result at or after i.
  const delta = new Array<number>(messages.length + 1).fill(0);
  messages.forEach((m, i) => {
    if (m.role === "assistant" && Array.isArray(m.content)) {
      for (const part of m.content) if (part.type === "tool_call") callAt.set(part.id, i);
    } else if (m.role === "tool") {
      const call = callAt.get(m.toolCallId);
      if (call !== undefined) {
        delta[call + 1] += 1;
        delta[i + 1] -= 1;
      }
    }
  });
  const valid: boolean[] = [];
  let open = 0;
  messages.forEach((m, i) => {
    open += delta[i];
    valid.push(i > pinned && open === 0 && (m.role === "user" || m.role === "assistant"));
  });
  return valid;
}
