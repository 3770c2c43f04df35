/**
 * SessionStore: one session as a tree of entries, written to its JSONL file as things happen.
 *
 * The store keeps an offset index (id → parent, type, byte offset, length) and reads entry bodies
 * from the file only when asked, so opening a large session costs one streaming pass plus the
 * bodies of the active branch's kept entries. `persist: false` gives the same API with no file.
 * The file itself is created on the first append (an untouched new session leaves nothing behind).
 */
import { closeSync, openSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Message } from "../llm/types.ts";
import { buildContext, type SessionContext } from "./context.ts";
import {
  CURRENT_VERSION,
  entryProblem,
  newEntryId,
  serializeEntry,
  serializeHeader,
  type BranchSummaryEntry,
  type Entry,
  type EntryInput,
  type InjectedOrigin,
  type LabelEntry,
  type LoadWarning,
  type MessageEntry,
  type SessionHeader,
} from "./format.ts";
import { latestSessionPath, resolveSession } from "./list.ts";
import { gitBranchOf } from "./git-branch.ts";
import { headerVersion, loadAndMigrate } from "./migrate.ts";
import { idFromFileName, sessionDir, sessionFileName, type LocationOptions } from "./paths.ts";
import { acquireSessionLock } from "./lock.ts";
import { checkedSessionFile } from "./session-file-guard.ts";
import { readBody, scanSession, type IndexRecord } from "./reader.ts";
import { buildTree, pathTo, type TreeNode } from "./tree.ts";
import { SessionWriter, type WriterOptions } from "./writer.ts";

export interface StoreOptions extends LocationOptions, WriterOptions {
  /** false: keep every entry in memory and write no file (same API). Default true. */
  persist?: boolean;
  /**
   * Hold the session file's lock (`<file>.lock`, see lock.ts) while the store writes it, so a second
   * process cannot write the same session: opening a session another live process holds throws
   * SessionLockedError. Default true.
   */
  lock?: boolean;
}

export interface CreateOptions extends StoreOptions {
  cwd: string;
  /** Path (or id) of the session this one continues from. */
  parentSession?: string;
  /** With parentSession: the parent's tool call that spawned this session (a child agent). */
  spawnedBy?: string;
  /** The session's id (a UUID the host chose, as Claude Code's --session-id); default a new one. */
  id?: string;
}

export interface OpenOptions extends StoreOptions {
  /** Where to look first when opening by id prefix; also the cwd of a file without a header. */
  cwd?: string;
}

interface State {
  header: SessionHeader;
  path: string | undefined;
  records: Map<string, IndexRecord>;
  order: IndexRecord[];
  lines: number;
  /** Loaded from an older version: the file is rewritten before the first append. */
  pendingRewrite: boolean;
}

export class SessionStore {
  /** Problems found while loading (torn or corrupt lines, missing parents) and later reads. */
  readonly warnings: LoadWarning[];
  private state: State;
  private leaf: string | null;
  private readonly fsync: boolean;
  private writer: SessionWriter | undefined;
  private readFd: number | undefined;
  private readonly unreadable = new Set<string>();
  private readonly locking: boolean;
  private releaseLock: (() => void) | undefined;

  private constructor(state: State, warnings: LoadWarning[], fsync: boolean, locking = true) {
    this.state = state;
    this.warnings = warnings;
    this.fsync = fsync;
    this.locking = locking;
    this.leaf = state.order.length ? state.order[state.order.length - 1].id : null;
    this.writer = state.path ? new SessionWriter(state.path, { fsync }) : undefined;
  }

  /** A new, empty session for `cwd`. Nothing is written until the first append. */
  static create(options: CreateOptions): SessionStore {
    const { header, created } = newHeader(resolve(options.cwd), options.parentSession, options.spawnedBy, options.id);
    const path =
      options.persist === false
        ? undefined
        : join(sessionDir(options.cwd, options), sessionFileName(header.id, created));
    return new SessionStore(
      { header, path, records: new Map(), order: [], lines: 0, pendingRewrite: false },
      [],
      options.fsync ?? false,
      options.lock !== false,
    );
  }

  /** Opens a session (a file path, a session name of `cwd`, or an id prefix: see resolveSession) and indexes it. */
  static open(idOrPath: string, options: OpenOptions = {}): SessionStore {
    // Only a session file (or an empty one) is written as a session: checked before the lock is taken.
    const path = checkedSessionFile(resolveSession(idOrPath, options), options);
    // Refuse a session another live process is writing before reading a byte of it.
    const release = options.lock !== false ? acquireSessionLock(path) : undefined;
    try {
      const store = SessionStore.load(path, options);
      store.releaseLock = release;
      return store;
    } catch (e) {
      release?.();
      throw e;
    }
  }

