/**
 * Applying a parsed patch, all or nothing.
 *
 * Every operation is first played against an in-memory overlay of the files it touches (so a
 * later operation on the same file sees the earlier one's result, as codex does): paths are
 * resolved inside the workspace, files read and decoded, hunks located. Only when every
 * operation has succeeded is anything written — each file atomically — and if a write still
 * fails, the files already written are put back. codex applies operations one by one and stops
 * at the first failure, leaving earlier files changed; gong never leaves a half-applied patch.
 */
import { ToolError } from "../../lib/envelope.ts";
import type { ExecutionEnvironment } from "../../lib/env/types.ts";
import { type FileDiff, updateDiff, wholeFileDiff } from "./diff.ts";
import type { ChunkLine, ParsedPatch, PatchOp, UpdateChunk, UpdateFileOp } from "./parser.ts";
import { LineIndex, type MatchLevel, seekSequence } from "./seek.ts";
import { type Replacement, TextFile } from "./text.ts";

export type FileOperation = "A" | "M" | "D" | "R";

export interface FileChange {
  /** A added, M modified, D deleted, R moved (and maybe modified). */
  op: FileOperation;
  /** Workspace-relative path (the source of a move). */
  path: string;
  /** Workspace-relative destination of a move. */
  movePath?: string;
  added: number;
  removed: number;
  /** An add or a move that overwrote a file already there (codex overwrites too; the result says so). */
  replaced?: boolean;
  /** Unified diff of this operation ("" when nothing changed inside the file). */
  diff: string;
}

/** A hunk located by a fuzzy pass rather than exactly. */
export interface FuzzyHunk {
  path: string;
  /** Patch line of the hunk. */
  line: number;
  level: Exclude<MatchLevel, "exact">;
}

export interface PatchOutcome {
  changes: FileChange[];
  fuzzy: FuzzyHunk[];
}

/** What a path is in the overlay: a file's text (or its bytes, not yet decoded), nothing, or a directory. */
type Entry =
  | { kind: "file"; text: string; mode?: number }
  | { kind: "absent" }
  | { kind: "dir" }
  | { kind: "unread"; bytes: Uint8Array; mode?: number };

