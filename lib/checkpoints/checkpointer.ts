/**
 * Checkpoints of one workspace tied to session files. A checkpoint is a `custom` entry
 * (customType "checkpoint") written just before each user message, so the entry id names the turn
 * and moving the leaf to it is rewinding the conversation to just before that turn. What gong last
 * saw of the workspace (a checkpoint taken when an input ends) is kept per session in the store:
 * a file differing from it was changed outside gong.
 */
import { join } from "node:path";
import { textOf } from "../llm/types.ts";
import { firstLine } from "../output/cut.ts";
import type { CustomEntry } from "../store/format.ts";
import type { SessionStore } from "../store/session-store.ts";
import {
  applyChanges,
  conflictsOf,
  planRestore,
  recover,
  RewindConflictError,
  RewindError,
  type FileChange,
} from "./restore.ts";
import { collectGarbage, gcDue } from "./gc.ts";
import { checkpointSettings, type CheckpointSettings } from "./settings.ts";
import { Snapshotter, type Snapshot } from "./snapshot.ts";
import { CheckpointStore, type Manifest, type SkipReason } from "./store.ts";

export const CHECKPOINT_ENTRY = "checkpoint";

/** Why a checkpoint was taken: before a user turn, or of the workspace a rewind replaced (its undo). */
export type CheckpointReason = "turn" | "rewind";

/** The data of a checkpoint entry in the session file. */
export interface CheckpointRecord {
  manifest: string;
  reason: CheckpointReason;
  files: number;
  bytes: number;
  /** Paths left out other than ignored ones (too large, past the checkpoint's cap, unreadable), at most 50. */
  skipped: { path: string; reason: SkipReason }[];
  /** How many ignored paths (topmost: an ignored folder counts once) were left out. */
  ignored: number;
}

export interface CheckpointInfo extends CheckpointRecord {
  /** The checkpoint entry's id: what rewind() takes. */
  id: string;
  timestamp: string;
  /** 1-based number among the user turns of the active branch; null off it or for a rewind's undo point. */
  turn: number | null;
  /** The first line of the user message that followed, if any. */
  prompt?: string;
  /** On the conversation's active branch. */
  active: boolean;
}

export interface RewindOptions {
  /** Put the files back (default true). */
  files?: boolean;
  /** Move the conversation back (default true). */
  conversation?: boolean;
  /** Overwrite files changed outside gong since it last saw them (default false: refuse and list them). */
  force?: boolean;
}

export interface RewindPreview {
  target: CheckpointInfo;
  changes: FileChange[];
  /** Paths among the changes that were changed outside gong. */
  conflicts: string[];
}

export interface RewindResult extends RewindPreview {
  /** The checkpoint entry of the state before the rewind: rewind to it to undo this one. */
  undoId: string;
  files: boolean;
  conversation: boolean;
}

export interface TakenCheckpoint {
  entryId: string | undefined;
  record: CheckpointRecord;
  snapshot: Snapshot;
}

const MAX_LISTED_SKIPS = 50;

export class Checkpointer {
  readonly store: CheckpointStore;
  readonly settings: CheckpointSettings;
  private readonly snapshotter: Snapshotter;
  private pruneChecked = false;

  constructor(
    readonly root: string,
    options: { home?: string; settings?: Partial<CheckpointSettings> } = {},
  ) {
    this.store = new CheckpointStore(options.home);
    this.settings = checkpointSettings(options.settings);
    this.snapshotter = new Snapshotter(this.store, root, this.settings);
  }

  /** A rewind of this workspace killed halfway is undone (the workspace as it was before it); true when there was one. */
  recoverInterrupted(): boolean {
    return recover(this.store, this.root);
  }

  /** Checkpoints the workspace and records it in the session file (through `append`, which returns the entry id). */
  take(reason: CheckpointReason, append: (record: CheckpointRecord) => string | undefined): TakenCheckpoint {
    recover(this.store, this.root);
    this.pruneWhenDue();
    const snapshot = this.snapshotter.take();
    const record = recordOf(snapshot, reason);
    return { entryId: append(record), record, snapshot };
  }

  /** Notes the workspace as gong leaves it at the end of an input (what "changed outside gong" is measured against). */
  markSeen(sessionId: string): void {
    const { id } = this.snapshotter.take();
    this.store.writeAtomic(this.seenPath(sessionId), id);
  }

  /** Every checkpoint of the session file, in file order. */
  list(session: SessionStore): CheckpointInfo[] {
    const active = new Set(session.branchEntries().map((e) => e.id));
    const prompts = new Map<string, string>();
    const found: { entry: CustomEntry; record: CheckpointRecord }[] = [];
    for (const entry of session.entries()) {
      if (entry.type === "custom" && entry.customType === CHECKPOINT_ENTRY)
        found.push({ entry, record: entry.data as CheckpointRecord });
      else if (entry.type === "message" && entry.message.role === "user" && entry.parentId)
        prompts.set(entry.parentId, firstLine(textOf(entry.message.content, " "), 80));
    }
    let turn = 0;
    return found.map(({ entry, record }) => {
      const onBranch = active.has(entry.id);
      const isTurn = onBranch && record.reason === "turn";
      return {
        ...record,
        id: entry.id,
        timestamp: entry.timestamp,
        turn: isTurn ? ++turn : null,
        prompt: prompts.get(entry.id),
        active: onBranch,
      };
    });
  }

