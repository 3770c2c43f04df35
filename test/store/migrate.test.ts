import { afterEach, beforeEach, expect, test } from "bun:test";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CURRENT_VERSION, SessionStore } from "../../lib/store/index.ts";
import { tempDir, treeProblems, user } from "./helpers.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "sessions", "v0.jsonl");
let tmp: ReturnType<typeof tempDir>;
let path: string;
beforeEach(() => {
  tmp = tempDir();
  path = join(tmp.dir, "2025-01-10T09-00-00-000Z_0f1e2d3c-4b5a-4968-8776-655443322110.jsonl");
  copyFileSync(FIXTURE, path);
});
afterEach(() => tmp.cleanup());

test("5.1 migration from v0 upgrades in memory and leaves the file alone until written", () => {
  const store = SessionStore.open(path);
  expect(store.warnings).toEqual([]);
  expect(store.header).toMatchObject({
    version: CURRENT_VERSION,
    id: "0f1e2d3c-4b5a-4968-8776-655443322110",
    cwd: "/work/demo",
  });
  const entries = [...store.entries()];
  expect(entries).toHaveLength(4);
  expect(entries.map((e) => e.parentId)).toEqual([null, entries[0].id, entries[1].id, entries[2].id]);
  expect(entries[0].timestamp).toBe("2025-01-10T09:00:00.000Z");
  expect(treeProblems(store)).toEqual([]);
  const ctx = store.buildContext();
  expect(ctx.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  expect(readFileSync(path, "utf8")).toBe(readFileSync(FIXTURE, "utf8"));
  store.close();
});

test("5.1 migration: the first append rewrites the file in the current version, then appends", () => {
  const store = SessionStore.open(path);
  const before = store.buildContext();
  const next = store.appendMessage(user("and now?"));
  store.close();
  const lines = readFileSync(path, "utf8").trimEnd().split("\n");
  expect(lines).toHaveLength(6);
  expect(JSON.parse(lines[0]).version).toBe(CURRENT_VERSION);
  for (const line of lines.slice(1)) expect(line).toMatch(/^\{"type":"[a-z_]+","id":"[0-9a-f]{8}","parentId":/);
  const reopened = SessionStore.open(path);
  expect(reopened.warnings).toEqual([]);
  expect(reopened.buildContext().messages).toEqual([...before.messages, user("and now?")]);
  expect(reopened.leafId).toBe(next.id);
  expect(treeProblems(reopened)).toEqual([]);
  reopened.close();
});

test("5.1 a file from a newer version is refused with a clear error", () => {
  writeFileSync(
    path,
    `{"type":"session","version":${CURRENT_VERSION + 1},"id":"x","timestamp":"2030-01-01T00:00:00.000Z","cwd":"/"}\n`,
  );
  expect(() => SessionStore.open(path)).toThrow(/written by a newer gong/);
});