interface Touched {
  absolute: string;
  relative: string;
  /** Bytes before the patch (null: did not exist) — what a failed commit restores. */
  original: Uint8Array | null;
  entry: Entry;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export interface ApplyOptions {
  signal?: AbortSignal;
  /**
   * Let an `@@` line name the first line the hunk changes, as the spec's own multi-hunk example
   * does (docs/conformance.md: 004 Appendix A) (default true). codex rejects such hunks; false
   * makes gong reject them too.
   */
  headerMayNameChangedLine?: boolean;
}

/** Check every operation, then write; throws ToolError (nothing written) on any problem. */
export async function applyParsedPatch(
  patch: ParsedPatch,
  env: ExecutionEnvironment,
  options: ApplyOptions = {},
): Promise<PatchOutcome> {
  const { signal } = options;
  const leniency = { headerMayNameChangedLine: options.headerMayNameChangedLine ?? true };
  if (patch.ops.length === 0) {
    throw new ToolError(
      "INVALID_PARAM",
      "The patch has no file operations between '*** Begin Patch' and '*** End Patch'; nothing was changed. Add an '*** Add File:', '*** Delete File:' or '*** Update File:' section.",
    );
  }
  const overlay = new Overlay(env);
  // Read every file the patch names at once; playing the operations then waits on no disk.
  await overlay.prefetch(
    patch.ops.flatMap((op) => [op.path, ...(op.type === "update" && op.movePath !== undefined ? [op.movePath] : [])]),
  );
  const changes: FileChange[] = [];
  const fuzzy: FuzzyHunk[] = [];
  for (const op of patch.ops) {
    if (signal?.aborted) throw new ToolError("EXECUTION_ERROR", "Operation aborted; nothing was changed.");
    changes.push(await playOp(op, overlay, fuzzy, leniency));
  }
  if (signal?.aborted) throw new ToolError("EXECUTION_ERROR", "Operation aborted; nothing was changed.");
  await overlay.commit();
  return { changes, fuzzy };
}

type Leniency = Required<Pick<ApplyOptions, "headerMayNameChangedLine">>;

async function playOp(op: PatchOp, overlay: Overlay, fuzzy: FuzzyHunk[], leniency: Leniency): Promise<FileChange> {
  const where = (path: string) => `Line ${op.line} ('${path}')`;
  if (op.type === "add") {
    const file = await overlay.touch(op.path, op.line);
    if (file.entry.kind === "dir")
      throw new ToolError(
        "IS_DIRECTORY",
        `${where(op.path)}: cannot add the file, '${op.path}' is a directory. Nothing was changed.`,
      );
    const replaced = isFile(file.entry);
    file.entry = { kind: "file", text: op.contents };
    const d = wholeFileDiff(file.relative, TextFile.parse(op.contents).lines, "add");
    return { op: "A", path: file.relative, ...counts(d), ...(replaced ? { replaced } : {}) };
  }
  if (op.type === "delete") {
    const file = await overlay.touch(op.path, op.line);
    // A file that is not text can still be deleted; its diff is then empty.
    let text = "";
    if (file.entry.kind !== "unread" || isUtf8(file.entry.bytes))
      text = existingText(file, op.path, where(op.path), "delete", op.line);
    file.entry = { kind: "absent" };
    const d = wholeFileDiff(file.relative, TextFile.parse(text).lines, "delete");
    return { op: "D", path: file.relative, ...counts(d) };
  }
  return playUpdate(op, overlay, fuzzy, where(op.path), leniency);
}

/** Whether the overlay holds a file there (read or not yet decoded). */
function isFile(entry: Entry): boolean {
  return entry.kind === "file" || entry.kind === "unread";
}

async function playUpdate(
  op: UpdateFileOp,
  overlay: Overlay,
  fuzzy: FuzzyHunk[],
  where: string,
  leniency: Leniency,
): Promise<FileChange> {
  const source = await overlay.touch(op.path, op.line);
  const sourceBytes = source.entry.kind === "unread" ? source.entry.bytes : undefined;
  const before = TextFile.parse(existingText(source, op.path, where, "update", op.line), sourceBytes);
  const replacements = locateChunks(op, before, source.relative, fuzzy, leniency);
  const result = before.withReplacements(replacements);
  const mode = source.entry.kind === "file" ? source.entry.mode : undefined;
  // An ASCII file comes back as bytes: kept undecoded until a later operation needs its text.
  const after: Entry =
    typeof result === "string" ? { kind: "file", text: result, mode } : { kind: "unread", bytes: result, mode };

  if (op.movePath === undefined) {
    // A file rewritten in place keeps its mode by itself; one a previous move created takes its source's.
    source.entry = source.original === null ? after : { ...after, mode: undefined };
    const d = updateDiff(source.relative, source.relative, before.lines, replacements);
    return { op: "M", path: source.relative, ...counts(d) };
  }
  const dest = await overlay.touch(op.movePath, op.line);
  if (dest.entry.kind === "dir")
    throw new ToolError(
      "IS_DIRECTORY",
      `${where}: cannot move to '${op.movePath}', it is a directory. Nothing was changed.`,
    );
  const replaced = dest.absolute !== source.absolute && isFile(dest.entry);
  if (dest.absolute !== source.absolute) source.entry = { kind: "absent" };
  dest.entry = after;
  const d = updateDiff(source.relative, dest.relative, before.lines, replacements);
  return { op: "R", path: source.relative, movePath: dest.relative, ...counts(d), ...(replaced ? { replaced } : {}) };
}

function counts(d: FileDiff): { added: number; removed: number; diff: string } {
  return { added: d.added, removed: d.removed, diff: d.diff };
}

function existingText(file: Touched, path: string, where: string, action: "delete" | "update", line: number): string {
  if (file.entry.kind === "dir")
    throw new ToolError(
      "IS_DIRECTORY",
      `${where}: cannot ${action} '${path}', it is a directory. Nothing was changed.`,
    );
  if (file.entry.kind === "absent") {
    const hint = action === "update" ? " Check the path, or use '*** Add File:' to create it." : " Check the path.";
    throw new ToolError("NOT_FOUND", `${where}: cannot ${action} '${path}', no such file.${hint} Nothing was changed.`);
  }
  if (file.entry.kind === "unread")
    file.entry = { kind: "file", text: decode(file.entry.bytes, file.relative, line), mode: file.entry.mode };
  return file.entry.text;
}

/**
 * Where each hunk goes, as codex decides it: an `@@ <text>` header moves the search past the
 * first line matching it (nested headers one after the other); a hunk without old lines appends
 * to the end of the file; old lines are sought from where the previous hunk ended (a trailing
 * blank old line may be dropped on a second try). Only runs of removed/added lines become
 * replacements: context lines stay byte for byte.
 */
function locateChunks(
  op: UpdateFileOp,
  file: TextFile,
  relative: string,
  fuzzy: FuzzyHunk[],
  leniency: Leniency,
): Replacement[] {
  const index = new LineIndex(file.lines);
  const lines = file.lines;
  const replacements: Replacement[] = [];
  let cursor = 0;
  for (const chunk of op.chunks) {
    let headerAt = -1;
    for (const context of chunk.contexts) {
      const hit = seekSequence(index, [context], cursor, false);
      if (!hit) {
        throw new ToolError(
          "INVALID_PARAM",
          `Line ${chunk.line}: could not find the '@@ ${context}' line in ${relative}${cursor > 0 ? " after the previous hunk" : ""}. Nothing was changed. Read the file and copy the line exactly.`,
        );
      }
      noteFuzzy(hit.level, chunk, relative, fuzzy);
      headerAt = hit.index;
      cursor = hit.index + 1;
    }
    if (chunk.oldLines.length === 0) {
      replacements.push({ start: lines.length, remove: 0, lines: [...chunk.newLines] });
      continue;
    }
    let entries = chunk.lines;
    let hit = seekSequence(index, chunk.oldLines, cursor, chunk.isEndOfFile);
    let oldLength = chunk.oldLines.length;
    if (!hit && chunk.oldLines[chunk.oldLines.length - 1] === "") {
      // The blank last line of a hunk often stands for the file's final newline: retry without it.
      entries = withoutTrailingBlank(chunk);
      oldLength--;
      hit = seekSequence(index, chunk.oldLines.slice(0, -1), cursor, chunk.isEndOfFile);
    }
    if (!hit && headerAt >= 0 && leniency.headerMayNameChangedLine) {
      // The header may name the very line the hunk changes (the spec's own multi-hunk example does;
      // docs/conformance.md: 004 Appendix A): codex rejects that, gong then looks from the header
      // line itself.
      entries = chunk.lines;
      oldLength = chunk.oldLines.length;
      hit = seekSequence(index, chunk.oldLines, headerAt, chunk.isEndOfFile);
    }
    if (!hit) {
      const after =
        chunk.contexts.length > 0
          ? ` after the '@@ ${chunk.contexts[chunk.contexts.length - 1]}' line`
          : cursor > 0
            ? " after the previous hunk"
            : "";
      throw notFound(chunk, relative, chunk.isEndOfFile ? `${after} at the end of the file` : after);
    }
    noteFuzzy(hit.level, chunk, relative, fuzzy);
    replacements.push(...runs(entries, hit.index));
    cursor = hit.index + oldLength;
  }
  replacements.sort((a, b) => a.start - b.start);
  for (let i = 1; i < replacements.length; i++) {
    const prev = replacements[i - 1];
    if (replacements[i].start < prev.start + prev.remove) {
      throw new ToolError(
        "INVALID_PARAM",
        `The hunks for ${relative} overlap: two of them change the same lines. Nothing was changed. Merge them into one hunk.`,
      );
    }
  }
  return replacements;
}

/** The hunk's lines without the blank old line at its end (and the blank new line, if any). */
function withoutTrailingBlank(chunk: UpdateChunk): ChunkLine[] {
  const entries = chunk.lines;
  let oldAt = -1;
  let newAt = -1;
  for (let i = entries.length - 1; i >= 0 && (oldAt < 0 || newAt < 0); i--) {
    if (oldAt < 0 && entries[i].kind !== "+") oldAt = i;
    if (newAt < 0 && entries[i].kind !== "-") newAt = i;
  }
  const dropNew = chunk.newLines.length > 0 && chunk.newLines[chunk.newLines.length - 1] === "";
  const out: ChunkLine[] = [];
  entries.forEach((e, i) => {
    const inOld = e.kind !== "+" && i !== oldAt;
    const inNew = e.kind !== "-" && !(dropNew && i === newAt);
    if (inOld || inNew) out.push({ kind: inOld && inNew ? " " : inOld ? "-" : "+", text: e.text });
  });
  return out;
}

/** Replacements for the removed/added runs of a hunk whose old lines start at `start`. */
function runs(entries: readonly ChunkLine[], start: number): Replacement[] {
  const out: Replacement[] = [];
  let at = start;
  let run: Replacement | null = null;
  for (const e of entries) {
    if (e.kind === " ") {
      if (run) out.push(run);
      run = null;
      at++;
      continue;
    }
    run ??= { start: at, remove: 0, lines: [] };
    if (e.kind === "-") {
      run.remove++;
      at++;
    } else run.lines.push(e.text);
  }
  if (run) out.push(run);
  return out;
}

function noteFuzzy(level: MatchLevel, chunk: UpdateChunk, path: string, fuzzy: FuzzyHunk[]): void {
  if (level !== "exact" && !fuzzy.some((f) => f.line === chunk.line && f.path === path))
    fuzzy.push({ path, line: chunk.line, level });
}

function notFound(chunk: UpdateChunk, relative: string, where: string): ToolError {
  const shown = chunk.oldLines.slice(0, 8).map((l) => `  ${l}`);
  if (chunk.oldLines.length > 8) shown.push(`  … (${chunk.oldLines.length - 8} more)`);
  return new ToolError(
    "INVALID_PARAM",
    `Line ${chunk.line}: could not find the hunk's context and removed lines in ${relative}${where}:\n${shown.join("\n")}\n` +
      "Nothing was changed. Read the file and resend the patch with lines copied exactly from it.",
  );
}

/** The files a patch touches, as they will be after it; reads through to the environment once per file. */
class Overlay {
  /** Every file read, once each. */
  private readonly files: Touched[] = [];
  private readonly loading = new Map<string, Promise<Touched>>();
  private readonly byInput = new Map<string, Promise<Touched>>();