  /**
   * The checkpoint `ref` names: a checkpoint entry id (or a unique prefix), the id of the user
   * message that followed one, or a turn number of the active branch (negative counts from the end).
   */
  resolve(session: SessionStore, ref: string | number): CheckpointInfo {
    const all = this.list(session);
    const turns = all.filter((c) => c.turn !== null);
    const count = `${turns.length} turn${turns.length === 1 ? "" : "s"}`;
    // Up to four digits name a turn, never the start of an id.
    const asNumber = typeof ref === "number" ? ref : /^-?\d{1,4}$/.test(ref) ? Number(ref) : undefined;
    if (asNumber !== undefined) {
      const hit = asNumber > 0 ? turns[asNumber - 1] : asNumber < 0 ? turns[turns.length + asNumber] : undefined;
      if (hit) return hit;
      throw new RewindError(
        `There is no turn ${asNumber}: this session has ${count} (1 to ${turns.length}, or -1 for the last; list them with checkpoints).`,
      );
    }
    const text = String(ref);
    const user = session.getEntry(text);
    if (user?.type === "message" && user.parentId) {
      const hit = all.find((c) => c.id === user.parentId);
      if (hit) return hit;
    }
    const matches = all.filter((c) => c.id.startsWith(text));
    if (matches.length === 1) return matches[0];
    throw new RewindError(
      matches.length > 1
        ? `'${text}' matches ${matches.length} checkpoints; give more of the id.`
        : `No checkpoint '${text}' in this session (${count} to choose from; list them with checkpoints).`,
    );
  }

  /** What rewinding the files to `ref` would change, and which of those files were changed outside gong. Touches nothing in the workspace. */
  preview(
    session: SessionStore,
    ref: string | number,
  ): RewindPreview & { current: Snapshot; targetManifest: Manifest } {
    recover(this.store, this.root);
    const target = this.resolve(session, ref);
    const targetManifest = this.store.readManifest(target.manifest);
    const current = this.snapshotter.take();
    const changes = planRestore(current.manifest, targetManifest);
    const conflicts = conflictsOf(changes, current.manifest, this.seen(session.id));
    return { target, changes, conflicts, current, targetManifest };
  }

  /**
   * Rewinds the files and/or the conversation to checkpoint `ref`. The workspace as it stood is
   * checkpointed first (an entry on the branch being left), so rewinding to `undoId` undoes this.
   * The session store must be open for writing (the caller holds its lock).
   */
  rewind(session: SessionStore, ref: string | number, options: RewindOptions = {}): RewindResult {
    const files = options.files ?? true;
    const conversation = options.conversation ?? true;
    if (!files && !conversation)
      throw new RewindError("Nothing to rewind: choose the files, the conversation or both.");
    // The conversation alone needs nothing from the store but a checkpoint of the files as they are (the undo point).
    const { target, changes, conflicts, current } = files
      ? this.preview(session, ref)
      : { target: this.resolve(session, ref), changes: [], conflicts: [], current: this.snapshotter.take() };
    if (conflicts.length > 0 && !options.force) throw new RewindConflictError(conflicts);
    if (files) {
      applyChanges(changes, { store: this.store, root: this.root, undoId: current.id, targetId: target.manifest });
      this.snapshotter.forgetLast();
    }
    const undo = session.appendCustom(CHECKPOINT_ENTRY, recordOf(current, "rewind"));
    if (conversation) session.branch(target.id);
    this.store.writeAtomic(this.seenPath(session.id), files ? target.manifest : current.id);
    return { target, changes, conflicts, undoId: undo.id, files, conversation };
  }

  /** Once per checkpointer, when gc has not run for a day: prune by the retention and budget settings. */
  private pruneWhenDue(): void {
    if (this.pruneChecked) return;
    this.pruneChecked = true;
    try {
      if (gcDue(this.store)) collectGarbage(this.store, this.settings);
    } catch {
      // Housekeeping: `gong checkpoints gc` says what went wrong.
    }
  }

  private seen(sessionId: string): Manifest | undefined {
    const id = this.store.readText(this.seenPath(sessionId))?.trim();
    if (!id) return undefined;
    try {
      return this.store.readManifest(id);
    } catch {
      return undefined;
    }
  }

  private seenPath(sessionId: string): string {
    return join(this.store.workspaceDir(this.root), "seen", sessionId);
  }
}

function recordOf(snapshot: Snapshot, reason: CheckpointReason): CheckpointRecord {
  const skipped: CheckpointRecord["skipped"] = [];
  let ignored = 0;
  for (const [path, why] of Object.entries(snapshot.manifest.skipped)) {
    if (why === "ignored") ignored++;
    else if (skipped.length < MAX_LISTED_SKIPS) skipped.push({ path, reason: why });
  }
  return { manifest: snapshot.id, reason, files: snapshot.files, bytes: snapshot.bytes, skipped, ignored };
}
