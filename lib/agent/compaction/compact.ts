/**
 * Compaction (docs/conformance.md: 003 §6): when the context nears the window, the part before the
 * cut is replaced by a summary; if the summary request fails (e.g. it is itself too long), old tool
 * outputs are removed instead. Exactly one summary request per compaction — a failure never loops.
 *
 * `compactMessages` works on a message list (pure, apart from the one LLM call); `compact` runs it
 * on a SessionStore's active branch under the session's lock and appends the `compaction` entry,
 * after which `store.buildContext()` gives the same messages this returned.
 */
import type { LlmClient, Message, ToolResultMessage } from "../../llm/types.ts";
import {
  REMOVED_OUTPUT_NOTE,
  summaryMessage,
  withOutputRemoved,
  type CompactionEntry,
  type SessionStore,
} from "../../store/index.ts";
import { findCutPoint, pinnedCount } from "./cut.ts";
import { extractFileOps, fileLists, formatFileLists } from "./file-ops.ts";
import { lockFor, type CompactionLock } from "./lock.ts";
import { summarize } from "./summary.ts";
import { DEFAULT_KEEP_RECENT_TOKENS, DEFAULT_RESERVE_TOKENS, estimateTokens, shouldCompact } from "./tokens.ts";

export interface CompactMessagesOptions {
  client: LlmClient;
  /** Model for the summary request ("provider/model-id"). */
  model: string;
  /** The context without any earlier summary message; leading `system` messages are kept first. */
  messages: Message[];
  /** The earlier compaction's summary: it is updated, and carried over if the summary fails. */
  previousSummary?: string;
  /** The earlier compaction's file lists, merged into the new ones. */
  previousFiles?: { filesRead?: string[]; filesModified?: string[] };
  contextWindow: number;
  reserveTokens?: number;
  keepRecentTokens?: number;
  /** Measured context size (e.g. from the last usage); default: the estimate. */
  contextTokens?: number;
  /** Compact even under the threshold (a manual /compact). */
  force?: boolean;
  customInstructions?: string;
  signal?: AbortSignal;
}

export type CompactMessagesResult =
  | { compacted: false; reason: "under_threshold" | "nothing_to_compact"; messages: Message[]; tokens: number }
  | {
      compacted: true;
      strategy: "summary" | "truncate";
      /** The new context: pinned system messages, the summary message (if any), the kept messages. */
      messages: Message[];
      /** The summary with the file lists appended ("" when truncating without an earlier summary). */
      summary: string;
      /** Index in the input of the first message kept verbatim. */
      cutIndex: number;
      tokensBefore: number;
      tokensAfter: number;
      filesRead: string[];
      filesModified: string[];
      /** Indices in the input of tool results whose output was removed ("truncate"). */
      truncatedIndices: number[];
      /** Why the summary failed ("truncate"). */
      error?: string;
    };