  constructor(private readonly env: ExecutionEnvironment) {}

  /** Start loading these paths; failures surface later, in patch order, from `touch`. */
  async prefetch(paths: string[]): Promise<void> {
    await Promise.allSettled([...new Set(paths)].map((p) => this.touch(p, 0)));
  }

  touch(path: string, line: number): Promise<Touched> {
    const known = this.byInput.get(path);
    if (known) return known.catch(() => this.load(path, line));
    const loading = this.load(path, line);
    this.byInput.set(path, loading);
    return loading;
  }

  private async load(path: string, line: number): Promise<Touched> {
    let resolved: Awaited<ReturnType<ExecutionEnvironment["resolvePath"]>>;
    try {
      resolved = await this.env.resolvePath(path);
    } catch (e) {
      if (e instanceof ToolError)
        throw new ToolError(e.code, `Line ${line} ('${path}'): ${e.message} Nothing was changed.`);
      throw e;
    }
    // Two spellings of one path ("a.txt", "./a.txt") must share one entry, even when loaded at once.
    let file = this.loading.get(resolved.absolute);
    if (!file) {
      file = this.read(resolved.absolute, resolved.relative, resolved.exists);
      this.loading.set(resolved.absolute, file);
    }
    return file;
  }

  private async read(absolute: string, relative: string, exists: boolean): Promise<Touched> {
    const file: Touched = { absolute, relative, original: null, entry: { kind: "absent" } };
    const info = exists ? await this.env.stat(absolute) : null;
    if (info?.type === "dir") file.entry = { kind: "dir" };
    else if (info) {
      const bytes = await this.env.readFile(absolute);
      file.original = bytes;
      file.entry = { kind: "unread", bytes, mode: info.mode };
    }
    this.files.push(file);
    return file;
  }

