import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { rpcProcess, startFakeLlm, WIRE_APIS, useWorkspace } from "./helpers.ts";

const ws = useWorkspace();
let fake: FakeLlm;

const rpc = (args: string[]) => rpcProcess(ws, args);

/** Sends a prompt whose first turn runs a command, and returns once that command has started. */
async function promptUntilToolRuns(r: ReturnType<typeof rpc>, id: number): Promise<void> {
  r.send({ id, type: "prompt", text: "wait" });
  await r.waitFor((m) => m.type === "event" && m.event.kind === "tool_call_start");
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
    script: [
      {
        toolCalls: [
          { name: "bash", arguments: { command: "sleep 30" } },
          { name: "bash", arguments: { command: "echo never" } },
        ],
      },
      { text: "changed course" },
    ],
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

test("cli rpc abort interrupts the input; the next prompt continues the same session with its history", async () => {
  fake = await startFakeLlm({
    script: [{ toolCalls: [{ name: "bash", arguments: { command: "sleep 30" } }] }, { text: "still here" }],
  });
  const r = rpc(WIRE_APIS[0].flags(fake));
  r.send({ id: 0, type: "get_state" });
  const before = (await r.response(0)).data;
  await promptUntilToolRuns(r, 1);
  r.send({ id: 2, type: "abort" });
  expect((await r.response(2)).success).toBe(true);
  const aborted = await r.response(1);
  expect(aborted.data.stopReason).toBe("aborted");

  r.send({ id: 3, type: "get_state" });
  const after = (await r.response(3)).data;
  expect(after.state).toBe("IDLE");
  expect(after.session_id).toBe(before.session_id);
  expect(after.message_count).toBe(3); // the prompt, the call, its "aborted" result
  r.send({ id: 4, type: "prompt", text: "are you there?" });
  expect((await r.response(4)).data.text).toBe("still here");
  expect(JSON.stringify(fake.requests[1].body.messages)).toContain("sleep 30");
  expect(await r.close()).toBe(0);
});

test("cli rpc a prompt sent right behind an abort waits for the interrupted input instead of failing as busy", async () => {
  fake = await startFakeLlm({
    script: [{ toolCalls: [{ name: "bash", arguments: { command: "sleep 30" } }] }, { text: "fresh start" }],
  });
  const r = rpc(WIRE_APIS[0].flags(fake));
  await promptUntilToolRuns(r, 1);
  r.send({ id: 2, type: "abort" });
  r.send({ id: 3, type: "prompt", text: "next task" }); // no waiting for the abort's answer
  const next = await r.response(3);
  expect(next.success).toBe(true);
  expect(next.data.text).toBe("fresh start");
  expect((await r.response(2)).success).toBe(true);
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

test("cli rpc set_tools reads a string as --tools does: a preset, or names and presets separated by commas", async () => {
  fake = await startFakeLlm({ script: [] });
  const r = rpc(WIRE_APIS[0].flags(fake));
  r.send({ id: 1, type: "set_tools", tools: "read, bash" });
  expect((await r.response(1)).data.tools).toEqual(["read", "bash"]);
  r.send({ id: 2, type: "set_tools", tools: "readonly,bash" });
  expect((await r.response(2)).data.tools).toEqual(["read", "grep", "find", "ls", "bash"]);
  r.send({ id: 3, type: "set_tools", tools: [1, 2] });
  expect((await r.response(3)).error).toContain("'tools' must be");
  expect(await r.close()).toBe(0);
});

test("cli rpc commands sent right behind new_session meet the new session", async () => {
  fake = await startFakeLlm({ script: [{ text: "one" }, { text: "two" }] });
  const r = rpc(WIRE_APIS[0].flags(fake));
  r.send({ id: 1, type: "prompt", text: "first" });
  await r.response(1);
  // No waiting between the three lines: new_session is still opening when the others are read.
  r.send({ id: 2, type: "new_session" });
  r.send({ id: 3, type: "get_state" });
  r.send({ id: 4, type: "prompt", text: "second" });
  const fresh = (await r.response(2)).data.session_id;
  expect((await r.response(3)).data).toMatchObject({ session_id: fresh, message_count: 0 });
  expect((await r.response(4)).data.text).toBe("two");
  expect(JSON.stringify(fake.requests[1].body.messages)).not.toContain("first");
  expect(await r.close()).toBe(0);
});

test("cli rpc a prompt while one runs is a busy error response; follow_up runs after it", async () => {
  fake = await startFakeLlm({
    script: [
      { toolCalls: [{ name: "bash", arguments: { command: "sleep 0.5" } }] },
      { text: "first done" },
      { text: "follow-up done" },
    ],
  });
  const r = rpc(WIRE_APIS[0].flags(fake));
  r.send({ id: 1, type: "prompt", text: "take your time" });
  await r.waitFor((m) => m.type === "event" && m.event.kind === "tool_call_start");
  r.send({ id: 2, type: "prompt", text: "me too" });
  const busy = await r.response(2);
  expect(busy.success).toBe(false);
  expect(busy.error).toContain("busy");
  r.send({ id: 3, type: "follow_up", text: "and then say more" });
  expect((await r.response(3)).success).toBe(true);
  const done = await r.response(1);
  expect(done.data).toMatchObject({ text: "follow-up done", stopReason: "completed" });
  expect(fake.requests.length).toBe(3);
  const last = JSON.stringify(fake.requests[2].body.messages);
  expect(last).toContain("first done");
  expect(last).toContain("and then say more");
  expect(last).not.toContain("me too");
  expect(await r.close()).toBe(0);
});

test("cli rpc abort keeps the tools chosen with set_tools", async () => {
  fake = await startFakeLlm({
    script: [{ toolCalls: [{ name: "bash", arguments: { command: "sleep 30" } }] }, { text: "ok" }],
  });
  const r = rpc(WIRE_APIS[0].flags(fake));
  r.send({ id: 1, type: "set_tools", tools: ["read", "bash"] });
  await r.response(1);
  await promptUntilToolRuns(r, 2);
  r.send({ id: 3, type: "abort" });
  await r.response(3);
  r.send({ id: 4, type: "get_state" });
  expect((await r.response(4)).data.tools).toEqual(["read", "bash"]);
  r.send({ id: 5, type: "prompt", text: "again" });
  await r.response(5);
  expect(fake.requests[1].body.tools.map((t: { name: string }) => t.name)).toEqual(["read", "bash"]);
  expect(await r.close()).toBe(0);
});

test("cli rpc compact, fork and switch_session", async () => {
  // Keep almost nothing verbatim, so compact has something to summarise after two exchanges.
  mkdirSync(join(ws.dir, ".gong"));
  writeFileSync(join(ws.dir, ".gong", "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 1 } }));
  fake = await startFakeLlm({
    script: [{ text: "one" }, { text: "two" }, { text: "SUMMARY: counting words." }, { text: "three" }],
  });
  const r = rpc(WIRE_APIS[0].flags(fake));
  r.send({ id: 1, type: "prompt", text: "say one" });
  await r.response(1);
  r.send({ id: 2, type: "prompt", text: "say two" });
  await r.response(2);
  r.send({ id: 3, type: "get_state" });
  const original = (await r.response(3)).data;

  r.send({ id: 4, type: "compact" });
  expect((await r.response(4)).data).toEqual({ compacted: true });
  expect(JSON.stringify(fake.requests[2].body)).toContain("say one");
  r.send({ id: 5, type: "prompt", text: "say three" });
  await r.response(5);
  expect(JSON.stringify(fake.requests[3].body.messages)).toContain("SUMMARY: counting words.");

  r.send({ id: 6, type: "fork" });
  const forked = (await r.response(6)).data;
  expect(forked.id).not.toBe(original.session_id);
  r.send({ id: 7, type: "get_state" });
  expect((await r.response(7)).data.session_id).toBe(forked.id);
  r.send({ id: 8, type: "list_sessions" });
  expect((await r.response(8)).data.sessions.length).toBe(2);

  r.send({ id: 9, type: "switch_session", session: original.session_id.slice(0, 8) });
  expect((await r.response(9)).data.session_id).toBe(original.session_id);
  r.send({ id: 10, type: "switch_session", session: "ffffffff" });
  const missing = await r.response(10);
  expect(missing.success).toBe(false);
  expect(missing.error).toContain("ffffffff");
  r.send({ id: 11, type: "get_state" });
  expect((await r.response(11)).data.session_id).toBe(original.session_id);
  expect(await r.close()).toBe(0);
});

test("cli rpc: plan_update events and the plan in get_state", async () => {
  fake = await startFakeLlm({
    script: [
      {
        toolCalls: [
          {
            name: "update_plan",
            arguments: { explanation: "start", plan: [{ step: "Probe", status: "in_progress" }] },
          },
        ],
      },
      { text: "planned" },
    ],
  });
  const r = rpc([...WIRE_APIS[1].flags(fake), "--tools", "default,update_plan"]);
  r.send({ id: 1, type: "get_state" });
  expect((await r.response(1)).data.plan).toBeNull();
  r.send({ id: 2, type: "prompt", text: "plan" });
  expect((await r.response(2)).success).toBe(true);
  const update = r.lines.find((m) => m.type === "event" && m.event.kind === "plan_update");
  expect(update.event.data).toMatchObject({
    tool_name: "update_plan",
    explanation: "start",
    items: [{ text: "Probe", status: "in_progress" }],
  });
  r.send({ id: 3, type: "get_state" });
  expect((await r.response(3)).data.plan).toEqual({
    explanation: "start",
    items: [{ text: "Probe", status: "in_progress" }],
  });
  expect(await r.close()).toBe(0);
});

test("cli rpc set_profile switches the tools at the next request and survives a new session; get_state reports it", async () => {
  fake = await startFakeLlm({ script: [{ text: "one" }, { text: "two" }] });
  // No --profile: a Claude model gets the anthropic profile.
  const r = rpc(["--model", "anthropic/claude-haiku-4-5", "--base-url", fake.baseUrls.anthropic, "--api-key", "test"]);
  r.send({ id: 1, type: "get_state" });
  expect((await r.response(1)).data).toMatchObject({ profile: "anthropic", profile_choice: "auto" });
  r.send({ id: 2, type: "prompt", text: "first" });
  await r.response(2);
  r.send({ id: 3, type: "set_profile", profile: "gemini" });
  expect((await r.response(3)).data.tools).toContain("run_shell_command");
  r.send({ id: 4, type: "prompt", text: "second" });
  await r.response(4);
  const names = fake.requests.map((q) => q.body.tools.map((t: any) => t.name));
  expect(names[0]).toContain("Bash");
  expect(names[1]).toContain("run_shell_command");
  r.send({ id: 5, type: "new_session" });
  await r.response(5);
  r.send({ id: 6, type: "get_state" });
  expect((await r.response(6)).data).toMatchObject({ profile: "gemini", profile_choice: "gemini" });
  r.send({ id: 7, type: "set_profile", profile: "nosuch" });
  expect((await r.response(7)).error).toContain("Unknown profile 'nosuch'");
  expect(await r.close()).toBe(0);
});

test("issue 24: an RPC prompt the model refused resolves with stopReason refusal, its sentence and the events", async () => {
  fake = await startFakeLlm({ script: [{ text: "I can't help with that.", finishReason: "refusal" }] });
  const r = rpc(WIRE_APIS[0].flags(fake));
  r.send({ id: 1, type: "prompt", text: "something" });
  const done = await r.response(1);
  expect(done.success).toBe(true);
  expect(done.data).toMatchObject({
    text: "I can't help with that.",
    stopReason: "refusal",
    stopMessage: "The model refused to answer.",
  });
  const events = r.lines.filter((m) => m.type === "event").map((m) => m.event);
  expect(
    events.find((e) => e.kind === "message_end" && e.data.message.role === "assistant").data.message.finishReason,
  ).toBe("refusal");
  expect(events.find((e) => e.kind === "agent_end").data).toMatchObject({
    stop_reason: "refusal",
    stop_message: "The model refused to answer.",
  });
  expect(await r.close()).toBe(0);
});
