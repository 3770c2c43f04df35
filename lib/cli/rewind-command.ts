/**
 * `gong rewind` and `gong checkpoints gc`: a stored session's checkpoints, listed or rewound to,
 * outside any running session (the session file's lock is taken as for -r), and pruning.
 */
import { resolve } from "node:path";
import { Checkpointer, type CheckpointInfo } from "../checkpoints/checkpointer.ts";
import { collectGarbage } from "../checkpoints/gc.ts";
import { RewindConflictError } from "../checkpoints/restore.ts";
import { latestSessionPath } from "../store/list.ts";
import type { SessionStore } from "../store/session-store.ts";
import type { CliOptions } from "./args.ts";
import { ConfigError } from "../core/errors.ts";
import { openExisting } from "../core/open.ts";
import { EXIT } from "../core/outcome.ts";
import { loadSettings } from "../core/settings.ts";
import type { Io } from "./session-io.ts";
import { describeChanges, lineCounts } from "./rewind-view.ts";

export function rewindCommand(opts: CliOptions, io: Io): number {
  const cwd = resolve(opts.cwd ?? process.cwd());
  const checkpointer = checkpointerFor(cwd);
  const ref = typeof opts.resume === "string" ? opts.resume : opts.session;
  const store = ref ? openExisting(ref, cwd) : openLatestOrSay(cwd);
  try {
    const { to, files, conversation, force } = opts.rewind;
    checkpointer.recoverInterrupted();
    if (to === undefined) {
      listCheckpoints(checkpointer.list(store), store, io);
      return EXIT.ok;
    }
    try {
      const counts = files ? lineCounts(checkpointer.preview(store, to).changes, checkpointer.store, cwd) : undefined;
      const result = checkpointer.rewind(store, to, { files, conversation, force });
      const what = [files ? "files" : "", conversation ? "conversation" : ""].filter(Boolean).join(" and ");
      io.stdout.write(`Rewound the ${what} to ${label(result.target)}.\n`);
      if (files) io.stdout.write(describeChanges(result.changes, counts));
      io.stdout.write(`Undo with: gong rewind -r ${store.id.slice(0, 8)} --to ${result.undoId}\n`);
      return EXIT.ok;
    } catch (e) {
      if (e instanceof RewindConflictError) {
        io.stderr.write(`gong: ${e.message}\n`);
        for (const path of e.paths) io.stderr.write(`  changed outside gong: ${path}\n`);
        return EXIT.failed;
      }
      throw e;
    }
  } finally {
    store.close();
  }
}

export function checkpointsGcCommand(opts: CliOptions, io: Io): number {
  const checkpointer = checkpointerFor(resolve(opts.cwd ?? process.cwd()));
  const r = collectGarbage(checkpointer.store, checkpointer.settings);
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
  io.stdout.write(
    `Removed ${r.checkpointsRemoved} checkpoint(s) and ${r.blobsRemoved} stored file(s) (${mb(r.bytesFreed)}); ${r.checkpointsKept} checkpoint(s) kept, ${mb(r.bytesKept)}.\n`,
  );
  return EXIT.ok;
}

function checkpointerFor(cwd: string): Checkpointer {
  const setting = loadSettings(cwd).settings.checkpoints;
  return new Checkpointer(cwd, { settings: typeof setting === "object" ? setting : undefined });
}

function openLatestOrSay(cwd: string): SessionStore {
  const latest = latestSessionPath(cwd);
  if (!latest)
    throw new ConfigError(
      "No session here to rewind. 'gong sessions' lists this directory's sessions; pick one with -r.",
    );
  return openExisting(latest, cwd);
}

function listCheckpoints(checkpoints: CheckpointInfo[], store: SessionStore, io: Io): void {
  if (checkpoints.length === 0) {
    io.stdout.write(
      `Session ${store.id.slice(0, 8)} has no checkpoints (they are taken before each input from now on).\n`,
    );
    return;
  }
  io.stdout.write(`Checkpoints of session ${store.id.slice(0, 8)} (gong rewind --to TURN or ID):\n`);
  for (const c of checkpoints) {
    const turn = c.turn !== null ? String(c.turn).padStart(4) : "   -";
    const when = c.timestamp.slice(0, 19).replace("T", " ");
    const what = c.reason === "rewind" ? "(before a rewind)" : (c.prompt ?? "");
    io.stdout.write(
      `${turn}  ${c.id}  ${when}  ${String(c.files).padStart(5)} files  ${c.active ? "" : "[other branch] "}${what}\n`,
    );
  }
}

export const label = (c: CheckpointInfo): string =>
  c.turn !== null ? `turn ${c.turn} (${c.id})` : `checkpoint ${c.id}`;
