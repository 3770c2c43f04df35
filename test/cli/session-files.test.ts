/**
 * Issue 22 item 2: only session files are ever written as sessions. `-r FILE` / `--session FILE`
 * on a file that is not a session, or through a symbolic link leading outside gong's home and the
 * project, is exit 2 with one sentence and the file untouched (no lock file beside it either);
 * ACP's session/load takes ids, never paths.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/temp.ts";
import { agentArgs, editor } from "./acp-client.ts";
import { startFakeLlm, useWorkspace } from "./helpers.ts";

const ws = useWorkspace();
const flags = (url: string) => [
  "--model",
  "anthropic/claude-haiku-4-5",
  "--profile",
  "default",
  "--base-url",
  url,
  "--api-key",
  "x",
];

describe("issue 22 item 2: only session files are written as sessions", () => {
  test("-r and --session on a text file: exit 2, one sentence, the file untouched", async () => {
    using outside = tempDir("gong-notes-");
    const notes = join(outside.dir, "notes.txt");
    writeFileSync(notes, "shopping: milk\nbread\n");
    const fake = await startFakeLlm({ script: [{ text: "never" }] });
    for (const args of [
      ["-r", notes],
      ["--session", notes],
    ]) {
      const r = await ws.run([...flags(fake.baseUrls.anthropic), ...args, "-p", "hi"]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim()).toBe(
        `gong: ${notes} is not a gong session file (its first line is not a session header); gong leaves it untouched. Give a session id, a session name or a session file ('gong sessions' lists them).`,
      );
      expect(readFileSync(notes, "utf8")).toBe("shopping: milk\nbread\n");
      expect(readdirSync(outside.dir)).toEqual(["notes.txt"]); // no lock file left beside it
    }
    expect(fake.requests.length).toBe(0);
  }, 30_000);

  test("a symbolic link to a file outside gong's home and the project is refused; the target named itself is judged on its own", async () => {
    using outside = tempDir("gong-link-");
    const target = join(outside.dir, "passwd");
    writeFileSync(target, "root:x:0:0:root:/root:/bin/bash\n");
    const link = join(ws.dir, "session.jsonl");
    symlinkSync(target, link);
    const fake = await startFakeLlm({ script: [{ text: "never" }] });
    const r = await ws.run([...flags(fake.baseUrls.anthropic), "--session", link, "-p", "hi"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `is a symbolic link to ${target}, outside gong's home and the project; gong does not follow it. Name ${target} itself to use that file.`,
    );
    const direct = await ws.run([...flags(fake.baseUrls.anthropic), "-r", target, "-p", "hi"]);
    expect(direct.code).toBe(2);
    expect(direct.stderr).toContain("is not a gong session file");
    expect(readFileSync(target, "utf8")).toBe("root:x:0:0:root:/root:/bin/bash\n");
    expect(readdirSync(outside.dir)).toEqual(["passwd"]);
  }, 30_000);

  test("a real session reached through a link in the project resumes; an empty file becomes a session", async () => {
    const fake = await startFakeLlm({ script: [{ text: "first" }, { text: "second" }] });
    const empty = join(ws.dir, "fresh.jsonl");
    writeFileSync(empty, "");
    const first = await ws.run([...flags(fake.baseUrls.anthropic), "--session", empty, "-p", "hi"]);
    expect(first.code).toBe(0);
    expect(JSON.parse(readFileSync(empty, "utf8").split("\n")[0]).type).toBe("session");
    mkdirSync(join(ws.dir, "links"));
    symlinkSync(empty, join(ws.dir, "links", "current.jsonl"));
    const second = await ws.run([
      ...flags(fake.baseUrls.anthropic),
      "--session",
      join(ws.dir, "links", "current.jsonl"),
      "-p",
      "again",
    ]);
    expect(second.code).toBe(0);
    expect(readFileSync(empty, "utf8")).toContain("again");
    expect(existsSync(join(ws.dir, "links", "current.jsonl"))).toBe(true);
  }, 30_000);

  test("ACP session/load takes ids: a path, a traversal or a garbage file is refused as invalid params, nothing written", async () => {
    using outside = tempDir("gong-acp-load-");
    const garbage = join(outside.dir, "garbage.jsonl");
    writeFileSync(garbage, "not json at all\n");
    const fake = await startFakeLlm({ script: [{ text: "never" }] });
    await using e = await editor(ws, agentArgs(fake));
    for (const sessionId of [garbage, "../../etc/passwd", "..", "a/b"]) {
      const refused = await e.agent
        .request("session/load", { sessionId, cwd: ws.dir, mcpServers: [] })
        .catch((err) => err);
      expect(refused).toMatchObject({ code: -32602 });
      expect(`${refused.message} ${JSON.stringify(refused.data)}`).toContain("session/load takes a session id");
    }
    expect(readFileSync(garbage, "utf8")).toBe("not json at all\n");
    expect(readdirSync(outside.dir)).toEqual(["garbage.jsonl"]);
  }, 30_000);
});
