import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { SessionStore, encodeCwd, scanSession } from "../../lib/store/index.ts";
import { assistant, conversation, tempDir, toolResult, treeProblems, user } from "./helpers.ts";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

const newStore = () => SessionStore.create({ cwd: "/work/main", dir: join(tmp.dir, "sessions") });

/** A compaction that summarised everything before `firstKeptEntryId`. */
function appendCompaction(store: SessionStore, firstKeptEntryId: string) {
  return store.append({
    type: "compaction",
    summary: "did steps 0-1",
    firstKeptEntryId,
    tokensBefore: 500,
    tokensAfter: 200,
    filesRead: [],
    filesModified: [],
    strategy: "summary",
  });
}

describe("writing", () => {
  test("5.1 header first, then entries with type, id, parentId, timestamp in that order", () => {
    const store = newStore();
    expect(existsSync(store.path!)).toBe(false); // nothing written before the first entry
    const a = store.appendMessage(user("hello"));
    const b = store.appendMessage(assistant("hi"));
    store.close();
    const lines = readFileSync(store.path!, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    const header = JSON.parse(lines[0]);
    expect(header).toMatchObject({ type: "session", version: 1, id: store.id, cwd: "/work/main" });
    expect(lines[1].startsWith(`{"type":"message","id":"${a.id}","parentId":null,"timestamp":"`)).toBe(true);
    expect(JSON.parse(lines[2])).toMatchObject({
      type: "message",
      id: b.id,
      parentId: a.id,
      message: { role: "assistant" },
    });
    expect(b.message).toMatchObject({ usage: { input: 100, output: 20 } });
    expect(store.leafId).toBe(b.id);
    expect(treeProblems(store)).toEqual([]);
  });

  test("5.1 every append is on disk before append returns", () => {
    const store = newStore();
    for (let i = 0; i < 5; i++) {
      store.appendMessage(user(`m${i}`));
      expect(readFileSync(store.path!, "utf8").trimEnd().split("\n")).toHaveLength(i + 2);
    }
    store.close();
  });

  test("5.1 file lives under GONG_HOME/sessions/<encoded cwd>", () => {
    const saved = process.env.GONG_HOME;
    process.env.GONG_HOME = join(tmp.dir, "home");
    try {
      const store = SessionStore.create({ cwd: "/work/main" });
      store.appendMessage(user("x"));
      store.close();
      expect(dirname(store.path!)).toBe(join(tmp.dir, "home", "sessions", "--work-main--"));
      expect(store.path!).toMatch(/\/\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_[0-9a-f-]{36}\.jsonl$/);
      expect(encodeCwd("/work/my project:1")).toBe("--work-my-project-1--");
    } finally {
      if (saved === undefined) delete process.env.GONG_HOME;
      else process.env.GONG_HOME = saved;
    }
  });

  test("5.1 home option wins over GONG_HOME", () => {
    const store = SessionStore.create({ cwd: "/a/b", home: join(tmp.dir, "h2") });
    expect(store.path!.startsWith(join(tmp.dir, "h2", "sessions", "--a-b--"))).toBe(true);
  });
});

describe("resume", () => {
  test("5.1 resume equals the live context (messages, model, thinking level, leaf)", () => {
    const store = newStore();
    store.setModel("anthropic/claude-sonnet-4-5");
    store.setThinkingLevel("high");
    for (const m of conversation(3)) store.appendMessage(m);
    store.setName("demo");
    const live = store.buildContext();
    store.close();
    const resumed = SessionStore.open(store.path!);
    expect(resumed.warnings).toEqual([]);
    expect(resumed.buildContext()).toEqual(live);
    expect(live.messages).toHaveLength(12);
    expect(live.model).toBe("anthropic/claude-sonnet-4-5");
    expect(live.thinkingLevel).toBe("high");
    expect(resumed.name).toBe("demo");
    resumed.close();
  });

  test("5.1 open by id prefix and continueLatest pick the right file", async () => {
    const dir = join(tmp.dir, "sessions");
    const first = SessionStore.create({ cwd: "/p", dir });
    first.appendMessage(user("first"));
    first.close();
    await Bun.sleep(15);
    const second = SessionStore.create({ cwd: "/p", dir });
    second.appendMessage(user("second"));
    second.close();
    const opened = SessionStore.open(first.id.slice(0, 8), { dir });
    expect(opened.path).toBe(first.path);
    opened.close();
    const latest = SessionStore.continueLatest("/p", { dir });
    expect(latest.id).toBe(second.id);
    expect(latest.buildContext().messages).toEqual([user("second")]);
    const fresh = SessionStore.continueLatest("/p", { dir: join(tmp.dir, "empty") });
    expect(fresh.size).toBe(0);
  });

  test("5.1 resume after compaction starts with the summary, then the first kept entry", () => {
    const store = newStore();
    const msgs = conversation(4);
    const entries = msgs.map((m) => store.appendMessage(m));
    appendCompaction(store, entries[8].id);
    store.appendMessage(user("next"));
    store.close();
    const resumed = SessionStore.open(store.path!);
    const ctx = resumed.buildContext();
    expect(ctx.messages[0]).toMatchObject({ role: "user" });
    expect(String(ctx.messages[0].content)).toContain("did steps 0-1");
    expect(ctx.messages.slice(1)).toEqual([...msgs.slice(8), user("next")]);
    expect(ctx.entryIds[1]).toBe(entries[8].id);
    resumed.close();
  });
});

describe("branching", () => {
  test("5.1 branch moves the leaf; new entries hang from it; branch summary recorded", () => {
    const store = newStore();
    const a = store.appendMessage(user("a"));
    const b = store.appendMessage(assistant("b"));
    store.appendMessage(user("c"));
    const d = store.appendMessage(assistant("d"));
    const summary = store.branch(b.id, { summary: "tried c, it failed" });
    expect(summary).toMatchObject({ type: "branch_summary", parentId: b.id, fromId: d.id });
    const e = store.appendMessage(user("e"));
    expect(e.parentId).toBe(summary!.id);
    const ctx = store.buildContext();
    expect(ctx.messages.map((m) => (typeof m.content === "string" ? m.content : "asst"))).toEqual([
      "a",
      "asst",
      expect.stringContaining("tried c, it failed"),
      "e",
    ]);
    expect(treeProblems(store)).toEqual([]);
    store.close();
    const resumed = SessionStore.open(store.path!);
    expect(resumed.buildContext()).toEqual(ctx);
    const tree = resumed.tree();
    expect(tree).toHaveLength(1);
    expect(tree[0].id).toBe(a.id);
    expect(tree[0].children[0].children.map((n) => n.type).sort()).toEqual(["branch_summary", "message"]);
    resumed.close();
  });

  test("5.1 branch without summary then append; fork writes the root-to-entry path to a new file", () => {
    const store = newStore();
    const a = store.appendMessage(user("a"));
    const b = store.appendMessage(assistant("b"));
    store.appendMessage(user("c"));
    store.branch(a.id);
    const x = store.appendMessage(assistant("x"));
    expect(x.parentId).toBe(a.id);
    const oldPath = store.path!;
    const oldSize = readFileSync(oldPath).length;
    const forked = store.fork(b.id);
    expect(forked.path).not.toBe(oldPath);
    expect(store.path).toBe(forked.path);
    expect(store.header.parentSession).toBe(oldPath);
    expect(store.buildContext().messages).toEqual([user("a"), assistant("b")]);
    const y = store.appendMessage(user("y"));
    expect(y.parentId).toBe(b.id);
    expect(readFileSync(oldPath).length).toBe(oldSize); // the old file is no longer written
    store.close();
    const reopened = SessionStore.open(forked.path!);
    expect(reopened.header.parentSession).toBe(oldPath);
    expect(reopened.buildContext().messages).toEqual([user("a"), assistant("b"), user("y")]);
    expect(treeProblems(reopened)).toEqual([]);
    reopened.close();
  });

  test("5.1 branch and fork after a compaction: before it the full history, after it the summary", () => {
    const store = newStore();
    const msgs = conversation(4);
    const entries = msgs.map((m) => store.appendMessage(m));
    const compaction = appendCompaction(store, entries[8].id);
    const next = store.appendMessage(user("next"));
    const compacted = store.buildContext();
    expect(compacted.compactionId).toBe(compaction.id);

    store.branch(entries[9].id); // back before the compaction: nothing is summarised on this path
    expect(store.buildContext().messages).toEqual(msgs.slice(0, 10));
    expect(store.buildContext().compactionId).toBeUndefined();
    store.appendMessage(user("other way"));
    expect(store.buildContext().messages).toEqual([...msgs.slice(0, 10), user("other way")]);

    store.branch(next.id);
    expect(store.buildContext()).toEqual(compacted);
    const forked = store.fork(next.id);
    expect(store.buildContext()).toEqual(compacted);
    store.close();
    const reopened = SessionStore.open(forked.path!);
    expect(reopened.buildContext()).toEqual(compacted);
    expect(reopened.size).toBe(msgs.length + 2); // the abandoned "other way" entry is not copied
    expect(treeProblems(reopened)).toEqual([]);
    reopened.close();
  });

  test("5.1 branch to an unknown entry is a clear error", () => {
    const store = newStore();
    store.appendMessage(user("a"));
    expect(() => store.branch("deadbeef")).toThrow(/no entry "deadbeef"/);
    store.close();
  });
});

describe("two stores on one file", () => {
  test("5.1 interleaved appends from two stores: each reads back its own entries, the file reloads whole", () => {
    const a = newStore();
    const root = a.appendMessage(user("root"));
    const b = SessionStore.open(a.path!);
    const a1 = a.appendMessage(assistant("from a"));
    const b1 = b.appendMessage(assistant("from b"));
    const a2 = a.appendMessage(user("a again"));
    const b2 = b.appendMessage(user("b again"));
    expect(a.buildContext().messages).toEqual([user("root"), assistant("from a"), user("a again")]);
    expect(b.buildContext().messages).toEqual([user("root"), assistant("from b"), user("b again")]);
    expect([a.warnings, b.warnings]).toEqual([[], []]);
    a.close();
    b.close();
    const reopened = SessionStore.open(a.path!);
    expect(reopened.warnings).toEqual([]);
    expect(reopened.size).toBe(5);
    expect(treeProblems(reopened)).toEqual([]);
    expect(reopened.branchEntries(a2.id).map((e) => e.id)).toEqual([root.id, a1.id, a2.id]);
    expect(reopened.branchEntries(b2.id).map((e) => e.id)).toEqual([root.id, b1.id, b2.id]);
    reopened.close();
  });
});

describe("labels, names, in-memory", () => {
  test("5.1 labels set, replaced and cleared; name is the latest session_info", () => {
    const store = newStore();
    const a = store.appendMessage(user("a"));
    const b = store.appendMessage(assistant("b"));
    store.label(a.id, "start");
    store.label(b.id, "answer");
    store.label(a.id, "beginning");
    store.label(b.id);
    store.setName("one");
    store.setName("two");
    expect([...store.labels()]).toEqual([[a.id, "beginning"]]);
    expect(store.name).toBe("two");
    expect(() => store.label("00000000", "x")).toThrow(/no entry/);
    store.close();
    const reopened = SessionStore.open(store.path!);
    expect([...reopened.labels()]).toEqual([[a.id, "beginning"]]);
    expect(reopened.tree()[0].label).toBe("beginning");
    expect(reopened.name).toBe("two");
    reopened.close();
  });

  test("5.1 persist:false keeps the same API without touching the disk", () => {
    const store = SessionStore.create({ cwd: "/p", dir: join(tmp.dir, "none"), persist: false });
    expect(store.path).toBeUndefined();
    const a = store.appendMessage(user("a"));
    store.appendMessage(assistant("b"));
    store.appendMessage(toolResult("c1", "read", "out"));
    store.branch(a.id, { summary: "went elsewhere" });
    store.label(a.id, "first");
    expect(store.buildContext().messages).toHaveLength(2);
    const forked = store.fork(a.id);
    expect(forked.path).toBeUndefined();
    expect(store.buildContext().messages).toEqual([user("a")]);
    expect(treeProblems(store)).toEqual([]);
    expect(existsSync(join(tmp.dir, "none"))).toBe(false);
  });

  test("5.1 ids are 8 hex characters and unique across many entries", () => {
    const store = newStore();
    for (let i = 0; i < 2000; i++) store.appendMessage(user(String(i)));
    store.close();
    expect(treeProblems(store)).toEqual([]);
    expect(scanSession(store.path!).records).toHaveLength(2000);
  });
});