  private static load(path: string, options: OpenOptions): SessionStore {
    const warnings: LoadWarning[] = [];
    const head = scanSession(path, { headerOnly: true });
    let order: IndexRecord[];
    let lines: number;
    let raw: Record<string, unknown> | undefined = head.header;
    const upgrade = raw !== undefined && headerVersion(raw) !== CURRENT_VERSION;
    if (upgrade) {
      const migrated = loadAndMigrate(path, warnings);
      raw = migrated.header;
      order = migrated.entries.map((entry) => memoryRecord(entry as unknown as Entry));
      lines = 0;
    } else {
      const scan = scanSession(path);
      warnings.push(...scan.warnings);
      order = scan.records;
      lines = scan.lines;
    }
    const header: SessionHeader = {
      type: "session",
      version: CURRENT_VERSION,
      id: typeof raw?.id === "string" ? raw.id : (idFromFileName(path) ?? crypto.randomUUID()),
      timestamp: typeof raw?.timestamp === "string" ? raw.timestamp : statSync(path).birthtime.toISOString(),
      cwd: typeof raw?.cwd === "string" ? raw.cwd : resolve(options.cwd ?? "."),
      ...(typeof raw?.gitBranch === "string" ? { gitBranch: raw.gitBranch } : {}),
      ...(typeof raw?.parentSession === "string" ? { parentSession: raw.parentSession } : {}),
      ...(typeof raw?.spawnedBy === "string" ? { spawnedBy: raw.spawnedBy } : {}),
    };
    const records = indexRecords(order, warnings);
    if (records.size !== order.length) order = [...records.values()]; // duplicates were dropped
    return new SessionStore(
      { header, path, records, order, lines, pendingRewrite: upgrade },
      warnings,
      options.fsync ?? false,
      options.lock !== false,
    );
  }

  /** The most recently modified session of `cwd`, or a new one when it has none. */
  static continueLatest(cwd: string, options: StoreOptions = {}): SessionStore {
    const latest = options.persist === false ? undefined : latestSessionPath(cwd, options);
    return latest ? SessionStore.open(latest, { ...options, cwd }) : SessionStore.create({ ...options, cwd });
  }

  get id(): string {
    return this.state.header.id;
  }

  /** The file written to; undefined for an in-memory store. Changes after `fork`. */
  get path(): string | undefined {
    return this.state.path;
  }

  get cwd(): string {
    return this.state.header.cwd;
  }

  get header(): SessionHeader {
    return { ...this.state.header };
  }

  /** The last entry of the active branch (null for an empty session). New entries hang from it. */
  get leafId(): string | null {
    return this.leaf;
  }

  /** Number of entries in the session (every branch). */
  get size(): number {
    return this.state.order.length;
  }

  /** Appends an entry under the leaf (filling id, parentId, timestamp), writes it, and makes it the leaf. */
  append<T extends EntryInput>(input: T): T & Entry {
    const { type, ...body } = input;
    const entry = {
      type,
      id: newEntryId(this.state.records),
      parentId: this.leaf,
      timestamp: new Date().toISOString(),
      ...body,
    } as unknown as T & Entry;
    this.write(entry);
    this.leaf = entry.id;
    return entry;
  }

  appendMessage(message: Message): MessageEntry {
    return this.append({ type: "message", message });
  }

  /** A user-role message the loop injected (steering, a loop warning), kept apart from user input. */
  appendInjected(message: Message, origin: InjectedOrigin): Entry {
    return this.append({ type: "injected", origin, message });
  }

  setModel(model: string): Entry {
    return this.append({ type: "model_change", model });
  }

  setThinkingLevel(thinkingLevel: string): Entry {
    return this.append({ type: "thinking_level_change", thinkingLevel });
  }

  /** Extension data (a `custom` entry, never part of the model's context). */
  appendCustom(customType: string, data: unknown): Entry {
    return this.append({ type: "custom", customType, data });
  }

  /** Data of the latest `custom` entry of `customType` on the active branch, if any. */
  latestCustom(customType: string): unknown {
    const path = pathTo(this.state.records, this.leaf);
    for (let i = path.length - 1; i >= 0; i--) {
      if (path[i].type !== "custom") continue;
      const entry = this.read(path[i]);
      if (entry?.type === "custom" && entry.customType === customType) return entry.data;
    }
    return undefined;
  }

