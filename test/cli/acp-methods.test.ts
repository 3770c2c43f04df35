/**
 * Issue 22 item 12: ACP answers a request for a method it does not have with -32601 (method not
 * found), also when it arrives before or right behind `initialize`, and the connection goes on.
 */
import { expect, test } from "bun:test";
import { CLI, useWorkspace } from "./helpers.ts";

const ws = useWorkspace();

test("issue 22 item 12: unknown ACP methods are answered -32601, before and after initialize", async () => {
  const proc = Bun.spawn(
    [process.execPath, CLI, "--mode", "acp", "--model", "anthropic/claude-haiku-4-5", "--api-key", "x"],
    { cwd: ws.dir, env: ws.env, stdin: "pipe", stdout: "pipe", stderr: "pipe" },
  );
  const send = (message: object) => proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  send({ id: 1, method: "foo/bar", params: {} });
  send({ id: 2, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
  send({ id: 3, method: "session/unknown_thing", params: {} });
  proc.stdin.flush();
  const answers = new Map<number, any>();
  const reader = proc.stdout.getReader();
  let text = "";
  while (answers.size < 3) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
    const lines = text.split("\n");
    text = lines.pop()!;
    for (const line of lines) if (line.trim()) answers.set(JSON.parse(line).id, JSON.parse(line));
  }
  proc.stdin.end();
  await proc.exited;
  expect(answers.get(1)?.error).toMatchObject({ code: -32601, data: { method: "foo/bar" } });
  expect(answers.get(2)?.result?.protocolVersion).toBe(1);
  expect(answers.get(3)?.error).toMatchObject({ code: -32601, data: { method: "session/unknown_thing" } });
}, 30_000);
