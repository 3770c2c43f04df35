import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  AmbiguousSessionError,
  SessionNotFoundError,
  SessionStore,
  deleteSession,
  findSession,
  listSessions,
  resolveSession,
} from "../../lib/store/index.ts";
import { assistant, tempDir, user } from "./helpers.ts";

let tmp: ReturnType<typeof tempDir>;
let home: string;
beforeEach(() => {
  tmp = tempDir();
  home = join(tmp.dir, "home");
});
afterEach(() => tmp.cleanup());

function make(cwd: string, first: string, mtime: number, extra: (s: SessionStore) => void = () => {}) {
  const store = SessionStore.create({ cwd, home });
  store.appendMessage(user(first));
  store.appendMessage(assistant("ok"));
  extra(store);
  store.close();
  utimesSync(store.path!, mtime, mtime);
  return store;
}

test("5.1 listSessions: newest first, first message, name, count; filtered by cwd", () => {
  const a = make("/proj/a", "  fix   the\nbuild  ", 1_000_000);
  const b = make("/proj/a", "x".repeat(300), 3_000_000, (s) => s.setName("long one"));
  const c = make("/proj/c", "other project", 2_000_000);
  const listed = listSessions("/proj/a", { home });
  expect(listed.map((s) => s.id)).toEqual([b.id, a.id]);
  expect(listed[1]).toMatchObject({
    id: a.id,
    path: a.path,
    cwd: "/proj/a",
    firstMessage: "fix the build",
    messageCount: 2,
  });
  expect(listed[1].name).toBeUndefined();
  expect(listed[0].name).toBe("long one");
  expect(listed[0].firstMessage.length).toBeLessThanOrEqual(100);
  expect(listed[0].updated.getTime()).toBe(3_000_000_000);
  expect(listed[0].size).toBeGreaterThan(300);
  expect(listSessions(undefined, { home }).map((s) => s.id)).toEqual([b.id, c.id, a.id]);
});

test("5.1 listing a large session reads its head and tail: name set at the end is found", () => {
  const store = SessionStore.create({ cwd: "/big", home });
  store.appendMessage(user("the first question"));
  for (let i = 0; i < 40; i++) store.appendMessage(assistant("y".repeat(10_000)));
  store.setName("renamed late");
  store.close();
  const [info] = listSessions("/big", { home });
  expect(info).toMatchObject({ firstMessage: "the first question", name: "renamed late", messageCount: undefined });
});

test("5.1 findSession by prefix, ambiguity and absence; deleteSession removes the file", () => {
  const a = make("/p", "one", 1_000_000);
  expect(findSession(a.id.slice(0, 6), { home })).toBe(a.path!);
  expect(() => findSession("", { home, cwd: "/p" })).not.toThrow(); // a single session: the empty prefix is unique
  make("/p", "two", 2_000_000);
  expect(() => findSession("", { home })).toThrow(/ambiguous/);
  expect(() => findSession("zzzz", { home })).toThrow(/no session with id "zzzz"/);
  expect(deleteSession(a.id, { home })).toBe(a.path!);
  expect(existsSync(a.path!)).toBe(false);
  expect(listSessions("/p", { home })).toHaveLength(1);
});

test("5.1 resolveSession: a file path (relative to cwd), a session name of cwd, an id prefix; typed errors when none or several match", () => {
  const a = make("/p", "one", 1_000_000, (s) => s.setName("feature-x"));
  const b = make("/p", "two", 2_000_000);
  expect(resolveSession("feature-x", { home, cwd: "/p" })).toBe(a.path!);
  expect(resolveSession(b.id.slice(0, 8), { home, cwd: "/p" })).toBe(b.path!);
  expect(resolveSession(b.path!.split("/").at(-1)!, { home, cwd: join(b.path!, "..") })).toBe(b.path!);
  const missingFile = (() => {
    try {
      resolveSession("gone/old.jsonl", { home, cwd: "/p" });
    } catch (e) {
      return e;
    }
  })();
  expect(missingFile).toBeInstanceOf(SessionNotFoundError);
  expect(missingFile).toMatchObject({ ref: "gone/old.jsonl", file: true });
  expect(() => resolveSession("no-such-name", { home, cwd: "/p" })).toThrow(SessionNotFoundError);
  const ambiguous = (() => {
    try {
      resolveSession("", { home, cwd: "/p" });
    } catch (e) {
      return e;
    }
  })();
  expect(ambiguous).toBeInstanceOf(AmbiguousSessionError);
  expect((ambiguous as AmbiguousSessionError).ids.sort()).toEqual([a.id, b.id].sort());
});

test("5.1 GONG_HOME is honoured by listing and finding", () => {
  const saved = process.env.GONG_HOME;
  process.env.GONG_HOME = home;
  try {
    const s = make("/env", "via env", 1_000_000);
    expect(listSessions("/env").map((x) => x.id)).toEqual([s.id]);
    expect(findSession(s.id.slice(0, 8))).toBe(s.path!);
  } finally {
    if (saved === undefined) delete process.env.GONG_HOME;
    else process.env.GONG_HOME = saved;
  }
});

test("5.1 a session whose header line is corrupt is still listed (id from the file name) and opens", () => {
  const damaged = make("/proj/d", "recover me", 2_000_000);
  const intact = make("/proj/d", "intact", 1_000_000);
  const lines = readFileSync(damaged.path!, "utf8").split("\n");
  lines[0] = lines[0].slice(0, 20); // torn header
  writeFileSync(damaged.path!, lines.join("\n"));
  utimesSync(damaged.path!, 2_000_000, 2_000_000);
  const listed = listSessions("/proj/d", { home });
  expect(listed.map((s) => s.id)).toEqual([damaged.id, intact.id]);
  expect(listed[0]).toMatchObject({ headerDamaged: true, cwd: "/proj/d", firstMessage: "recover me", messageCount: 2 });
  expect(listed[1].headerDamaged).toBeUndefined();
  expect(listSessions(undefined, { home }).find((s) => s.id === damaged.id)?.headerDamaged).toBe(true);
  const opened = SessionStore.open(damaged.id, { home, cwd: "/proj/d" });
  expect(opened.warnings).toEqual([
    { line: 1, message: "line 1 is not a readable session header; the file name gives the session id" },
  ]);
  expect(opened.buildContext().messages).toEqual([user("recover me"), assistant("ok")]);
  opened.close();
});