  /** Names the session (a `session_info` entry; the latest one wins). */
  setName(name: string): Entry {
    return this.append({ type: "session_info", name });
  }

  /** Sets a label on an entry, or clears it when `label` is empty or omitted. */
  label(targetId: string, label?: string): LabelEntry {
    this.requireEntry(targetId);
    return this.append({ type: "label", targetId, ...(label ? { label } : {}) });
  }

  /** The session's name: the latest `session_info` entry. */
  get name(): string | undefined {
    for (let i = this.state.order.length - 1; i >= 0; i--) {
      if (this.state.order[i].type !== "session_info") continue;
      const entry = this.read(this.state.order[i]);
      if (entry?.type === "session_info") return entry.name;
    }
    return undefined;
  }

  /** Current labels: entry id → label. */
  labels(): Map<string, string> {
    const labels = new Map<string, string>();
    for (const record of this.state.order) {
      if (record.type !== "label") continue;
      const entry = this.read(record);
      if (entry?.type !== "label") continue;
      if (entry.label) labels.set(entry.targetId, entry.label);
      else labels.delete(entry.targetId);
    }
    return labels;
  }

  has(id: string): boolean {
    return this.state.records.has(id);
  }

  /** One entry's body (read from the file), or undefined when unknown or unreadable. */
  getEntry(id: string): Entry | undefined {
    const record = this.state.records.get(id);
    return record ? this.read(record) : undefined;
  }

  /** Every entry in file order, read one at a time. */
  *entries(): Generator<Entry> {
    for (const record of this.state.order) {
      const entry = this.read(record);
      if (entry) yield entry;
    }
  }

  /** The entries from the root to `leafId` (default: the leaf). */
  branchEntries(leafId: string | null = this.leaf): Entry[] {
    return [...this.walkBranch(leafId)];
  }

  /** The same entries read one at a time, so a large session is never held in memory at once (exports). */
  *walkBranch(leafId: string | null = this.leaf): Generator<Entry> {
    for (const record of pathTo(this.state.records, leafId)) {
      const entry = this.read(record);
      if (entry) yield entry;
    }
  }

  /** What the LLM sees on the active branch (see lib/store/context.ts). */
  buildContext(): SessionContext {
    return buildContext(pathTo(this.state.records, this.leaf), (r) => this.read(r), this.warnings);
  }

  /**
   * Moves the leaf to `entryId`: the next entry continues from there (same file). With a summary,
   * a `branch_summary` entry describing the abandoned path is appended first and becomes the leaf.
   */
  branch(entryId: string, options: { summary?: string } = {}): BranchSummaryEntry | undefined {
    this.requireEntry(entryId);
    const fromId = this.leaf;
    this.leaf = entryId;
    if (options.summary === undefined || fromId === null) return undefined;
    return this.append({ type: "branch_summary", fromId, summary: options.summary });
  }

  /**
   * Copies the root-to-`entryId` path into a new session file (header `parentSession` = this file)
   * and switches the store to it: from now on only the new file is written.
   */
  fork(entryId: string): { id: string; path: string | undefined } {
    this.requireEntry(entryId);
    const entries = this.branchEntries(entryId);
    const { header, created } = newHeader(this.cwd, this.state.path ?? this.id);
    const path = this.state.path ? join(dirname(this.state.path), sessionFileName(header.id, created)) : undefined;
    this.close(); // the old file is no longer written: its lock goes too
    let order: IndexRecord[] = entries.map(memoryRecord);
    if (path) {
      this.writer = new SessionWriter(path, { fsync: this.fsync });
      const spans = this.writer.rewrite([serializeHeader(header), ...entries.map(serializeEntry)]);
      order = entries.map((entry, i) => ({
        id: entry.id,
        parentId: entry.parentId,
        type: entry.type,
        offset: spans[i + 1].offset,
        length: spans[i + 1].length,
        line: i + 2,
      }));
    }
    const records = new Map(order.map((r) => [r.id, r]));
    this.state = { header, path, records, order, lines: order.length + 1, pendingRewrite: false };
    this.leaf = entryId;
    return { id: header.id, path };
  }

  /** The whole tree (every branch) for a /tree view, with one-line texts and labels. */
  tree(): TreeNode[] {
    return buildTree(this.state.order, (r) => this.read(r), this.labels());
  }

