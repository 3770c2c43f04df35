/**
 * Compaction (docs/conformance.md: 003 §6, J.12): token estimates, the cut point, the summary
 * request with its fallback, and the lock. The agent decides when to call `compact`.
 */
export {
  compact,
  compactMessages,
  type CompactMessagesOptions,
  type CompactMessagesResult,
  type CompactOptions,
  type CompactResult,
} from "./compact.ts";
export { findCutPoint, pinnedCount } from "./cut.ts";
export { extractFileOps, fileLists, formatFileLists, type FileOps } from "./file-ops.ts";
export { CompactionInProgressError, CompactionLock, lockFor } from "./lock.ts";
export {
  SUMMARY_SYSTEM,
  TOOL_OUTPUT_CHARS,
  serializeConversation,
  summarize,
  summaryPrompt,
  type SummarizeOptions,
} from "./summary.ts";
export {
  CHARS_PER_TOKEN,
  CJK_TOKENS_PER_CHAR,
  DEFAULT_KEEP_RECENT_TOKENS,
  DEFAULT_RESERVE_TOKENS,
  IMAGE_TOKENS,
  estimateMessageTokens,
  estimateTokens,
  shouldCompact,
  textTokens,
} from "./tokens.ts";
