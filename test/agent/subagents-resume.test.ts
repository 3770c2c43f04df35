/**
 * Child agents, continued: the truncation notice naming the profile's subagent tool
 * (docs/conformance.md: 001 §7), codex's wait_agent timeout and resume_agent, lost child history, a
 * long answer cut for the parent. Every model call goes through the real SDK to the fake server;
 * children are routed by their prompt.
 */
import { describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { routeByPrompt } from "../../lib/testing/fake-llm/route.ts";
import { harness } from "./harness.ts";
import { call, childRequests, isEnd, spawnedId } from "./subagent-calls.ts";

describe("001 §7: a truncated tool output points at the profile's subagent tool", () => {
  const hint = "to have a subagent process the full output file";
  test("default profile: spawn_agent", async () => {
    await using h = await harness([call("bash", { command: "seq 1 3000" }), { text: "ok" }], {
      config: { toolOutputLimits: { bash: 500 } },
    });
    await h.session.submit("count");
    expect(JSON.stringify(h.fake.requests[1].body.messages)).toContain(`Use spawn_agent ${hint}`);
  });

  test("anthropic profile: Agent", async () => {
    await using h = await harness([call("Bash", { command: "seq 1 3000" }), { text: "ok" }], {
      profile: "anthropic",
      config: { toolOutputLimits: { Bash: 500 } },
    });
    await h.session.submit("count");
    expect(JSON.stringify(h.fake.requests[1].body.messages)).toContain(`Use Agent ${hint}`);
  });

  test("no subagents (maxSubagentDepth 0): the hint names the reading tools instead", async () => {
    await using h = await harness([call("bash", { command: "seq 1 3000" }), { text: "ok" }], {
      config: { toolOutputLimits: { bash: 500 }, maxSubagentDepth: 0 },
    });
    await h.session.submit("count");
    const sent = JSON.stringify(h.fake.requests[1].body.messages);
    expect(sent).not.toContain(hint);
    expect(sent).toContain("Use read with start_line");
  });
});

describe("codex's wait_agent timeout and resume_agent", () => {
  test("openai: the multi-agent tools carry codex's parameter names, types and required fields", async () => {
    await using h = await harness([{ text: "ok" }], { model: "openai/gpt-5.2", profile: "openai" });
    await h.session.submit("hi");
    const params = Object.fromEntries(h.fake.requests[0].body.tools!.map((t: any) => [t.name, t.parameters]));
    const shape = (name: string) => {
      const p = params[name];
      return {
        names: Object.keys(p.properties).sort(),
        required: [...(p.required ?? [])].sort(),
        types: Object.fromEntries(Object.entries(p.properties).map(([k, v]: [string, any]) => [k, v.type])),
      };
    };
    expect(shape("spawn_agent")).toEqual({
      names: ["agent_type", "fork_context", "items", "message", "model", "reasoning_effort"],
      required: [],
      types: {
        message: "string",
        items: "array",
        agent_type: "string",
        fork_context: "boolean",
        model: "string",
        reasoning_effort: "string",
      },
    });
    expect(shape("send_input")).toEqual({
      names: ["interrupt", "items", "message", "target"],
      required: ["target"],
      types: { target: "string", message: "string", items: "array", interrupt: "boolean" },
    });
    expect(shape("wait_agent")).toEqual({
      names: ["targets", "timeout_ms"],
      required: ["targets"],
      types: { targets: "array", timeout_ms: "number" },
    });
    expect(params.wait_agent.properties.targets.items.type).toBe("string");
    expect(shape("close_agent")).toEqual({ names: ["target"], required: ["target"], types: { target: "string" } });
    expect(shape("resume_agent")).toEqual({ names: ["id"], required: ["id"], types: { id: "string" } });
  });

  test("wait_agent: timeout_ms 0 is an error result; a short timeout gives an empty status with timed_out", async () => {
    await using h = await harness(
      routeByPrompt({
        PARENT: [
          call("spawn_agent", { message: "CHILD-WT: wait for the go file" }),
          (r) => call("wait_agent", { targets: [spawnedId(r)], timeout_ms: 0 }),
          (r) => call("wait_agent", { targets: [spawnedId(r)], timeout_ms: 50 }),
          (r) => call("wait_agent", { targets: [spawnedId(r)] }),
          { text: "done" },
        ],
        "CHILD-WT": [call("exec_command", { cmd: "while [ ! -f go ]; do sleep 0.05; done" }), { text: "went" }],
      }),
      { model: "openai/gpt-5.2", profile: "openai" },
    );
    h.session.subscribe((e) => {
      if (e.kind === "tool_call_end" && e.agent_id === undefined && (e.data.output as any).data?.timed_out)
        writeFileSync(join(h.dir, "go"), "");
    });
    await h.session.submit("PARENT: codex waits");
    const outs = h.events
      .filter(isEnd)
      .filter((e) => e.agent_id === undefined)
      .map((e) => e.data.output as any);
    const id = JSON.parse(outs[0].text).agent_id;
    expect(outs[1].status).toBe("error");
    expect(outs[1].error.message).toContain("timeout_ms must be greater than zero");
    expect(JSON.parse(outs[2].text)).toEqual({ status: {}, timed_out: true });
    expect(JSON.parse(outs[3].text)).toEqual({ status: { [id]: { completed: "went" } }, timed_out: false });
    expect(outs[3].data.agents[0]).toMatchObject({ success: true, turns_used: 2 });
  });

  test("resume_agent reopens a closed child from its session file; send_input works again", async () => {
    await using h = await harness(
      routeByPrompt({
        PARENT: [
          call("spawn_agent", { message: "CHILD-RS: first task" }),
          (r) => call("wait_agent", { targets: [spawnedId(r)] }),
          (r) => call("close_agent", { target: spawnedId(r) }),
          (r) => call("send_input", { target: spawnedId(r), message: "too early" }),
          (r) => call("resume_agent", { id: spawnedId(r) }),
          (r) => call("send_input", { target: spawnedId(r), message: "the second task" }),
          (r) => call("wait_agent", { targets: [spawnedId(r)] }),
          call("resume_agent", { id: "nobody00" }),
          { text: "done" },
        ],
        "CHILD-RS": [{ text: "first answer" }, { text: "second answer" }],
      }),
      { model: "openai/gpt-5.2", profile: "openai" },
    );
    await h.session.submit("PARENT: close and reopen");
    expect(h.fake.requests[0].body.tools!.map((t: any) => t.name)).toContain("resume_agent");
    const outs = h.events
      .filter(isEnd)
      .filter((e) => e.agent_id === undefined)
      .map((e) => e.data.output as any);
    const id = JSON.parse(outs[0].text).agent_id;
    expect(JSON.parse(outs[2].text)).toEqual({ previous_status: { completed: "first answer" } });
    expect(outs[3].status).toBe("error");
    expect(outs[3].error.message).toContain("resume_agent");
    expect(JSON.parse(outs[4].text)).toEqual({ status: { completed: "first answer" } });
    expect(outs[5].status).toBe("success");
    expect(JSON.parse(outs[6].text)).toEqual({ status: { [id]: { completed: "second answer" } }, timed_out: false });
    expect(outs[7].status).toBe("error");
    expect(outs[7].error.message).toContain("No subagent 'nobody00'");
    // The reopened child went on with its stored conversation.
    const second = childRequests(h.fake.requests, "CHILD-RS").at(-1)!;
    expect(JSON.stringify(second.body)).toContain("first answer");
    expect(JSON.stringify(second.body)).toContain("the second task");
  });
});

test("issue 22 item 9: resume_agent when a child's session file was emptied or removed tells the model its history is gone", async () => {
  await using h = await harness(
    routeByPrompt({
      PARENT: [
        call("spawn_agent", { message: "CHILD-GONE-A: first" }),
        (r) => call("wait_agent", { targets: [spawnedId(r)] }),
        (r) => call("close_agent", { target: spawnedId(r) }),
        (r) => call("resume_agent", { id: spawnedId(r) }),
        call("spawn_agent", { message: "CHILD-GONE-B: second" }),
        (r) => call("wait_agent", { targets: [spawnedId(r, 1)] }),
        (r) => call("close_agent", { target: spawnedId(r, 1) }),
        (r) => call("resume_agent", { id: spawnedId(r, 1) }),
        { text: "done" },
      ],
      "CHILD-GONE-A": [{ text: "answer a" }],
      "CHILD-GONE-B": [{ text: "answer b" }],
    }),
    { model: "openai/gpt-5.2", profile: "openai" },
  );
  const files: string[] = [];
  let closes = 0;
  h.session.subscribe((e) => {
    if (e.kind === "subagent_start" && e.agent_id === undefined) files.push(String(e.data.session_file));
    // Once closed, the first child's file is emptied, the second's removed.
    if (e.kind === "tool_call_end" && e.agent_id === undefined && e.data.tool_name === "close_agent") {
      if (closes++ === 0) writeFileSync(files[0], "");
      else rmSync(files[1]);
    }
  });
  await h.session.submit("PARENT: lose the children's files");
  const outs = h.events
    .filter(isEnd)
    .filter((e) => e.agent_id === undefined && e.data.tool_name === "resume_agent")
    .map((e) => e.data.output as any);
  expect(outs.length).toBe(2);
  for (const out of outs) {
    expect(out.status).toBe("error");
    expect(out.error.message).toContain("cannot continue: its history is gone");
    expect(out.error.message).toContain("spawn a new subagent with the whole task");
  }
  expect(outs[0].error.message).toContain("was overwritten or emptied");
  expect(outs[1].error.message).toContain("cannot be opened");
});

test("issue 37 defect 9: after resume_agent says a child's history is gone, send_input is refused with the same reason; the child never runs again from nothing", async () => {
  await using h = await harness(
    routeByPrompt({
      PARENT: [
        call("spawn_agent", { message: "CHILD-LOST: first" }),
        (r) => call("wait_agent", { targets: [spawnedId(r)] }),
        (r) => call("close_agent", { target: spawnedId(r) }),
        (r) => call("resume_agent", { id: spawnedId(r) }),
        (r) => call("send_input", { target: spawnedId(r), message: "go on with it" }),
        (r) => call("resume_agent", { id: spawnedId(r) }),
        { text: "done" },
      ],
      "CHILD-LOST": [{ text: "first answer" }, { text: "an answer from nothing" }],
    }),
    { model: "openai/gpt-5.2", profile: "openai" },
  );
  let file = "";
  h.session.subscribe((e) => {
    if (e.kind === "subagent_start" && e.agent_id === undefined) file = String(e.data.session_file);
    if (e.kind === "tool_call_end" && e.agent_id === undefined && e.data.tool_name === "close_agent") rmSync(file);
  });
  await h.session.submit("PARENT: lose the child's file, then go on");
  const outs = h.events
    .filter(isEnd)
    .filter((e) => e.agent_id === undefined)
    .map((e) => [e.data.tool_name, e.data.output as any] as const);
  const [resumed, sent, again] = outs.slice(3).map(([, o]) => o);
  expect(outs.slice(3).map(([name]) => name)).toEqual(["resume_agent", "send_input", "resume_agent"]);
  for (const out of [resumed, sent, again]) {
    expect(out.status).toBe("error");
    expect(out.error.message).toContain("cannot continue: its history is gone");
    expect(out.error.message).toContain("spawn a new subagent with the whole task");
  }
  // The child made its one request and no other.
  expect(childRequests(h.fake.requests, "CHILD-LOST")).toHaveLength(1);
});

test("004 §5.2 a subagent's long answer reaches the parent's model cut to 20,000 characters from both ends", async () => {
  const answer = `BEGIN ${"x".repeat(60_000)} END`;
  const script = routeByPrompt({
    PARENT: [
      call("spawn_agent", { task: "CHILD-BIG: write a lot" }),
      (r) => call("wait", { agent_id: spawnedId(r) }),
      { text: "read it" },
    ],
    "CHILD-BIG": [{ text: answer }],
  });
  await using h = await harness(script);
  await h.session.submit("PARENT: delegate");
  const end = h.events.filter((e) => e.kind === "tool_call_end").at(-1)!;
  expect(end.data.tool_name).toBe("wait");
  expect(end.data.truncated).toBe(true);
  expect(JSON.stringify(end.data.output)).toContain(" END");
  const parent = h.fake.requests.filter((r) => JSON.stringify(r.body).includes("PARENT: delegate")).at(-1)!;
  const results = JSON.stringify(parent.body.messages.at(-1));
  expect(results).toContain("WARNING: Tool output was truncated");
  expect(results).toContain("BEGIN");
  expect(results).toContain(" END");
  expect(results.length).toBeLessThan(22_000);
});
