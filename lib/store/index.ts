/**
 * Session files: tree-structured JSONL written entry by entry, loaded through an offset index.
 * See session-store.ts for the store, format.ts for the file format.
 */
export * from "./format.ts";
export { buildContext, summaryMessage, branchSummaryMessage, withOutputRemoved, REMOVED_OUTPUT_NOTE, type SessionContext } from "./context.ts";
export { listSessions, findSession, deleteSession, resolveSession, latestSessionPath, readSessionInfo, type SessionInfo } from "./list.ts";
export { MIGRATIONS, headerVersion, loadAndMigrate, type RawSession } from "./migrate.ts";
export { encodeCwd, gongHome, sessionDir, sessionFileName, sessionsRoot, idFromFileName, type LocationOptions } from "./paths.ts";
export { scanSession, type IndexRecord, type ScanResult } from "./reader.ts";
export { SessionStore, type CreateOptions, type OpenOptions, type StoreOptions } from "./session-store.ts";
export { describeEntry, type TreeNode } from "./tree.ts";
export { SessionWriter, type WriterOptions } from "./writer.ts";
export { SessionLockedError, isSessionLocked } from "./lock.ts";

import { SessionStore, type CreateOptions, type OpenOptions, type StoreOptions } from "./session-store.ts";

/** A new session (nothing is written until the first entry). */
export function createSession(options: CreateOptions): SessionStore {
  return SessionStore.create(options);
}

/** Opens a session by file path or id prefix. */
export function openSession(idOrPath: string, options: OpenOptions = {}): SessionStore {
  return SessionStore.open(idOrPath, options);
}

/** The latest session of `cwd`, or a new one. */
export function continueLatest(cwd: string, options: StoreOptions = {}): SessionStore {
  return SessionStore.continueLatest(cwd, options);
}
