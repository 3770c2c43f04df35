import { afterEach, beforeEach, expect, test } from "bun:test";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { CLI, startFakeLlm, WIRE_APIS, workspace, type Workspace } from "./helpers.ts";

let ws: Workspace;
let fake: FakeLlm;

beforeEach(() => {
  ws = workspace();
});
afterEach(async () => {
  await fake?.close();
  ws.cleanup();
});

/** A running `gong --mode rpc` with a line reader over its stdout. */
function rpc(args: string[]) {
  const proc = Bun.spawn([process.execPath, CLI, "--mode", "rpc", ...args], { cwd: ws.dir, env: ws.env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const lines: any[] = [];
  const waiters: Array<{ match: (m: any) => boolean; resolve: (m: any) => void }> = [];
  void (async () => {
    let buffer = "";
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const message = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        lines.push(message);
        for (const w of [...waiters]) if (w.match(message)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(message);
        }
      }
    }
  })();
  return {
    proc,
    lines,
    send(command: unknown) {
      proc.stdin.write(typeof command === "string" ? `${command}\n` : `${JSON.stringify(command)}\n`);
      proc.stdin.flush();
    },
    waitFor(match: (m: any) => boolean): Promise<any> {
      const seen = lines.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
    response(id: unknown) {
      return this.waitFor((m) => m.type === "response" && m.id === id);
    },
    async close() {
      proc.stdin.end();
      return proc.exited;
    },
  };
}

test("cli rpc prompt, get_state and malformed lines", async () => {
  fake = await startFakeLlm({ script: [{ text: "hello over rpc" }] });
  const r = rpc(WIRE_APIS[0].flags(fake));
  r.send({ id: 1, type: "get_state" });
  const state = await r.response(1);
  expect(state.success).toBe(true);
  expect(state.data).toMatchObject({ state: "IDLE", model: "anthropic/claude-haiku-4-5" });

  r.send("{not json");
  const bad = await r.waitFor((m) => m.type === "response" && m.success === false && m.id === null);
  expect(bad.error).toContain("Malformed");
  r.send({ id: 2, type: "no_such_command" });
  expect((await r.response(2)).error).toContain("Unknown command");

  r.send({ id: 3, type: "prompt", text: "say hello" });
  const done = await r.response(3);
  expect(done.success).toBe(true);
  expect(done.data).toMatchObject({ text: "hello over rpc", stopReason: "completed" });
  const kinds = r.lines.filter((m) => m.type === "event").map((m) => m.event.kind);
  expect(kinds).toContain("assistant_text_delta");
  expect(kinds.indexOf("user_input")).toBeLessThan(kinds.indexOf("assistant_text_end"));

  r.send({ id: 4, type: "get_messages" });
  expect((await r.response(4)).data.messages.length).toBe(2);
  expect(await r.close()).toBe(0);
});

test("cli rpc steer while a command runs", async () => {
  fake = await startFakeLlm({
    script: [{ toolCalls: [{ name: "bash", arguments: { command: "sleep 30" } }, { name: "bash", arguments: { command: "echo never" } }] }, { text: "changed course" }],
  });
  const r = rpc(WIRE_APIS[0].flags(fake));
  r.send({ id: "p", type: "prompt", text: "wait a while" });
  await r.waitFor((m) => m.type === "event" && m.event.kind === "tool_call_start");
  r.send({ id: "s", type: "steer", text: "stop waiting and summarise" });
  expect((await r.response("s")).success).toBe(true);
  const done = await r.response("p");
  expect(done.data.text).toBe("changed course");
  const second = JSON.stringify(fake.requests[1].body.messages);
  expect(second).toContain("stop waiting and summarise");
  expect(second).toContain("Skipped due to queued user message");
  expect(second).not.toContain("never\\n");
  expect(await r.close()).toBe(0);
});

test("cli rpc abort stops the input and the host stays usable", async () => {
  fake = await startFakeLlm({ script: [{ toolCalls: [{ name: "bash", arguments: { command: "sleep 30" } }] }, { text: "still here" }] });
  const r = rpc(WIRE_APIS[0].flags(fake));
  r.send({ id: 1, type: "prompt", text: "wait" });
  await r.waitFor((m) => m.type === "event" && m.event.kind === "tool_call_start");
  r.send({ id: 2, type: "abort" });
  expect((await r.response(2)).success).toBe(true);
  const aborted = await r.response(1);
  expect(aborted.data.stopReason).toBe("aborted");

  r.send({ id: 3, type: "get_state" });
  expect((await r.response(3)).data.state).toBe("IDLE");
  r.send({ id: 4, type: "prompt", text: "are you there?" });
  expect((await r.response(4)).data.text).toBe("still here");
  expect(await r.close()).toBe(0);
});

test("cli rpc session commands: set_model, set_tools, list_sessions, new_session", async () => {
  fake = await startFakeLlm({ script: [{ text: "one" }] });
  const r = rpc(WIRE_APIS[0].flags(fake));
  r.send({ id: 1, type: "set_tools", tools: "readonly" });
  expect((await r.response(1)).data.tools).toEqual(["read", "grep", "find", "ls"]);
  r.send({ id: 2, type: "set_model", model: "anthropic/claude-opus-4-6" });
  expect((await r.response(2)).success).toBe(true);
  r.send({ id: 3, type: "set_reasoning_effort", effort: "high" });
  expect((await r.response(3)).success).toBe(true);
  r.send({ id: 4, type: "get_state" });
  expect((await r.response(4)).data).toMatchObject({ model: "anthropic/claude-opus-4-6", reasoning_effort: "high" });
  r.send({ id: 5, type: "prompt", text: "first" });
  await r.response(5);
  r.send({ id: 6, type: "list_sessions" });
  expect((await r.response(6)).data.sessions.length).toBe(1);
  r.send({ id: 7, type: "new_session" });
  const fresh = await r.response(7);
  r.send({ id: 8, type: "get_state" });
  expect((await r.response(8)).data).toMatchObject({ session_id: fresh.data.session_id, message_count: 0 });
  expect(await r.close()).toBe(0);
});