  /**
   * Delete, then write every changed file (each atomically; deletions first, so a deleted file's
   * path can become a directory). If anything fails, put back what succeeded, then report.
   */
  async commit(): Promise<void> {
    const removals = this.files.filter((f) => f.entry.kind === "absent" && f.original !== null);
    const writes = this.files.filter(
      (f) => f.entry.kind === "file" || (f.entry.kind === "unread" && f.entry.bytes !== f.original),
    );
    const done: Touched[] = [];
    const run = async (files: Touched[], action: (f: Touched) => Promise<void>) => {
      const results = await Promise.allSettled(files.map(action));
      results.forEach((r, i) => {
        if (r.status === "fulfilled") done.push(files[i]);
      });
      const failed = results.findIndex((r) => r.status === "rejected");
      return failed < 0 ? null : { file: files[failed], error: (results[failed] as PromiseRejectedResult).reason };
    };
    const failure =
      (await run(removals, (f) => this.env.removeFile(f.absolute))) ??
      (await run(writes, (f) => {
        const entry = f.entry as { text?: string; bytes?: Uint8Array; mode?: number };
        return this.env.writeFile(
          f.absolute,
          entry.bytes ?? entry.text ?? "",
          entry.mode === undefined ? {} : { mode: entry.mode },
        );
      }));
    if (!failure) return;
    await this.restore(done);
    const e = failure.error;
    const why = e instanceof Error ? e.message : String(e);
    const code = e instanceof ToolError ? e.code : "EXECUTION_ERROR";
    throw new ToolError(
      code,
      `Writing ${failure.file.relative} failed (${why}); the files already written were restored, so nothing was changed.`,
    );
  }

  private async restore(files: Touched[]): Promise<void> {
    for (const file of files) {
      try {
        if (file.original) await this.env.writeFile(file.absolute, file.original);
        else await this.env.removeFile(file.absolute);
      } catch {
        // Best effort: the error reported to the caller names the failed write.
      }
    }
  }
}

function isUtf8(bytes: Uint8Array): boolean {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function decode(bytes: Uint8Array, relative: string, line: number): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new ToolError(
      "BINARY_FILE",
      `Line ${line}: ${relative} is not UTF-8 text, so a patch cannot change it safely. Nothing was changed.`,
    );
  }
}
