import { afterEach, beforeEach, expect, test } from "bun:test";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionStore } from "../../lib/store/index.ts";
import { assistant, tempDir, treeProblems, user } from "./helpers.ts";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

function sessionWith(count: number, text = (i: number) => `message ${i}`) {
  const store = SessionStore.create({ cwd: "/r", dir: tmp.dir });
  const entries = Array.from({ length: count }, (_, i) =>
    store.appendMessage(i % 2 ? assistant(text(i)) : user(text(i))),
  );
  store.close();
  return { path: store.path!, entries };
}

test("5.1 torn last line is skipped with a warning and does not break the next append", () => {
  const { path, entries } = sessionWith(4);
  appendFileSync(
    path,
    `{"type":"message","id":"abcd1234","parentId":"${entries[3].id}","timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"us`,
  );
  const store = SessionStore.open(path);
  expect(store.warnings).toEqual([{ line: 6, message: expect.stringContaining("torn last line") }]);
  expect(store.buildContext().messages).toHaveLength(4);
  expect(store.leafId).toBe(entries[3].id);
  const next = store.appendMessage(user("after the crash"));
  store.close();
  const lines = readFileSync(path, "utf8").split("\n");
  expect(lines[6]).toStartWith(`{"type":"message","id":"${next.id}"`); // on its own line
  const reopened = SessionStore.open(path);
  expect(reopened.warnings).toEqual([{ line: 6, message: expect.stringContaining("corrupt entry") }]);
  expect(reopened.buildContext().messages.map((m) => m.content)).toContain("after the crash");
  expect(reopened.buildContext().messages).toHaveLength(5);
  expect(treeProblems(reopened)).toEqual([]);
  reopened.close();
});

test("5.1 corrupt line in the middle is reported with its line number and the rest loads", () => {
  const { path, entries } = sessionWith(6);
  const lines = readFileSync(path, "utf8").split("\n");
  lines[3] = "{not json at all";
  writeFileSync(path, lines.join("\n"));
  const store = SessionStore.open(path);
  expect(store.warnings.map((w) => w.line)).toEqual([4, 5]);
  expect(store.warnings[0].message).toContain("line 4: corrupt entry");
  expect(store.warnings[1].message).toContain(`attached to "${entries[1].id}"`);
  const texts = store
    .buildContext()
    .messages.map((m) => (typeof m.content === "string" ? m.content : (m.content[0] as { text: string }).text));
  expect(texts).toEqual(["message 0", "message 1", "message 3", "message 4", "message 5"]);
  expect(treeProblems(store)).toEqual([]);
  store.close();
});

test("5.1 large file: a body outside the kept range is never read; a corrupt kept body is reported", () => {
  const big = "z".repeat(100_000);
  const { path, entries } = sessionWith(50, (i) => `message ${i} ${big}`); // ~5 MB: bodies are not parsed at load
  const store = SessionStore.open(path);
  store.branch(entries[49].id);
  store.append({
    type: "compaction",
    summary: "s",
    firstKeptEntryId: entries[45].id,
    tokensBefore: 1,
    tokensAfter: 1,
    filesRead: [],
    filesModified: [],
    strategy: "summary",
  });
  store.close();
  // Break the body of entry 10 (before the kept range) and of entry 47 (inside it), keeping prefix and closing brace.
  const text = readFileSync(path, "utf8")
    .replace("message 10 z", 'message 10 "z')
    .replace("message 47 z", 'message 47 "z');
  writeFileSync(path, text);
  const reopened = SessionStore.open(path);
  expect(reopened.warnings).toEqual([]);
  const ctx = reopened.buildContext();
  expect(ctx.messages).toHaveLength(1 + 4);
  expect(reopened.warnings).toEqual([{ line: 49, message: "line 49: corrupt entry body (not valid JSON)" }]);
  reopened.close();
});

test("5.1 kill -9 while appending: the file loads and every complete entry is present", async () => {
  const script = join(import.meta.dir, "append-loop.ts");
  // Killed below; should the test fail before that, `await using` stops it.
  await using child = Bun.spawn([process.execPath, script, tmp.dir], { stdout: "pipe", stderr: "pipe" });
  const reader = child.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  const path = out.trim();
  expect(path).toEndWith(".jsonl");
  while (readFileSync(path).length < 400_000) await Bun.sleep(5);
  child.kill("SIGKILL");
  await child.exited;
  expect(child.signalCode).toBe("SIGKILL");

  const raw = readFileSync(path, "utf8");
  const complete = raw
    .slice(0, raw.lastIndexOf("\n") + 1)
    .split("\n")
    .filter(Boolean);
  const completeIds = complete.slice(1).map((line) => JSON.parse(line).id as string);
  const store = SessionStore.open(path);
  expect(store.warnings.length).toBeLessThanOrEqual(1); // at most the torn last line
  if (!raw.endsWith("\n")) expect(store.warnings[0].message).toContain("torn last line");
  const loaded = [...store.entries()].map((e) => e.id);
  expect(loaded).toEqual(completeIds);
  expect(store.buildContext().messages).toHaveLength(completeIds.length);
  const next = store.appendMessage(user("resumed"));
  store.close();
  const again = SessionStore.open(path);
  expect(again.leafId).toBe(next.id);
  expect(again.buildContext().messages).toHaveLength(completeIds.length + 1);
  again.close();
});
