/** The RPC server answers only its own commands, and stops the running input when its stdin closes. */
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { CLI, startFakeLlm, useWorkspace, WIRE_APIS } from "../cli/helpers.ts";

const ws = useWorkspace();

test("rpc: names of Object.prototype members are unknown commands", async () => {
  const fake = await startFakeLlm({ script: [] });
  const names = ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"];
  const stdin = `${names.map((type, id) => JSON.stringify({ id, type })).join("\n")}\n`;
  const r = await ws.run([...WIRE_APIS[0].flags(fake), "--mode", "rpc"], { stdin });
  expect(r.code).toBe(0);
  const responses = r.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l))
    .filter((m) => m.type === "response");
  expect(responses.map((m) => m.id)).toEqual([0, 1, 2, 3, 4]);
  for (const [i, m] of responses.entries()) {
    expect(m.success).toBe(false);
    expect(m.error).toStartWith(`Unknown command '${names[i]}'`);
  }
}, 30_000);

test("rpc: stdin closing mid-prompt aborts the running input and the server exits", async () => {
  const fake = await startFakeLlm({
    script: [
      { toolCalls: [{ name: "bash", arguments: { command: "sleep 25; touch finished.txt" } }] },
      { text: "done" },
    ],
  });
  const proc = Bun.spawn([process.execPath, CLI, ...WIRE_APIS[0].flags(fake), "--mode", "rpc"], {
    cwd: ws.dir,
    env: ws.env,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  try {
    proc.stdin.write(`${JSON.stringify({ id: 1, type: "prompt", text: "wait" })}\n`);
    proc.stdin.flush();
    const decoder = new TextDecoder();
    let out = "";
    const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
    while (!out.includes('"tool_call_start"')) {
      const { value, done } = await reader.read();
      if (done) break;
      out += decoder.decode(value, { stream: true });
    }
    proc.stdin.end();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      out += decoder.decode(value, { stream: true });
    }
    expect(await proc.exited).toBe(0);
    expect(existsSync(join(ws.dir, "finished.txt"))).toBe(false);
    // One model call: the input did not go on after the command was stopped.
    expect(fake.requests.length).toBe(1);
    const response = out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .find((m) => m.type === "response" && m.id === 1);
    expect(response?.data?.stopReason).toBe("aborted");
  } finally {
    proc.kill("SIGKILL");
  }
}, 20_000);
