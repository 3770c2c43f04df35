/**
 * What an export reads: a stored session's header, name and entries, one at a time. Every format
 * takes this, so the command line, the shell's /export and a script export the same way.
 */
import type { Entry, SessionHeader } from "../store/format.ts";
import type { SessionStore } from "../store/session-store.ts";

export interface ExportSource {
  header: SessionHeader;
  name?: string;
  /** The session file, when there is one. */
  path?: string;
  /** The active branch, root first. */
  branch(): Iterable<Entry>;
  /** Every entry of every branch, in file order. */
  all(): Iterable<Entry>;
}

export function sourceOf(store: SessionStore): ExportSource {
  return {
    header: store.header,
    name: store.name,
    path: store.path,
    branch: () => store.walkBranch(),
    all: () => store.entries(),
  };
}

/** A session that cannot be exported in the asked format (it has no conversation yet). */
export class ExportError extends Error {
  override name = "ExportError";
}
