/**
 * Session files: tree-structured JSONL written entry by entry, loaded through an offset index.
 * See session-store.ts for the store, format.ts for the file format.
 */
export * from "./format.ts";
export {
  buildContext,
  summaryMessage,
  branchSummaryMessage,
  withOutputRemoved,
  REMOVED_OUTPUT_NOTE,
  type SessionContext,
} from "./context.ts";
export {
  listSessions,
  findSession,
  deleteSession,
  resolveSession,
  latestSessionPath,
  readSessionInfo,
  SessionNotFoundError,
  AmbiguousSessionError,
  type SessionInfo,
} from "./list.ts";
export { MIGRATIONS, headerVersion, loadAndMigrate, type RawSession } from "./migrate.ts";
export {
  encodeCwd,
  gongHome,
  sessionDir,
  sessionFileName,
  sessionsRoot,
  idFromFileName,
  type LocationOptions,
} from "./paths.ts";
export { scanSession, type IndexRecord, type ScanResult } from "./reader.ts";
export { SessionStore, type CreateOptions, type OpenOptions, type StoreOptions } from "./session-store.ts";
export { describeEntry, type TreeNode } from "./tree.ts";
export { SessionWriter, type WriterOptions } from "./writer.ts";
export { SessionLockedError } from "./lock.ts";
export { NotASessionFileError } from "./session-file-guard.ts";
