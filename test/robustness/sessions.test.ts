/**
 * Sessions against a hostile world: invalid entries, an unwritable home, two writers, names and
 * references after -r.
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionStore } from "../../lib/store/session-store.ts";
import { CLI, startFakeLlm, useWorkspace, WIRE_APIS } from "../cli/helpers.ts";
import { until } from "../helpers/wait.ts";

const ws = useWorkspace();
const sessionsDir = () => {
  const root = join(ws.home, ".gong", "sessions");
  return join(root, readdirSync(root)[0]);
};
const sessionFiles = () =>
  readdirSync(sessionsDir())
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => join(sessionsDir(), f));
const lastEntryId = (path: string) => JSON.parse(readFileSync(path, "utf8").trim().split("\n").at(-1)!).id as string;

describe("invalid session entries", () => {
  test("a message entry with message null (or none) is skipped with a warning naming its line: -c, -r and the SDK", async () => {
    const fake = await startFakeLlm({
      script: [{ text: "first answer" }, { text: "second answer" }, { text: "third answer" }],
    });
    const flags = WIRE_APIS[0].flags(fake);
    expect((await ws.run([...flags, "-p", "first"])).code).toBe(0);
    const [path] = sessionFiles();
    const lines = readFileSync(path, "utf8").trim().split("\n").length;
    const stamp = new Date().toISOString();
    appendFileSync(
      path,
      `${JSON.stringify({ type: "message", id: "0badc0de", parentId: lastEntryId(path), timestamp: stamp, message: null })}\n`,
    );
    appendFileSync(
      path,
      `${JSON.stringify({ type: "message", id: "0badc0df", parentId: "0badc0de", timestamp: stamp })}\n`,
    );

    const c = await ws.run([...flags, "-c", "-p", "second"]);
    expect(c.code).toBe(0);
    expect(c.stdout).toBe("second answer\n");
    expect(c.stderr).toContain(`line ${lines + 1}: message entry "0badc0de" has no message object; skipped`);
    expect(c.stderr).toContain(`line ${lines + 2}:`);
    // The history still reaches the first exchange.
    expect(JSON.stringify(fake.requests[1].body.messages)).toContain("first answer");

    const id = JSON.parse(readFileSync(path, "utf8").split("\n")[0]).id as string;
    const r = await ws.run([...flags, "-r", id.slice(0, 8), "-p", "third"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`line ${lines + 1}:`);

    const store = SessionStore.open(path);
    try {
      const context = store.buildContext();
      expect(context.messages.some((m) => m.role === "assistant")).toBe(true);
      expect(store.warnings.map((w) => w.line)).toContain(lines + 1);
    } finally {
      store.close();
    }
  }, 30_000);
});

describe("a session that cannot be saved", () => {
  test("unwritable GONG_HOME: one warning line, no session_file in the result, which says it was not saved", async () => {
    const fake = await startFakeLlm({ script: [{ text: "answer" }] });
    const blocker = join(ws.home, "not-a-dir");
    writeFileSync(blocker, "a file where the sessions folder should be\n");
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "hi", "--output-format", "json"], {
      env: { GONG_HOME: blocker },
    });
    expect(r.code).toBe(0);
    const stderr = r.stderr.trim().split("\n");
    expect(stderr.length).toBe(1);
    expect(stderr[0]).toContain("The session file could not be written");
    const result = JSON.parse(r.stdout);
    expect(result.session_file).toBeUndefined();
    expect(result.session_saved).toBe(false);
    expect(result.answer).toBe("answer");
  }, 30_000);

  test("a saved session is named in the result", async () => {
    const fake = await startFakeLlm({ script: [{ text: "answer" }] });
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "hi", "--output-format", "json"]);
    const result = JSON.parse(r.stdout);
    expect(result.session_saved).toBe(true);
    expect(existsSync(result.session_file)).toBe(true);
  }, 30_000);
});

describe("one writer per session", () => {
  test("a second gong -c on a live session gets a clear message and exit 2; --fork branches off on purpose", async () => {
    const fake = await startFakeLlm({
      script: (req) =>
        JSON.stringify(req.body).includes("hold it")
          ? JSON.stringify(req.body.messages).includes("tool_result")
            ? { text: "released" }
            : { toolCalls: [{ name: "bash", arguments: { command: "touch started; sleep 20" } }] }
          : { text: "ok" },
    });
    const flags = WIRE_APIS[0].flags(fake);
    expect((await ws.run([...flags, "-p", "first"])).code).toBe(0);
    const [path] = sessionFiles();
    const holder = Bun.spawn([process.execPath, CLI, ...flags, "-c", "-p", "hold it"], {
      cwd: ws.dir,
      env: ws.env,
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      await until(() => existsSync(join(ws.dir, "started")), "the first command to start");
      expect(readFileSync(`${path}.lock`, "utf8").trim().split(" ")[0]).toBe(String(holder.pid));

      const second = await ws.run([...flags, "-c", "-p", "me too"]);
      expect(second.code).toBe(2);
      expect(second.stderr.trim().split("\n")).toEqual([
        `gong: Session ${path} is in use by another gong process (pid ${holder.pid}; lock file ${path}.lock); wait for it to finish, or branch off it with --fork. If no gong runs there, delete the lock file.`,
      ]);

      const forked = await ws.run([...flags, "-c", "--fork", "-p", "branch off"]);
      expect(forked.code).toBe(0);
      const files = sessionFiles();
      expect(files.length).toBe(2);
      const branch = files.find((f) => f !== path)!;
      expect(JSON.parse(readFileSync(branch, "utf8").split("\n")[0]).parentSession).toBe(path);
      expect(readFileSync(branch, "utf8")).toContain("branch off");
      expect(readFileSync(path, "utf8")).not.toContain("branch off");
    } finally {
      holder.kill("SIGKILL");
      await holder.exited;
    }
    // The holder was killed: its lock is stale and the next run takes it over.
    expect(existsSync(`${path}.lock`)).toBe(true);
    const after = await ws.run([...flags, "-r", path, "-p", "after"]);
    expect(after.code).toBe(0);
    expect(existsSync(`${path}.lock`)).toBe(false);
  }, 30_000);
});

describe("issue 22 item 7: a lock naming a live process that is not its owner", () => {
  for (const format of ["pid only (an older lock)", "pid and start time"] as const) {
    test(`a stale lock whose pid now belongs to another process is taken over: ${format}`, async () => {
      const fake = await startFakeLlm({ script: [{ text: "one" }, { text: "two" }] });
      const flags = WIRE_APIS[0].flags(fake);
      expect((await ws.run([...flags, "-p", "first"])).code).toBe(0);
      const [path] = sessionFiles();
      // A process that is not gong, alive, holding the pid the lock names (a reused pid).
      const other = Bun.spawn(["sleep", "300"], { stdout: "ignore", stderr: "ignore" });
      try {
        if (format === "pid only (an older lock)") {
          writeFileSync(`${path}.lock`, `${other.pid}\n`);
          const anHourAgo = Date.now() / 1000 - 3600; // written before that process started
          utimesSync(`${path}.lock`, anHourAgo, anHourAgo);
        } else {
          writeFileSync(`${path}.lock`, `${other.pid} 1\n`); // its owner started at tick 1 after boot: not this sleep
        }
        const r = await ws.run([...flags, "-c", "-p", "second"]);
        expect(r.stderr).toBe("");
        expect(r.code).toBe(0);
        expect(readFileSync(path, "utf8")).toContain("second");
        expect(existsSync(`${path}.lock`)).toBe(false);
      } finally {
        other.kill("SIGKILL");
        await other.exited;
      }
    }, 30_000);
  }
});

describe("issue 37 defect 6: the lock is written whole", () => {
  // Run by gong: its pid, its lock's text and the names beside the session file.
  const LOOK =
    'echo $PPID > gong.pid; cat "$CONVERSATION.lock" > lock.txt; ls -a "$(dirname "$CONVERSATION")" > seen.txt';
  test("a lock without a pid (created but never written) is waited for and taken over, never reported as pid 0; gong's own lock holds its pid and leaves no temp file", async () => {
    const fake = await startFakeLlm({
      script: (req) =>
        JSON.stringify(req.body).includes("inspect-the-lock")
          ? JSON.stringify(req.body.messages).includes("tool_result")
            ? { text: "inspected" }
            : { toolCalls: [{ name: "bash", arguments: { command: LOOK } }] }
          : { text: "ok" },
    });
    const flags = WIRE_APIS[0].flags(fake);
    expect((await ws.run([...flags, "-p", "first"])).code).toBe(0);
    const [path] = sessionFiles();
    // What a writer that died between creating the lock and writing its pid leaves, a moment ago.
    writeFileSync(`${path}.lock`, "");
    const r = await ws.run([...flags, "-c", "-p", "inspect-the-lock"], { env: { CONVERSATION: path } });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(readFileSync(path, "utf8")).toContain("inspected");
    // While gong ran, its lock named it, and no temp file of the lock was left beside the session.
    const pid = readFileSync(join(ws.dir, "gong.pid"), "utf8").trim();
    expect(readFileSync(join(ws.dir, "lock.txt"), "utf8")).toMatch(new RegExp(`^${pid}( \\d+)?\n$`));
    const seen = readFileSync(join(ws.dir, "seen.txt"), "utf8").trim().split("\n");
    expect(seen.filter((name) => name.includes(".tmp"))).toEqual([]);
    expect(existsSync(`${path}.lock`)).toBe(false);
  }, 30_000);
});

describe("-r names a session", () => {
  test("-r NAME resumes the session named with --name; the next word is the prompt", async () => {
    const fake = await startFakeLlm({ script: [{ text: "one" }, { text: "other" }, { text: "two" }] });
    const flags = WIRE_APIS[0].flags(fake);
    expect((await ws.run([...flags, "--name", "my-feature", "-p", "first"])).code).toBe(0);
    expect((await ws.run([...flags, "-p", "unrelated"])).code).toBe(0);
    const r = await ws.run([...flags, "-r", "my-feature", "-p", "second"]);
    expect(r.code).toBe(0);
    const sent = fake.requests[2].body.messages;
    expect(JSON.stringify(sent)).toContain("first");
    expect(JSON.stringify(sent)).not.toContain("unrelated");
    expect(JSON.stringify(sent.at(-1))).toContain('"second"');
    const list = await ws.run(["sessions"]);
    expect(list.stdout).toContain("my-feature");
  }, 30_000);

  test("-r with an unknown session is exit 2 in one sentence, the prompt is never sent", async () => {
    const fake = await startFakeLlm({ script: [{ text: "x" }] });
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "-r", "my-feature", "-p", "second"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toEqual([
      "gong: No session 'my-feature': it is not a session name, id or file here. 'gong sessions' lists this directory's sessions.",
    ]);
    expect(fake.requests.length).toBe(0);
  }, 30_000);
});