export async function compactMessages(options: CompactMessagesOptions): Promise<CompactMessagesResult> {
  const { messages, previousSummary } = options;
  const reserveTokens = options.reserveTokens ?? DEFAULT_RESERVE_TOKENS;
  const withSummary = previousSummary ? [summaryMessage(previousSummary), ...messages] : messages;
  const tokensBefore = options.contextTokens ?? estimateTokens(withSummary);
  if (!options.force && !shouldCompact(tokensBefore, options.contextWindow, { reserveTokens })) {
    return { compacted: false, reason: "under_threshold", messages, tokens: tokensBefore };
  }
  const cutIndex = findCutPoint(messages, options.keepRecentTokens ?? DEFAULT_KEEP_RECENT_TOKENS);
  if (cutIndex === undefined) return { compacted: false, reason: "nothing_to_compact", messages, tokens: tokensBefore };

  const pinned = messages.slice(0, pinnedCount(messages));
  const old = messages.slice(pinned.length, cutIndex);
  const { filesRead, filesModified } = fileLists(extractFileOps(old), options.previousFiles);
  const base = { compacted: true as const, cutIndex, tokensBefore, filesRead, filesModified };
  try {
    const text = await summarize({
      client: options.client,
      model: options.model,
      messages: old,
      previousSummary,
      customInstructions: options.customInstructions,
      maxTokens: Math.max(1024, Math.floor(reserveTokens * 0.8)),
      signal: options.signal,
    });
    const summary = [text, formatFileLists(filesRead, filesModified)].filter(Boolean).join("\n\n");
    const next = [...pinned, summaryMessage(summary), ...messages.slice(cutIndex)];
    return {
      ...base,
      strategy: "summary",
      messages: next,
      summary,
      tokensAfter: estimateTokens(next),
      truncatedIndices: [],
    };
  } catch (error) {
    if (options.signal?.aborted) throw error;
    const { messages: next, truncatedIndices } = removeOldToolOutputs(
      messages,
      pinned.length,
      cutIndex,
      previousSummary,
    );
    return {
      ...base,
      strategy: "truncate",
      messages: next,
      summary: previousSummary ?? "",
      tokensAfter: estimateTokens(next),
      truncatedIndices,
      error: (error as Error).message,
    };
  }
}

/** The fallback: every tool result before the cut keeps its place but loses its output. */
function removeOldToolOutputs(messages: Message[], from: number, cutIndex: number, previousSummary?: string) {
  const truncatedIndices: number[] = [];
  const body = messages.slice(from).map((m, j) => {
    const i = from + j;
    if (i >= cutIndex || m.role !== "tool") return m;
    truncatedIndices.push(i);
    return m.content === REMOVED_OUTPUT_NOTE ? m : withOutputRemoved(m as ToolResultMessage);
  });
  const summary = previousSummary ? [summaryMessage(previousSummary)] : [];
  return { messages: [...messages.slice(0, from), ...summary, ...body], truncatedIndices };
}

export interface CompactOptions extends Omit<CompactMessagesOptions, "messages" | "previousSummary" | "previousFiles"> {
  store: SessionStore;
  /** Default: one lock per store, so two compactions of one session never overlap. */
  lock?: CompactionLock;
}

export type CompactResult = CompactMessagesResult & { entry?: CompactionEntry };

/**
 * Compacts the store's active branch. Throws CompactionInProgressError (code
 * "compaction_in_progress") when a compaction of the same store is already running.
 */
export function compact(options: CompactOptions): Promise<CompactResult> {
  const { store } = options;
  return (options.lock ?? lockFor(store)).run(async () => {
    const context = store.buildContext();
    // Found even when it left no summary message ("truncate"): its removed outputs must stay removed.
    const last = context.compactionId ? store.getEntry(context.compactionId) : undefined;
    const previous = last?.type === "compaction" ? last : undefined;
    const messages = previous?.summary ? context.messages.slice(1) : context.messages;
    const ids = previous?.summary ? context.entryIds.slice(1) : context.entryIds;
    const result = await compactMessages({
      ...options,
      messages,
      previousSummary: previous?.summary || undefined,
      previousFiles: previous,
    });
    if (!result.compacted) return result;

    // "summary" drops everything before the cut; "truncate" keeps all and removes old outputs.
    const firstKept = result.strategy === "summary" ? result.cutIndex : 0;
    const removed = new Set([...result.truncatedIndices.map((i) => ids[i]), ...(previous?.truncatedEntryIds ?? [])]);
    const truncatedEntryIds = ids.slice(firstKept).filter((id) => removed.has(id));
    const entry = store.append({
      type: "compaction",
      summary: result.summary,
      firstKeptEntryId: ids[firstKept],
      tokensBefore: result.tokensBefore,
      tokensAfter: result.tokensAfter,
      filesRead: result.filesRead,
      filesModified: result.filesModified,
      strategy: result.strategy,
      ...(truncatedEntryIds.length ? { truncatedEntryIds } : {}),
    });
    return { ...result, entry };
  });
}
