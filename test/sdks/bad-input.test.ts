/**
 * Issue 36, bad input on Claude Code's stream-json protocol: a message of a type gong does not
 * read, a malformed line, a program that closes stdin mid-turn — one error in the protocol's own
 * shape (a `result` of subtype error_during_execution with `errors`, or a `control_response` of
 * subtype error), the session file still valid, and no process left behind.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeLlm, useWorkspace, WIRE_APIS } from "../cli/helpers.ts";

const ws = useWorkspace();
const STREAM = ["--input-format", "stream-json", "--output-format", "stream-json"];
const user = (content: string) => `${JSON.stringify({ type: "user", message: { role: "user", content } })}\n`;
const lines = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

/** Every session file under GONG_HOME parses line by line. */
function sessionFilesValid(home: string): number {
  let count = 0;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".jsonl")) {
        for (const line of readFileSync(path, "utf8").split("\n").filter(Boolean)) JSON.parse(line);
        count++;
      }
    }
  };
  walk(join(home, ".gong"));
  return count;
}

describe("issue 36 bad input on the stream-json protocol", () => {
  test("a message of an unknown type and a malformed line: one error result each, exit 2", async () => {
    const fake = await startFakeLlm({ script: [{ text: "first" }] });
    const flags = WIRE_APIS[0].flags(fake);
    const unknown = await ws.run([...flags, ...STREAM], { stdin: `${user("hi")}{"type":"telepathy"}\n` });
    expect(unknown.code).toBe(2);
    const out = lines(unknown.stdout);
    const errors = out.filter((m) => m.type === "result" && m.is_error);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ subtype: "error_during_execution" });
    expect(errors[0].errors[0]).toContain("'telepathy'");
    const malformed = await ws.run([...flags, ...STREAM], { stdin: '{"type":"user",\n' });
    expect(malformed.code).toBe(2);
    expect(lines(malformed.stdout)).toEqual([expect.objectContaining({ type: "result", is_error: true })]);
  });

  test("a program that closes stdin mid-turn: the turn ends, the session file is valid, no command left running", async () => {
    const fake = await startFakeLlm({
      script: [{ toolCalls: [{ name: "Bash", arguments: { command: "sleep 30 && touch late" } }] }, { text: "done" }],
    });
    const proc = Bun.spawn(
      [
        process.execPath,
        join(import.meta.dir, "../../cli.ts"),
        ...WIRE_APIS[0].flags(fake).slice(0, 6),
        "--profile",
        "anthropic",
        ...STREAM,
        "--permission-prompt-tool",
        "stdio",
      ],
      {
        cwd: ws.dir,
        env: ws.env,
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    proc.stdin.write(user("sleep"));
    proc.stdin.flush();
    // The gate asks the program about the command; the program goes away instead of answering.
    const reader = proc.stdout.getReader();
    let seen = "";
    while (!seen.includes('"can_use_tool"')) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
    expect(seen).toContain('"can_use_tool"');
    proc.stdin.end();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
    await proc.exited;
    const out = lines(seen);
    const result = out.find((m) => m.type === "result");
    expect(result).toBeDefined();
    // The call was refused (no one can answer), so nothing was left to run.
    expect(JSON.stringify(out)).toContain("did not answer");
    expect(sessionFilesValid(ws.home)).toBe(1);
    expect(existsSync(join(ws.dir, "late"))).toBe(false);
  });

  test("a program that stops reading stdout mid-turn: the turn stops at gong's next line, the next call never runs, the session file is valid", async () => {
    const fake = await startFakeLlm({
      script: [
        { toolCalls: [{ name: "Bash", arguments: { command: "touch started && sleep 2" } }] },
        { toolCalls: [{ name: "Bash", arguments: { command: "touch second" } }] },
        { text: "done" },
      ],
    });
    const proc = Bun.spawn(
      [
        process.execPath,
        join(import.meta.dir, "../../cli.ts"),
        ...WIRE_APIS[0].flags(fake).slice(0, 6),
        "--profile",
        "anthropic",
        ...STREAM,
        "--dangerously-skip-permissions",
      ],
      { cwd: ws.dir, env: ws.env, stdin: "pipe", stdout: "pipe", stderr: "pipe" },
    );
    proc.stdin.write(user("run it"));
    proc.stdin.flush();
    const reader = proc.stdout.getReader();
    let seen = "";
    while (!seen.includes('"tool_use"')) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
    expect(seen).toContain('"tool_use"');
    // The program goes away from stdout (its end of the pipe closed) while the command runs.
    await reader.cancel();
    expect(await proc.exited).not.toBe(0);
    expect(existsSync(join(ws.dir, "started"))).toBe(true);
    expect(existsSync(join(ws.dir, "second"))).toBe(false);
    expect(fake.requests.length).toBeLessThanOrEqual(2);
    expect(sessionFilesValid(ws.home)).toBe(1);
  });
});
