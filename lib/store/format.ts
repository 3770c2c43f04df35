/**
 * The session file format (docs/conformance.md: 003 §5.1): one JSON object per line. Line 1 is the
 * header; every later line is an entry whose `parentId` points at an earlier entry, so the file
 * holds a tree and the active branch is the path from the root to the leaf.
 *
 * Entries are always serialised with `type`, `id`, `parentId`, `timestamp` first (in that order):
 * the loader reads those four from the start of each line without parsing the body.
 */
import type { Message } from "../llm/types.ts";

/** The version this code writes. Older files are upgraded by lib/store/migrate.ts. */
export const CURRENT_VERSION = 1;

export interface SessionHeader {
  type: "session";
  version: number;
  /** Session id (a UUID); also the tail of the file name. */
  id: string;
  /** ISO 8601 creation time. */
  timestamp: string;
  /** Working directory the session belongs to. */
  cwd: string;
  /** The git branch the working directory was on when the session started. */
  gitBranch?: string;
  /** Path of the session file this one was forked from (or, for a child agent, of its parent's). */
  parentSession?: string;
  /** A child agent's file: the id of the parent's tool call that spawned it. */
  spawnedBy?: string;
}

export interface EntryBase {
  /** 8 lowercase hex characters, unique within the file. */
  id: string;
  /** The entry this one follows; null only for the root. */
  parentId: string | null;
  /** ISO 8601. */
  timestamp: string;
}

/** A user message, an assistant turn (with its usage) or a tool result. */
export interface MessageEntry extends EntryBase {
  type: "message";
  message: Message;
}

/** Where an injected user-role message came from: the host's steer(), or the loop detector's warning. */
export type InjectedOrigin = "steering" | "loop_detection";

/**
 * A user-role message the user did not type at the prompt (the spec's SteeringTurn;
 * docs/conformance.md: 004 §9.6.3): steering injected between tool rounds, or the loop detector's
 * warning. The model sees it as a user message; a resumed session (and anything reading the file)
 * can tell it from user input.
 */
export interface InjectedEntry extends EntryBase {
  type: "injected";
  origin: InjectedOrigin;
  message: Message;
}

export interface ModelChangeEntry extends EntryBase {
  type: "model_change";
  /** "provider/model-id" */
  model: string;
}

export interface ThinkingLevelChangeEntry extends EntryBase {
  type: "thinking_level_change";
  thinkingLevel: string;
}

export interface CompactionEntry extends EntryBase {
  type: "compaction";
  /** Summary of everything before `firstKeptEntryId` (empty when `strategy` is "truncate" and no summary existed). */
  summary: string;
  /** First entry whose message stays verbatim in the context. */
  firstKeptEntryId: string;
  tokensBefore: number;
  tokensAfter: number;
  filesRead: string[];
  filesModified: string[];
  /** "summary": an LLM summary replaced the old part; "truncate": the summary failed, old tool outputs were removed. */
  strategy: "summary" | "truncate";
  /** Entries whose tool-result content is replaced by a short note when the context is built ("truncate" only). */
  truncatedEntryIds?: string[];
}

/** Written when the user leaves a branch: what happened on the path that was abandoned. */
export interface BranchSummaryEntry extends EntryBase {
  type: "branch_summary";
  /** The leaf of the abandoned path. */
  fromId: string;
  summary: string;
}

/** Sets (or with no `label`, clears) a label on `targetId`. */
export interface LabelEntry extends EntryBase {
  type: "label";
  targetId: string;
  label?: string;
}

/** Extension data; never part of the LLM context. */
export interface CustomEntry extends EntryBase {
  type: "custom";
  customType: string;
  data?: unknown;
}

export interface SessionInfoEntry extends EntryBase {
  type: "session_info";
  name: string;
}

export type Entry =
  | MessageEntry
  | InjectedEntry
  | ModelChangeEntry
  | ThinkingLevelChangeEntry
  | CompactionEntry
  | BranchSummaryEntry
  | LabelEntry
  | CustomEntry
  | SessionInfoEntry;

export type EntryType = Entry["type"];

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** What a caller hands to `append`: an entry without the fields the store fills in. */
export type EntryInput = DistributiveOmit<Entry, keyof EntryBase>;

/** A problem found while loading; loading goes on. `line` is 1-based. */
export interface LoadWarning {
  line?: number;
  message: string;
}

/** One JSON line (no newline) with the fixed field order the loader relies on. */
export function serializeEntry(entry: Entry): string {
  const { type, id, parentId, timestamp, ...rest } = entry;
  return JSON.stringify({ type, id, parentId, timestamp, ...rest });
}

export function serializeHeader(header: SessionHeader): string {
  const { type, version, id, timestamp, cwd, gitBranch, parentSession, spawnedBy } = header;
  return JSON.stringify({ type, version, id, timestamp, cwd, gitBranch, parentSession, spawnedBy });
}

/** A fresh 8-hex-character id not already in `taken`. */
export function newEntryId(taken: { has(id: string): boolean }): string {
  for (;;) {
    const bytes = crypto.getRandomValues(new Uint8Array(4));
    const id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    if (!taken.has(id)) return id;
  }
}

const ROLES = new Set(["user", "assistant", "tool"]);

/**
 * Why a parsed entry cannot be used, or undefined when it can. Valid JSON is not enough: a message
 * entry whose `message` is null or missing would break every later load of the session, so such an
 * entry is skipped (with a warning) like a torn line.
 */
export function entryProblem(entry: Entry): string | undefined {
  if (entry.type !== "message" && entry.type !== "injected") return undefined;
  const message = (entry as { message?: unknown }).message;
  if (message === null || typeof message !== "object" || Array.isArray(message))
    return `message entry "${entry.id}" has no message object; skipped`;
  const role = (message as { role?: unknown }).role;
  if (typeof role !== "string" || !ROLES.has(role))
    return `message entry "${entry.id}" has no valid role (user, assistant or tool); skipped`;
  return undefined;
}
