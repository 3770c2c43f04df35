/**
 * Rebuilds what the LLM sees from the active branch: after the last compaction, its summary (as a
 * user message) and then the entries from its `firstKeptEntryId` on; branch summaries become user
 * messages; model and thinking level are the last changes on the path. Only the bodies needed are
 * read: the kept entries, the compaction, and the last model / thinking-level changes.
 */
import type { Message, ToolResultMessage } from "../llm/types.ts";
import type { CompactionEntry, Entry, LoadWarning } from "./format.ts";
import type { IndexRecord } from "./reader.ts";

export interface SessionContext {
  /**
   * Messages for the LLM, oldest first, as stored: a turn cut short (a crash between a tool call and
   * its result) still ends with the unanswered call, so `entryIds` stays one per message. The
   * request transform (lib/llm/transform.ts) answers such calls before anything is sent.
   */
  messages: Message[];
  /** For each message, the entry it came from (the compaction entry for a summary). */
  entryIds: string[];
  /** Last model set on the path ("provider/model-id"). */
  model?: string;
  thinkingLevel?: string;
  leafId: string | null;
  /** The last compaction on the branch, if any (its summary, when not empty, is `messages[0]`). */
  compactionId?: string;
}

/** Note that replaces a tool output removed by a "truncate" compaction. */
export const REMOVED_OUTPUT_NOTE = "[output removed during compaction]";

/** The user message that carries a compaction summary into the context. */
export function summaryMessage(summary: string): Message {
  return {
    role: "user",
    content: `Earlier parts of this conversation were compacted to save context. This is the summary of them:\n\n<summary>\n${summary}\n</summary>`,
  };
}

/** The user message that carries a branch summary into the context. */
export function branchSummaryMessage(summary: string): Message {
  return {
    role: "user",
    content: `The conversation went down another path and came back here. What happened on that path:\n\n<branch-summary>\n${summary}\n</branch-summary>`,
  };
}

/** A tool result with its output replaced by the removal note (structure kept valid). */
export function withOutputRemoved(message: ToolResultMessage): ToolResultMessage {
  return { ...message, content: REMOVED_OUTPUT_NOTE };
}

export function buildContext(
  path: readonly IndexRecord[],
  read: (record: IndexRecord) => Entry | undefined,
  warnings: LoadWarning[] = [],
): SessionContext {
  const leafId = path.length ? path[path.length - 1].id : null;
  const lastOf = (type: string) => {
    for (let i = path.length - 1; i >= 0; i--) if (path[i].type === type) return read(path[i]);
    return undefined;
  };
  const model = lastOf("model_change");
  const thinking = lastOf("thinking_level_change");
  const context: SessionContext = {
    messages: [],
    entryIds: [],
    model: model?.type === "model_change" ? model.model : undefined,
    thinkingLevel: thinking?.type === "thinking_level_change" ? thinking.thinkingLevel : undefined,
    leafId,
  };

  let start = 0;
  let truncated = new Set<string>();
  let compactionIndex = -1;
  for (let i = path.length - 1; i >= 0; i--) {
    if (path[i].type === "compaction") {
      compactionIndex = i;
      break;
    }
  }
  const compaction = compactionIndex >= 0 ? (read(path[compactionIndex]) as CompactionEntry | undefined) : undefined;
  if (compaction) {
    context.compactionId = compaction.id;
    const kept = path.findIndex((r, i) => i < compactionIndex && r.id === compaction.firstKeptEntryId);
    if (kept >= 0) start = kept;
    else {
      start = compactionIndex + 1;
      warnings.push({
        message: `compaction ${compaction.id}: first kept entry ${compaction.firstKeptEntryId} is not on the branch; the context starts after the compaction`,
      });
    }
    truncated = new Set(compaction.truncatedEntryIds ?? []);
    if (compaction.summary) push(context, summaryMessage(compaction.summary), compaction.id);
  }

  for (let i = start; i < path.length; i++) {
    const record = path[i];
    if (record.type !== "message" && record.type !== "injected" && record.type !== "branch_summary") continue;
    const entry = read(record);
    if (entry?.type === "injected") push(context, entry.message, entry.id);
    else if (entry?.type === "message") {
      const message = entry.message;
      push(
        context,
        message.role === "tool" && truncated.has(entry.id) ? withOutputRemoved(message) : message,
        entry.id,
      );
    } else if (entry?.type === "branch_summary") {
      push(context, branchSummaryMessage(entry.summary), entry.id);
    }
  }
  return context;
}

function push(context: SessionContext, message: Message, entryId: string): void {
  context.messages.push(message);
  context.entryIds.push(entryId);
}
