/**
 * `/diff [path]`: what changed in the workspace during this session — the workspace now against
 * the checkpoint taken before the session's first turn — one line per file (A added, M changed,
 * D deleted, with lines +/−), then each text file's diff. The checkpoints store knows the files as
 * they were; nothing in the workspace is touched.
 */
import type { Buffer } from "node:buffer";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createTwoFilesPatch } from "diff";
import type { Session } from "../agent/index.ts";
import { CheckpointStore } from "../checkpoints/store.ts";
import type { FileChange } from "../checkpoints/restore.ts";
import { colorDiff, type Style } from "./render.ts";

/** Files larger than this are listed without their diff. */
const MAX_DIFFED_BYTES = 1024 * 1024;

export interface SessionDiff {
  /** One line per file, then the diffs. */
  lines: string[];
  files: number;
}

/** The session's changes, or a sentence saying why there are none to show. */
export function sessionDiff(session: Session, cwd: string, only: string, style: Style): SessionDiff | string {
  const first = session.checkpoints().find((c) => c.turn === 1);
  if (!first) return "no changes to show: a checkpoint is taken before each input, and none has been yet.\n";
  const store = new CheckpointStore();
  const changes = session
    .previewRewind(first.id)
    .changes.filter((c) => (c.to ?? c.from)?.t !== "d" && (!only || c.path === only || c.path.startsWith(`${only}/`)));
  if (changes.length === 0)
    return only ? `${only}: unchanged since the session began.\n` : "no files changed since the session began.\n";
  const summary: string[] = [];
  const diffs: string[] = [];
  for (const change of changes.sort((a, b) => a.path.localeCompare(b.path))) {
    const { letter, before, after } = sides(change, store, cwd);
    if (before === null || after === null) {
      summary.push(`  ${letter} ${change.path} ${style.dim("(binary or too large to show)")}`);
      continue;
    }
    const patch = createTwoFilesPatch(`a/${change.path}`, `b/${change.path}`, before, after, "", "", { context: 3 });
    // The hunks only: the file's name heads them already.
    const body = patch
      .split("\n")
      .filter((l) => !/^(Index:|===|--- |\+\+\+ )/.test(l))
      .join("\n")
      .trimEnd();
    let added = 0;
    let removed = 0;
    for (const line of body.split("\n")) {
      if (line.startsWith("+") && !line.startsWith("+++")) added++;
      else if (line.startsWith("-") && !line.startsWith("---")) removed++;
    }
    summary.push(`  ${letter} ${change.path} ${style.green(`+${added}`)} ${style.red(`−${removed}`)}`);
    if (body) diffs.push(style.bold(change.path), colorDiff(body, style, Infinity), "");
  }
  return {
    lines: [
      `${changes.length} file${changes.length === 1 ? "" : "s"} changed since the session began:`,
      ...summary,
      "",
      ...diffs,
    ],
    files: changes.length,
  };
}

/** The file as it was when the session began and as it is now ("" when absent; null when binary or too large). */
function sides(
  change: FileChange,
  store: CheckpointStore,
  cwd: string,
): { letter: string; before: string | null; after: string | null } {
  // The change goes from the workspace now (`from`) to the checkpoint (`to`).
  const letter = !change.from ? "D" : !change.to ? "A" : change.action === "chmod" ? "m" : "M";
  const text = (read: () => Buffer): string | null => {
    try {
      const bytes = read();
      return bytes.length > MAX_DIFFED_BYTES || bytes.includes(0) ? null : bytes.toString("utf8");
    } catch {
      return null;
    }
  };
  const before =
    change.to?.t === "f" ? text(() => store.readBlob((change.to as { h: string }).h)) : change.to ? null : "";
  const after = change.from?.t === "f" ? text(() => readFileSync(join(cwd, change.path))) : change.from ? null : "";
  return { letter, before, after };
}
