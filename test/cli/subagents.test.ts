/**
 * Child agents through the command line: indented progress lines in print mode, forwarded events
 * in stream-json and over RPC, the child's session listed under its parent by `gong sessions`, and
 * under the spawning call by the shell's /tree.
 */
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { routeByPrompt } from "../../lib/testing/fake-llm/route.ts";
import type { RecordedRequest } from "../../lib/testing/fake-llm/types.ts";
import { rpcProcess, startFakeLlm, useWorkspace } from "./helpers.ts";
import { gongTerminal } from "./terminal.ts";

// A terminal test waits for many screens; on a crowded machine each may take seconds.
setDefaultTimeout(120_000);

const hasTmux = Bun.spawnSync(["which", "tmux"]).exitCode === 0;

const ws = useWorkspace();

/** The agent id in the parent's latest tool result (Chat Completions wire format). */
const lastAgentId = (r: RecordedRequest) => /subagent ([0-9a-f]{8})/.exec(JSON.stringify(r.body.messages))![1];

async function parentAndChild() {
  const fake = await startFakeLlm({
    script: routeByPrompt({
      PARENT: [
        { toolCalls: [{ name: "spawn_agent", arguments: { task: "CHILD: count the files" } }] },
        (r) => ({ toolCalls: [{ name: "wait", arguments: { agent_id: lastAgentId(r) } }] }),
        { text: "The child counted 0 files." },
      ],
      CHILD: [{ toolCalls: [{ name: "bash", arguments: { command: "ls | wc -l" } }] }, { text: "There are 0 files." }],
    }),
  });
  return ["--model", "ollama/qwen3-coder", "--base-url", fake.baseUrls.openai];
}

describe("subagents in the CLI", () => {
  test("print --verbose shows each child as indented lines: start, its tool calls, its summary", async () => {
    const flags = await parentAndChild();
    const r = await ws.run(["-p", "PARENT: delegate", "--verbose", ...flags]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe("The child counted 0 files.");
    const lines = r.stderr.split("\n");
    const started = lines.findIndex((l) => /^ {2}↳ agent [0-9a-f]{8} started CHILD: count the files/.test(l));
    const tool = lines.findIndex((l) => /^ {4}↳ agent [0-9a-f]{8} .*ls \| wc -l/.test(l));
    const ended = lines.findIndex((l) => /^ {2}↳ agent [0-9a-f]{8} completed \(2 turns\) There are 0 files\./.test(l));
    expect(started).toBeGreaterThanOrEqual(0);
    expect(tool).toBeGreaterThan(started);
    expect(ended).toBeGreaterThan(tool);
  });

  test("stream-json carries the child's events tagged with agent_id and parent_id; gong sessions lists the child", async () => {
    const flags = await parentAndChild();
    const r = await ws.run(["-p", "PARENT: delegate", "--output-format", "stream-json", ...flags]);
    expect(r.code).toBe(0);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const parentId = events.find((e) => e.kind === "session_start").session_id;
    const start = events.find((e) => e.kind === "subagent_start");
    const forwarded = events.filter((e) => e.agent_id === start.data.agent_id);
    expect(forwarded.some((e) => e.kind === "tool_call_start" && e.data.tool_name === "bash")).toBe(true);
    expect(forwarded.every((e) => e.parent_id === parentId)).toBe(true);
    expect(events.at(-1).kind).toBe("result");

    const list = await ws.run(["sessions"]);
    const rows = list.stdout.trim().split("\n");
    expect(rows[0]).toContain("PARENT: delegate");
    expect(rows[1]).toMatch(/^ {2}↳ [0-9a-f]{8} {2}subagent {2}CHILD: count the files/);
  });
});

test("--mode rpc carries the child's events with agent_id and parent_id on the event lines", async () => {
  const flags = await parentAndChild();
  const r = rpcProcess(ws, flags);
  // Stdin stays open until the prompt's response (closing it would interrupt the input).
  r.send({ id: 1, type: "prompt", text: "PARENT: delegate" });
  const response = await r.response(1);
  expect(await r.close()).toBe(0);
  const { lines } = r;
  expect(response).toMatchObject({ success: true, data: { text: "The child counted 0 files." } });
  const events = lines.filter((l) => l.type === "event").map((l) => l.event);
  const parentId = events.find((e) => e.kind === "session_start").session_id;
  const start = events.find((e) => e.kind === "subagent_start");
  expect(start.agent_id).toBeUndefined();
  const forwarded = events.filter((e) => e.agent_id === start.data.agent_id);
  expect(forwarded.some((e) => e.kind === "tool_call_start" && e.data.tool_name === "bash")).toBe(true);
  expect(forwarded.some((e) => e.kind === "assistant_text_delta")).toBe(true);
  expect(forwarded.every((e) => e.parent_id === parentId && e.session_id !== parentId)).toBe(true);
  expect(events.find((e) => e.kind === "subagent_end").data).toMatchObject({
    agent_id: start.data.agent_id,
    status: "completed",
    output: "There are 0 files.",
  });
});

test.skipIf(!hasTmux)("the shell's /tree lists a child agent under the call that spawned it", async () => {
  const flags = await parentAndChild();
  using term = gongTerminal(ws);
  const waitFor = (check: (text: string) => boolean, what: string) => term.waitFor(check, what);
  term.start([...flags, "--approval", "auto"]);
  await waitFor((s) => s.includes("›"), "the prompt");
  term.keys("PARENT: delegate", "Enter");
  await waitFor((s) => s.includes("The child counted 0 files."), "the answer");
  term.keys("/tree", "Enter");
  const tree = (
    await waitFor((s) => /↳ agent [0-9a-f]{8} completed CHILD: count the files/.test(s), "the child in /tree")
  ).split("\n");
  const spawning = tree.findIndex((l) => /^[ *] +[0-9a-f]{8} assistant: \[spawn_agent\]/.test(l));
  expect(spawning).toBeGreaterThanOrEqual(0);
  // Right under the spawning entry, one level deeper.
  expect(tree[spawning + 1]).toMatch(/^ {4}↳ agent [0-9a-f]{8} completed CHILD: count the files$/);
  expect(tree[spawning + 2]).toMatch(/tool result \(spawn_agent\)/);
});
