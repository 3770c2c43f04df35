/**
 * Issue 28, bad input: an unwritable folder during a rewind, a path that became a directory, a
 * symbolic link leading outside the workspace, a deleted or corrupted store — each is one sentence
 * naming the file, and nothing is half restored (the workspace is exactly as it was).
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { harness, type Harness } from "../agent/harness.ts";
import { CheckpointStoreError } from "../../lib/checkpoints/store.ts";
import { RewindError } from "../../lib/checkpoints/restore.ts";
import { tempDir, type TempDir } from "../helpers/temp.ts";
import { treeOf } from "./tree.ts";

let h: Harness;
let home: TempDir;
let outside: TempDir;

beforeEach(async () => {
  home = tempDir("gong-checkpoints-");
  outside = tempDir("gong-outside-");
  const bash = (command: string) => [{ toolCalls: [{ name: "bash", arguments: { command } }] }, { text: "Done." }];
  h = await harness(
    [...bash("echo 2 >> sub/f.txt && echo 2 >> a.txt && touch sub/g.txt"), ...bash("echo 3 >> a.txt")],
    { checkpoints: { home: home.dir } },
  );
  mkdirSync(join(h.dir, "sub"));
  writeFileSync(join(h.dir, "sub", "f.txt"), "1\n");
  writeFileSync(join(h.dir, "a.txt"), "1\n");
  await h.session.submit("one");
  await h.session.submit("two");
});

afterEach(async () => {
  chmodSync(join(h.dir), 0o755);
  if (readdirSync(h.dir).includes("sub")) chmodSync(join(h.dir, "sub"), 0o755);
  await h.cleanup();
  home.cleanup();
  outside.cleanup();
});

/** Rewinds (forced: these changes were made behind gong's back) and returns the error. */
async function failedRewind(): Promise<Error> {
  const before = treeOf(h.dir);
  const messages = h.session.messages.length;
  let error: Error | undefined;
  try {
    await h.session.rewind(1, { force: true });
  } catch (e) {
    error = e as Error;
  }
  expect(error).toBeDefined();
  expect(treeOf(h.dir)).toEqual(before);
  expect(h.session.messages).toHaveLength(messages);
  expect(readdirSync(h.dir).some((n) => n.startsWith(".gong-rewind-"))).toBe(false);
  return error!;
}

describe("issue-28 bad input", () => {
  test("a path that became a directory", async () => {
    rmSync(join(h.dir, "a.txt"));
    mkdirSync(join(h.dir, "a.txt"));
    writeFileSync(join(h.dir, "a.txt", "inside"), "x");
    const error = await failedRewind();
    expect(error).toBeInstanceOf(RewindError);
    expect(error.message).toBe(
      "Cannot rewind: a.txt is now a directory but was a file at that checkpoint; move it away and rewind again.",
    );
  });

  test("a symbolic link pointing outside the workspace", async () => {
    rmSync(join(h.dir, "sub"), { recursive: true });
    symlinkSync(outside.dir, join(h.dir, "sub"));
    const error = await failedRewind();
    expect(error.message).toBe(
      `Cannot rewind: sub is now a symbolic link to ${outside.dir}, outside the workspace; remove it and rewind again.`,
    );
    expect(readdirSync(outside.dir)).toEqual([]);
  });

  test("a corrupted store", async () => {
    const blobs = join(home.dir, "checkpoints", "blobs");
    // Every stored file of the first checkpoint's a.txt ("1\n") overwritten with other bytes.
    const { sha256 } = await import("../../lib/checkpoints/store.ts");
    const hash = sha256("1\n");
    writeFileSync(join(blobs, hash.slice(0, 2), hash), "garbage");
    const error = await failedRewind();
    expect(error).toBeInstanceOf(CheckpointStoreError);
    expect(error.message).toBe(
      `The checkpoint store file ${join(blobs, hash.slice(0, 2), hash)} is corrupted (its content does not match its name); that checkpoint cannot be restored.`,
    );
  });

  test("a deleted store", async () => {
    const manifest = h.session.checkpoints()[0].manifest;
    rmSync(join(home.dir, "checkpoints"), { recursive: true });
    const error = await failedRewind();
    expect(error.message).toBe(
      `The checkpoint store is missing ${join(home.dir, "checkpoints", "manifests", `${manifest}.json`)} (pruned or deleted); that checkpoint cannot be restored.`,
    );
    // The conversation still goes back: it needs nothing from the store.
    const tree = treeOf(h.dir);
    const { undoId } = await h.session.rewind(1, { files: false });
    expect(h.session.messages).toHaveLength(0);
    // The checkpoint taken then (the undo point) stored everything afresh: its files come back whole.
    writeFileSync(join(h.dir, "a.txt"), "x\n");
    await h.session.rewind(undoId, { force: true });
    expect(treeOf(h.dir)).toEqual(tree);
  });

  // root writes anywhere: as root, cli.test.ts runs this case as an unprivileged user.
  test.skipIf(process.getuid?.() === 0)("an unwritable folder during the rewind", async () => {
    chmodSync(join(h.dir, "sub"), 0o555);
    const error = await failedRewind();
    expect(error).toBeInstanceOf(RewindError);
    expect(error.message).toBe(
      "Cannot rewind: sub/f.txt cannot be written (sub is not writable); nothing was changed.",
    );
  });
});