  /** Releases the file handles and the lock (the store can still be used; they are taken again on demand). */
  close(): void {
    this.closeFiles();
    this.releaseLock?.();
    this.releaseLock = undefined;
  }

  private closeFiles(): void {
    this.writer?.close();
    if (this.readFd !== undefined) closeSync(this.readFd);
    this.readFd = undefined;
  }

  private requireEntry(id: string): void {
    if (!this.state.records.has(id)) throw new Error(`no entry "${id}" in session ${this.id}`);
  }

  private write(entry: Entry): void {
    const { state } = this;
    const record = memoryRecord(entry);
    if (this.writer) {
      if (this.locking && !this.releaseLock) this.releaseLock = acquireSessionLock(this.writer.path);
      delete record.entry;
      if (state.pendingRewrite) this.rewriteUpgraded();
      if (state.lines === 0) {
        this.writer.append(serializeHeader(state.header));
        state.lines = 1;
      }
      const span = this.writer.append(serializeEntry(entry));
      state.lines += 1;
      Object.assign(record, span, { line: state.lines });
    }
    state.records.set(record.id, record);
    state.order.push(record);
  }

  /** First write to an upgraded old file: replace it, in the current version, atomically. */
  private rewriteUpgraded(): void {
    const { state } = this;
    const entries = state.order.map((r) => r.entry as Entry);
    const spans = this.writer!.rewrite([serializeHeader(state.header), ...entries.map(serializeEntry)]);
    state.order.forEach((record, i) => {
      Object.assign(record, spans[i + 1], { line: i + 2 });
      delete record.entry;
    });
    state.lines = spans.length;
    state.pendingRewrite = false;
    this.closeFiles();
  }

  private read(record: IndexRecord): Entry | undefined {
    try {
      let entry: Entry;
      if (record.entry) entry = record.entry;
      else {
        this.readFd ??= openSync(this.state.path!, "r");
        entry = readBody(this.readFd, record);
      }
      const problem = entryProblem(entry);
      if (problem) throw new Error(record.line ? `line ${record.line}: ${problem}` : problem);
      // A parent repaired at load (see indexRecords) wins over the one on disk.
      return entry.parentId === record.parentId ? entry : { ...entry, parentId: record.parentId };
    } catch (error) {
      if (!this.unreadable.has(record.id)) {
        this.unreadable.add(record.id);
        this.warnings.push({ line: record.line, message: (error as Error).message });
      }
      return undefined;
    }
  }
}

/** A header for a new session file, and the time its file name carries. */
function newHeader(
  cwd: string,
  parentSession?: string,
  spawnedBy?: string,
  id?: string,
): { header: SessionHeader; created: Date } {
  const created = new Date();
  const header: SessionHeader = {
    type: "session",
    version: CURRENT_VERSION,
    id: id ?? crypto.randomUUID(),
    timestamp: created.toISOString(),
    cwd,
  };
  const branch = gitBranchOf(cwd);
  if (branch !== undefined) header.gitBranch = branch;
  if (parentSession !== undefined) header.parentSession = parentSession;
  if (spawnedBy !== undefined) header.spawnedBy = spawnedBy;
  return { header, created };
}

/** The index record of an entry held in memory (not, or not yet, at a known place in a file). */
function memoryRecord(entry: Entry): IndexRecord {
  return { id: entry.id, parentId: entry.parentId, type: entry.type, offset: -1, length: 0, line: 0, entry };
}

/**
 * Id → record in file order. Duplicate ids are dropped. An entry whose parent is missing (its line
 * was lost) is attached to the entry before it in the file — the right parent in a linear session —
 * so the context still reaches back past the lost line.
 */
function indexRecords(order: IndexRecord[], warnings: LoadWarning[]): Map<string, IndexRecord> {
  const records = new Map<string, IndexRecord>();
  let previous: IndexRecord | undefined;
  for (const record of order) {
    if (records.has(record.id)) {
      warnings.push({ line: record.line || undefined, message: `duplicate entry id "${record.id}" ignored` });
      continue;
    }
    if (record.parentId !== null && !records.has(record.parentId)) {
      const adopted = previous?.id ?? null;
      warnings.push({
        line: record.line || undefined,
        message: `entry "${record.id}" follows "${record.parentId}", which is missing; attached to ${adopted ? `"${adopted}", the entry before it` : "the root"}`,
      });
      record.parentId = adopted;
    }
    records.set(record.id, record);
    previous = record;
  }
  return records;
}