test("issue-28 GONG_HOME inside the workspace is never part of a checkpoint", async () => {
  const { Checkpointer } = await import("../../lib/checkpoints/checkpointer.ts");
  using ws = tempDir("gong-ws-");
  writeFileSync(join(ws.dir, "a.txt"), "a");
  const checkpointer = new Checkpointer(ws.dir, { home: join(ws.dir, ".gong-home") });
  const first = checkpointer.take("turn", () => undefined);
  const second = checkpointer.take("turn", () => undefined);
  expect(Object.keys(second.snapshot.manifest.entries)).toEqual(["a.txt"]);
  expect(second.snapshot.id).toBe(first.snapshot.id);
});

test("issue-28 the per-checkpoint cap: files past it are listed as skipped and a rewind leaves them alone", async () => {
  const { Checkpointer } = await import("../../lib/checkpoints/checkpointer.ts");
  const { SessionStore } = await import("../../lib/store/session-store.ts");
  using ws = tempDir("gong-ws-");
  using store = tempDir("gong-home-");
  for (const name of ["a.txt", "b.txt", "c.txt"]) writeFileSync(join(ws.dir, name), `${name} v1\n`);
  const session = SessionStore.create({ cwd: ws.dir, persist: false });
  const checkpointer = new Checkpointer(ws.dir, { home: store.dir, settings: { maxFiles: 2 } });
  const first = checkpointer.take("turn", (record) => session.appendCustom("checkpoint", record).id);
  expect(first.record.skipped).toEqual([{ path: "c.txt", reason: "checkpoint-full" }]);
  for (const name of ["a.txt", "b.txt", "c.txt"]) writeFileSync(join(ws.dir, name), `${name} v2\n`);
  checkpointer.rewind(session, first.entryId!, { conversation: false });
  expect(treeOf(ws.dir)).toMatchObject({
    "a.txt": `file:644:${Buffer.from("a.txt v1\n").toString("base64")}`,
    "c.txt": `file:644:${Buffer.from("c.txt v2\n").toString("base64")}`,
  });
});

test("issue-28 gc removes stored files no kept checkpoint needs and keeps the latest checkpoint whole", async () => {
  const { Checkpointer } = await import("../../lib/checkpoints/checkpointer.ts");
  const { collectGarbage } = await import("../../lib/checkpoints/gc.ts");
  const { checkpointSettings } = await import("../../lib/checkpoints/settings.ts");
  const { SessionStore } = await import("../../lib/store/session-store.ts");
  using ws = tempDir("gong-ws-");
  using store = tempDir("gong-home-");
  const session = SessionStore.create({ cwd: ws.dir, persist: false });
  const checkpointer = new Checkpointer(ws.dir, { home: store.dir });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    writeFileSync(join(ws.dir, "a.txt"), `version ${i}\n`);
    ids.push(checkpointer.take("turn", (record) => session.appendCustom("checkpoint", record).id).entryId!);
  }
  // Two hours on, with a retention of one day: nothing is old enough…
  const later = Date.now() + 2 * 60 * 60 * 1000;
  expect(collectGarbage(checkpointer.store, checkpointSettings(), later)).toMatchObject({
    checkpointsRemoved: 0,
    blobsRemoved: 0,
  });
  // …with none, only the latest checkpoint (what the workspace looks like now) and its file stay.
  const r = collectGarbage(checkpointer.store, checkpointSettings({ retentionDays: 0 }), later);
  expect(r).toMatchObject({ checkpointsRemoved: 2, checkpointsKept: 1, blobsRemoved: 2 });
  writeFileSync(join(ws.dir, "a.txt"), "changed\n");
  checkpointer.rewind(session, ids[2], { conversation: false, force: true });
  expect(treeOf(ws.dir)["a.txt"]).toBe(`file:644:${Buffer.from("version 2\n").toString("base64")}`);
  expect(() => checkpointer.rewind(session, ids[0], { conversation: false, force: true })).toThrow(
    /missing .*\(pruned or deleted\)/,
  );
});
