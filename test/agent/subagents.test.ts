/**
 * Child agents (docs/conformance.md: 004 §9.9): spawn with a scoped task, a shared filesystem,
 * independent histories, the depth limit, results as tool results, send_input / wait / close_agent,
 * parallel children, abort reaching a child's command, a child's failure as an error result,
 * persistence and usage. Every model call goes through the real SDK to the fake server; children
 * are routed by their prompt.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SessionEvent } from "../../lib/agent/index.ts";
import { listChildSessions } from "../../lib/store/list.ts";
import { childFiles } from "../../lib/agent/subagents/stored.ts";
import { routeByPrompt } from "../../lib/testing/fake-llm/route.ts";
import type { RecordedRequest, ScriptTurn } from "../../lib/testing/fake-llm/types.ts";
import { alive, harness, httpHarness, pidFrom, waitForEvent } from "./harness.ts";

import { call, childRequests, isEnd, isStart, spawnedId } from "./subagent-calls.ts";

describe("subagents (004 §9.9)", () => {
  test("9.9 spawn a scoped task; shared filesystem; the result comes back as a tool result", async () => {
    await using h = await harness(
      routeByPrompt({
        PARENT: [
          call("spawn_agent", { task: "CHILD-A: create child.txt containing 'from the child'" }),
          (r) => call("wait", { agent_id: spawnedId(r) }),
          call("read", { path: "child.txt" }),
          { text: "The child wrote child.txt." },
        ],
        "CHILD-A": [
          call("write", { path: "child.txt", content: "from the child\n" }),
          { text: "child.txt is written." },
        ],
      }),
    );
    const result = await h.session.submit("PARENT: delegate the file creation");
    expect(result.text).toBe("The child wrote child.txt.");
    expect(readFileSync(join(h.dir, "child.txt"), "utf8")).toBe("from the child\n");
    const ends = h.events.filter(isEnd).filter((e) => e.agent_id === undefined);
    const waitEnd = ends.find((e) => e.data.tool_name === "wait")!;
    expect((waitEnd.data.output as any).status).toBe("success");
    expect((waitEnd.data.output as any).text).toContain("child.txt is written.");
    const readEnd = ends.find((e) => e.data.tool_name === "read")!;
    expect((readEnd.data.output as any).text).toContain("from the child");
  });

  test("9.9 independent histories: the child's requests hold none of the parent's turns", async () => {
    await using h = await harness(
      routeByPrompt({
        PARENT: [
          call("spawn_agent", { task: "CHILD-B: say hello" }),
          (r) => call("wait", { agent_id: spawnedId(r) }),
          { text: "done" },
        ],
        "CHILD-B": [{ text: "hello" }],
      }),
    );
    await h.session.submit("PARENT: secret parent context 42");
    const child = childRequests(h.fake.requests, "CHILD-B");
    expect(child.length).toBe(1);
    const body = JSON.stringify(child[0].body.messages);
    expect(body).not.toContain("secret parent context");
    expect(child[0].body.messages.length).toBe(1);
    // The child runs its own session: a session file of its own, linked to the parent and the spawning call.
    const spawnCall = h.events.filter(isStart).find((e) => e.data.tool_name === "spawn_agent")!;
    const children = listChildSessions(h.session.sessionFile!);
    expect(children.length).toBe(1);
    expect(children[0].parentSession).toBe(h.session.sessionFile);
    expect(children[0].spawnedBy).toBe(String(spawnCall.data.call_id));
    expect(children[0].firstMessage).toContain("CHILD-B");
  });

  test("9.9 depth limit: a child at the limit has no spawn tool, and a spawn call from it is an error result", async () => {
    await using h = await harness(
      routeByPrompt({
        PARENT: [
          call("spawn_agent", { task: "CHILD-C: try to spawn" }),
          (r) => call("wait", { agent_id: spawnedId(r) }),
          { text: "done" },
        ],
        "CHILD-C": [call("spawn_agent", { task: "GRANDCHILD" }), { text: "could not spawn" }],
      }),
    );
    await h.session.submit("PARENT: go");
    const parentTools = h.fake.requests[0].body.tools!.map((t: any) => t.name);
    expect(parentTools).toEqual(expect.arrayContaining(["spawn_agent", "send_input", "wait", "close_agent"]));
    const child = childRequests(h.fake.requests, "CHILD-C");
    const childTools = child[0].body.tools!.map((t: any) => t.name);
    expect(childTools).not.toContain("spawn_agent");
    expect(childTools).toContain("read");
    const childEnd = h.events
      .filter(isEnd)
      .find((e) => e.agent_id !== undefined && e.data.tool_name === "spawn_agent")!;
    expect(childEnd.data.is_error).toBe(true);
    expect(childRequests(h.fake.requests, "GRANDCHILD").length).toBe(0);
  });

  test("9.9 maxSubagentDepth 0 offers no subagent tools at all", async () => {
    await using h = await harness([{ text: "ok" }], { config: { maxSubagentDepth: 0 } });
    await h.session.submit("hi");
    const names = h.fake.requests[0].body.tools!.map((t: any) => t.name);
    expect(names).not.toContain("spawn_agent");
    expect(names).not.toContain("wait");
  });

  test("9.9 send_input, wait and close_agent", async () => {
    await using h = await harness(
      routeByPrompt({
        PARENT: [
          call("spawn_agent", { task: "CHILD-D: answer, then answer the follow-up" }),
          (r) => call("wait", { agent_id: spawnedId(r) }),
          (r) => call("send_input", { agent_id: spawnedId(r), message: "now the second part" }),
          (r) => call("wait", { agent_id: spawnedId(r) }),
          (r) => call("close_agent", { agent_id: spawnedId(r) }),
          (r) => call("send_input", { agent_id: spawnedId(r), message: "too late" }),
          { text: "all done" },
        ],
        "CHILD-D": [{ text: "first answer" }, { text: "second answer" }],
      }),
    );
    const result = await h.session.submit("PARENT: talk to a child");
    expect(result.text).toBe("all done");
    const ends = h.events
      .filter(isEnd)
      .filter((e) => e.agent_id === undefined)
      .map((e) => e.data.output as any);
    const texts = ends.map((o) => o.text as string);
    expect(texts[1]).toContain("first answer");
    expect(texts[3]).toContain("second answer");
    expect(texts[4]).toContain("closed (it was completed)");
    expect(ends[5].status).toBe("error");
    expect(ends[5].error.message).toContain("closed");
    // The child's second input continued its own conversation.
    const second = childRequests(h.fake.requests, "CHILD-D")[1];
    expect(JSON.stringify(second.body.messages)).toContain("first answer");
    expect(JSON.stringify(second.body.messages)).toContain("now the second part");
  });

  test("9.9 two children run in parallel: each starts its command before the other's ends", async () => {
    await using h = await harness(
      routeByPrompt({
        PARENT: [
          {
            toolCalls: [
              { name: "spawn_agent", arguments: { task: "CHILD-E1: sleep" } },
              { name: "spawn_agent", arguments: { task: "CHILD-E2: sleep" } },
            ],
          },
          (r) => call("wait", { agent_id: [spawnedId(r, 0), spawnedId(r, 1)], all: true }),
          { text: "both finished" },
        ],
        "CHILD-E1": [call("bash", { command: "sleep 1; echo one" }), { text: "one done" }],
        "CHILD-E2": [call("bash", { command: "sleep 1; echo two" }), { text: "two done" }],
      }),
    );
    const result = await h.session.submit("PARENT: run two children");
    expect(result.text).toBe("both finished");
    const childCalls = h.events.filter(
      (e) =>
        e.agent_id !== undefined &&
        (e.kind === "tool_call_start" || e.kind === "tool_call_end") &&
        e.data.tool_name === "bash",
    );
    const starts = childCalls.filter((e) => e.kind === "tool_call_start").map((e) => e.timestamp);
    const ends = childCalls.filter((e) => e.kind === "tool_call_end").map((e) => e.timestamp);
    expect(starts.length).toBe(2);
    expect(Math.max(...starts)).toBeLessThan(Math.min(...ends));
    const waitText = (h.events.filter(isEnd).find((e) => e.data.tool_name === "wait")!.data.output as any).text;
    expect(waitText).toContain("one done");
    expect(waitText).toContain("two done");
  });

  test("9.9 aborting the parent kills a child's running command", async () => {
    await using h = await harness(
      routeByPrompt({
        PARENT: [
          call("spawn_agent", { task: "CHILD-F: long command" }),
          (r) => call("wait", { agent_id: spawnedId(r) }),
          { text: "never" },
        ],
        "CHILD-F": [call("bash", { command: "echo $$ > child.pid; sleep 30", timeout: 60 }), { text: "never" }],
      }),
      { killGraceMs: 200 },
    );
    const running = h.session.submit("PARENT: start a long child");
    const pid = await pidFrom(join(h.dir, "child.pid"));
    expect(alive(pid)).toBe(true);
    await h.session.abort();
    await running.catch(() => {});
    expect(alive(pid)).toBe(false);
    expect(h.session.subagents[0].status).toBe("closed");
  });

  test("9.9 a child's error becomes an error result and the parent goes on", async () => {
    await using h = await harness(
      routeByPrompt({
        PARENT: [
          call("spawn_agent", { task: "CHILD-G: fail" }),
          (r) => call("wait", { agent_id: spawnedId(r) }),
          { text: "the child failed; I carry on" },
        ],
        "CHILD-G": [{ fault: { type: "invalid_request", message: "bad request from the child" } }],
      }),
    );
    const result = await h.session.submit("PARENT: spawn a failing child");
    expect(result.stopReason).toBe("completed");
    expect(result.text).toBe("the child failed; I carry on");
    const waitOut = h.events.filter(isEnd).find((e) => e.data.tool_name === "wait")!.data.output as any;
    expect(waitOut.text).toContain("failed");
    expect(waitOut.data.agents[0].status).toBe("failed");
  });

  test("issue 24: a child whose answer was refused is reported failed, with the sentence saying why", async () => {
    await using h = await harness(
      routeByPrompt({
        PARENT: [
          call("spawn_agent", { task: "CHILD-R: refuse" }),
          (r) => call("wait", { agent_id: spawnedId(r) }),
          { text: "the child refused; I carry on" },
        ],
        "CHILD-R": [{ text: "I can't help with that.", finishReason: "refusal" }],
      }),
    );
    const result = await h.session.submit("PARENT: spawn a refusing child");
    expect(result.stopReason).toBe("completed");
    const waitOut = h.events.filter(isEnd).find((e) => e.data.tool_name === "wait")!.data.output as any;
    expect(waitOut.data.agents[0].status).toBe("failed");
    expect(waitOut.text).toContain("The model refused to answer.");
  });

  test("events: child events are forwarded with agent_id and parent_id, between subagent_start and subagent_end; usage rolls up", async () => {
    await using h = await harness(
      routeByPrompt({
        PARENT: [
          { ...call("spawn_agent", { task: "CHILD-H: answer" }), usage: { input: 10, output: 5 } },
          (r) => ({ ...call("wait", { agent_id: spawnedId(r) }), usage: { input: 10, output: 5 } }),
          { text: "done", usage: { input: 10, output: 5 } },
        ],
        "CHILD-H": [{ text: "child answer", usage: { input: 1000, output: 500 } }],
      }),
    );
    const result = await h.session.submit("PARENT: count usage");
    const start = h.events.find((e) => e.kind === "subagent_start")!;
    const end = h.events.find((e) => e.kind === "subagent_end")!;
    expect(start.agent_id).toBeUndefined();
    const forwarded = h.events.filter((e) => e.agent_id === start.data.agent_id);
    expect(forwarded.length).toBeGreaterThan(3);
    for (const e of forwarded) {
      expect(e.parent_id).toBe(h.session.id);
      expect(e.session_id).not.toBe(h.session.id);
    }
    expect(forwarded.some((e) => e.kind === "assistant_text_delta")).toBe(true);
    expect(end.data.status).toBe("completed");
    expect(end.data.output).toBe("child answer");
    expect(result.usage.input).toBe(1030);
    expect(result.usage.output).toBe(515);
  });

  test("spawn beyond the cap on concurrent children is an error result", async () => {
    await using h = await harness(
      routeByPrompt({
        PARENT: [
          {
            toolCalls: [
              { name: "spawn_agent", arguments: { task: "CHILD-I1: wait" } },
              { name: "spawn_agent", arguments: { task: "CHILD-I2: wait" } },
            ],
          },
          { text: "done" },
        ],
        "CHILD-I1": [call("bash", { command: "sleep 1" }), { text: "1" }],
        "CHILD-I2": [{ text: "2" }],
      }),
      { config: { maxConcurrentSubagents: 1 } },
    );
    await h.session.submit("PARENT: two at once");
    const outs = h.events
      .filter(isEnd)
      .filter((e) => e.data.tool_name === "spawn_agent" && e.agent_id === undefined)
      .map((e) => e.data.output as any);
    expect(outs[0].status).toBe("success");
    expect(outs[1].status).toBe("error");
    expect(outs[1].error.message).toContain("already running");
  });

  test("issue 22 item 3: 50 Agent calls in one turn under maxConcurrentSubagents 4 never run more than 4 children at once", async () => {
    const calls = Array.from({ length: 50 }, (_, i) => ({
      name: "Agent",
      arguments: { description: `part ${i}`, prompt: `CHILD-CAP ${i}: answer` },
    }));
    await using h = await harness(
      routeByPrompt({
        PARENT: [{ toolCalls: calls }, { text: "done" }],
        "CHILD-CAP": [call("Bash", { command: "true" }), { text: "ok" }],
      }),
      { profile: "anthropic", config: { maxConcurrentSubagents: 4 } },
    );
    let running = 0;
    let most = 0;
    let started = 0;
    h.session.subscribe((e) => {
      if (e.kind === "subagent_start") {
        started++;
        most = Math.max(most, ++running);
      } else if (e.kind === "subagent_end") running--;
    });
    await h.session.submit("PARENT: fifty at once");
    const outs = h.events
      .filter(isEnd)
      .filter((e) => e.data.tool_name === "Agent" && e.agent_id === undefined)
      .map((e) => e.data.output as any);
    expect(outs.length).toBe(50);
    expect(most).toBeLessThanOrEqual(4);
    expect(started).toBeGreaterThanOrEqual(1);
    // Every call was answered: a child's report, or the cap named.
    expect(outs.every((o) => o.status === "success" || o.error.message.includes("(the limit is 4)"))).toBe(true);
    expect(outs.filter((o) => o.status === "success").length).toBe(started);
  }, 30_000);

  test("spawn_agent working_dir: the child works in that subdirectory; outside the workspace is refused", async () => {
    await using h = await harness(
      routeByPrompt({
        PARENT: [
          call("spawn_agent", { task: "CHILD-J: write here.txt", working_dir: "pkg" }),
          (r) => call("wait", { agent_id: spawnedId(r) }),
          call("spawn_agent", { task: "CHILD-K: never", working_dir: "../elsewhere" }),
          { text: "done" },
        ],
        "CHILD-J": [
          call("write", { path: "here.txt", content: "x" }),
          call("bash", { command: "pwd > where.txt" }),
          { text: "ok" },
        ],
      }),
    );
    mkdirSync(join(h.dir, "pkg"));
    await h.session.submit("PARENT: scoped child");
    expect(existsSync(join(h.dir, "pkg", "here.txt"))).toBe(true);
    expect(readFileSync(join(h.dir, "pkg", "where.txt"), "utf8").trim()).toEndWith("/pkg");
    const outs = h.events
      .filter(isEnd)
      .filter((e) => e.data.tool_name === "spawn_agent" && e.agent_id === undefined)
      .map((e) => e.data.output as any);
    expect(outs[1].status).toBe("error");
    expect(childRequests(h.fake.requests, "CHILD-K").length).toBe(0);
  });
});

test("a resumed parent knows its children: finished ones report their answer, and send_input revives them", async () => {
  const script = routeByPrompt({
    PARENT: [
      call("spawn_agent", { task: "CHILD-R: first task" }),
      (r) => call("wait", { agent_id: spawnedId(r) }),
      { text: "first run done" },
    ],
    "CHILD-R": [{ text: "first answer" }, { text: "second answer" }],
  });
  await using h = await harness(script);
  await h.session.submit("PARENT: spawn and wait");
  const id = h.session.subagents[0].agent_id;
  const file = h.session.sessionFile!;
  await h.session.close();
  const { createSession } = await import("../../lib/agent/index.ts");
  const { MODEL } = await import("./harness.ts");
  await using resumed = await createSession({
    model: MODEL,
    profile: "default",
    cwd: h.dir,
    client: h.fake,
    store: { resume: file },
  });
  expect(resumed.subagents).toEqual([
    expect.objectContaining({ agent_id: id, status: "completed", output: "first answer" }),
  ]);
  // Reading the children to know them locks none of them: another process may still resume one.
  const childFile = childFiles(file)[0].path;
  expect(existsSync(`${childFile}.lock`)).toBe(false);
  h.fake.setScript(
    routeByPrompt({
      PARENT: [
        {},
        {},
        {},
        call("send_input", { agent_id: id, message: "and now the second" }),
        call("wait", { agent_id: id }),
        { text: "second run done" },
      ],
      "CHILD-R": [{ text: "first answer" }, { text: "second answer" }],
    }),
  );
  const result = await resumed.submit("continue with the child");
  expect(result.text).toBe("second run done");
  const child = childRequests(h.fake.requests, "CHILD-R").at(-1)!;
  expect(JSON.stringify(child.body.messages)).toContain("first answer");
  expect(resumed.subagents[0].output).toBe("second answer");
});

describe("subagents in each profile's tools (§9.12 subagent row)", () => {
  test("anthropic: Agent runs a child to completion and returns its report", async () => {
    await using h = await harness(
      routeByPrompt({
        PARENT: [call("Agent", { description: "write notes", prompt: "CHILD-CC: write notes.md" }), { text: "done" }],
        "CHILD-CC": [call("Write", { file_path: "notes.md", content: "# notes\n" }), { text: "notes.md written" }],
      }),
      { profile: "anthropic" },
    );
    await h.session.submit("PARENT: delegate");
    const tools = h.fake.requests[0].body.tools!;
    const agent = tools.find((t) => t.name === "Agent")!.parameters as { properties: object; required: string[] };
    expect(Object.keys(agent.properties).sort()).toEqual([
      "description",
      "model",
      "prompt",
      "run_in_background",
      "subagent_type",
    ]);
    expect(agent.required.sort()).toEqual(["description", "prompt"]);
    expect(tools.some((t) => t.name === "spawn_agent")).toBe(false);
    const end = h.events.filter(isEnd).find((e) => e.data.tool_name === "Agent")!.data.output as any;
    expect(end.text).toBe("notes.md written");
    expect(readFileSync(join(h.dir, "notes.md"), "utf8")).toBe("# notes\n");
  });

  test("anthropic: Explore subagents get only the reading tools; run_in_background reports back as a message", async () => {
    await using h = await harness(
      routeByPrompt({
        PARENT: [
          call("Agent", {
            description: "look around",
            prompt: "CHILD-EX: list files",
            subagent_type: "Explore",
            run_in_background: true,
          }),
          { text: "started it" },
          { text: "got the report" },
        ],
        "CHILD-EX": [{ text: "found 3 files" }],
      }),
      { profile: "anthropic" },
    );
    await h.session.submit("PARENT: explore in the background");
    await waitForEvent(
      h.session,
      h.events,
      (e) => e.kind === "agent_end" && e.agent_id === undefined && h.fake.requests.length >= 4,
    );
    const child = childRequests(h.fake.requests, "CHILD-EX")[0];
    const names = child.body.tools!.map((t: any) => t.name);
    expect(names).not.toContain("Write");
    expect(names).not.toContain("Bash");
    expect(names).toContain("Read");
    const last = h.fake.requests.at(-1)!;
    expect(JSON.stringify(last.body.messages)).toContain("found 3 files");
  });

  test("openai (Responses API): codex's spawn_agent / wait_agent / close_agent", async () => {
    await using h = await harness(
      routeByPrompt({
        PARENT: [
          call("spawn_agent", { message: "CHILD-OA: summarise", agent_type: "explorer" }),
          (r) => call("wait_agent", { targets: [spawnedId(r)], timeout_ms: 60_000 }),
          (r) => call("close_agent", { target: spawnedId(r) }),
          { text: "done" },
        ],
        "CHILD-OA": [{ text: "summary here" }],
      }),
      { model: "openai/gpt-5.2", profile: "openai" },
    );
    await h.session.submit("PARENT: codex style");
    const tools = h.fake.requests[0].body.tools!.map((t: any) => t.name);
    expect(tools).toEqual(expect.arrayContaining(["spawn_agent", "send_input", "wait_agent", "close_agent"]));
    const outs = h.events
      .filter(isEnd)
      .filter((e) => e.agent_id === undefined)
      .map((e) => e.data.output as any);
    const spawned = JSON.parse(outs[0].text);
    expect(spawned.agent_id).toMatch(/^[0-9a-f]{8}$/);
    const waited = JSON.parse(outs[1].text);
    expect(waited).toEqual({ status: { [spawned.agent_id]: { completed: "summary here" } }, timed_out: false });
    expect(JSON.parse(outs[2].text)).toEqual({ previous_status: { completed: "summary here" } });
  });

  test("default (Chat Completions): spawn_agent / wait / close_agent; the child's requests go over Chat too", async () => {
    await using h = await httpHarness(
      routeByPrompt({
        PARENT: [
          call("spawn_agent", { task: "CHILD-CH: write chat.txt" }),
          (r) => call("wait", { agent_id: spawnedId(r) }),
          (r) => call("close_agent", { agent_id: spawnedId(r) }),
          { text: "done" },
        ],
        "CHILD-CH": [call("write", { path: "chat.txt", content: "over chat\n" }), { text: "chat.txt written" }],
      }),
      { model: "xai/grok-4", profile: "auto" },
    );
    expect(h.session.profile).toBe("default");
    const result = await h.session.submit("PARENT: delegate over chat");
    expect(result.text).toBe("done");
    expect(readFileSync(join(h.dir, "chat.txt"), "utf8")).toBe("over chat\n");
    expect(h.fake.requests.every((r) => r.format === "openai-chat")).toBe(true);
    const tools = h.fake.requests[0].body.tools.map((t: any) => t.function.name);
    expect(tools).toEqual(expect.arrayContaining(["spawn_agent", "send_input", "wait", "close_agent"]));
    expect(childRequests(h.fake.requests, "CHILD-CH")).toHaveLength(2);
    const ends = h.events.filter(isEnd).filter((e) => e.agent_id === undefined);
    expect((ends.find((e) => e.data.tool_name === "wait")!.data.output as any).text).toContain("chat.txt written");
    expect(ends.map((e) => e.data.is_error)).toEqual([false, false, false]);
  });

  test("gemini: invoke_agent runs the named agent; an unknown name is an error result", async () => {
    await using h = await harness(
      routeByPrompt({
        PARENT: [
          call("invoke_agent", { agent_name: "codebase_investigator", prompt: "CHILD-GM: how is it built?" }),
          call("invoke_agent", { agent_name: "nobody", prompt: "x" }),
          { text: "done" },
        ],
        "CHILD-GM": [{ text: "with bun" }],
      }),
      { model: "gemini/gemini-2.5-pro", profile: "gemini" },
    );
    await h.session.submit("PARENT: gemini style");
    expect(h.fake.requests[0].body.tools!.map((t) => t.name)).toContain("invoke_agent");
    const outs = h.events
      .filter(isEnd)
      .filter((e) => e.agent_id === undefined)
      .map((e) => e.data.output as any);
    expect(outs[0].text).toBe("with bun");
    expect(outs[1].status).toBe("error");
    expect(outs[1].error.message).toContain("codebase_investigator");
  });
});

test("routeByPrompt serves interleaved conversations their own turns", async () => {
  const script = routeByPrompt({ A: [{ text: "a1" }, { text: "a2" }], B: [{ text: "b1" }] });
  const req = (messages: unknown[]): RecordedRequest => ({
    method: "POST",
    path: "/v1/messages",
    headers: {},
    body: { messages },
    format: "anthropic-messages",
    index: 0,
  });
  expect(await (script as (r: RecordedRequest) => ScriptTurn)(req([{ role: "user", content: "A go" }]))).toEqual({
    text: "a1",
  });
  expect(await (script as (r: RecordedRequest) => ScriptTurn)(req([{ role: "user", content: "B go" }]))).toEqual({
    text: "b1",
  });
  expect(
    await (script as (r: RecordedRequest) => ScriptTurn)(
      req([
        { role: "user", content: "A go" },
        { role: "assistant", content: "a1" },
        { role: "user", content: "more" },
      ]),
    ),
  ).toEqual({ text: "a2" });
});

describe("a child follows its parent's profile and tool selection", () => {
  test("after setProfile('anthropic') an Agent child gets Claude Code's tools", async () => {
    await using h = await harness(
      routeByPrompt({
        PARENT: [call("Agent", { description: "say hi", prompt: "CHILD-P: say hi" }), { text: "done" }],
        "CHILD-P": [{ text: "child here" }],
      }),
      { profile: "default" },
    );
    h.session.setProfile("anthropic");
    await h.session.submit("PARENT: go");
    const end = h.events.filter(isEnd).find((e) => e.agent_id === undefined && e.data.tool_name === "Agent")!.data
      .output as any;
    expect(end.status).toBe("success");
    expect(end.text).toBe("child here");
    const child = childRequests(h.fake.requests, "CHILD-P")[0];
    const names = child.body.tools!.map((t: any) => t.name);
    expect(names).toEqual(expect.arrayContaining(["Read", "Write", "Edit", "Bash", "Grep", "Glob"]));
    expect(names).not.toContain("read");
  });

  test("profile auto: spawn_agent with a model of another family gives the child that family's names for the parent's selection", async () => {
    await using h = await harness(
      routeByPrompt({
        PARENT: [
          call("spawn_agent", { message: "CHILD-M: hi", model: "anthropic/claude-sonnet-4-5" }),
          (r) => call("wait_agent", { targets: [spawnedId(r)] }),
          { text: "done" },
        ],
        "CHILD-M": [{ text: "child here" }],
      }),
      { model: "openai/gpt-5.2", profile: "auto" },
    );
    // The parent picks codex's tools by name; the child on a Claude model gets the same capabilities under Claude Code's names.
    h.session.setTools(["read_file", "exec_command", "spawn_agent", "wait_agent"]);
    await h.session.submit("PARENT: go");
    const outs = h.events
      .filter(isEnd)
      .filter((e) => e.agent_id === undefined)
      .map((e) => e.data.output as any);
    expect(outs.map((o) => o.status)).toEqual(["success", "success"]);
    expect(JSON.parse(outs[1].text).status).toEqual({
      [JSON.parse(outs[0].text).agent_id]: { completed: "child here" },
    });
    const child = childRequests(h.fake.requests, "CHILD-M");
    expect(child.length).toBe(1);
    expect(child[0].api).toBe("anthropic-messages");
    // read_file → read → Read; exec_command → bash → Bash and its background-job companions; no subagent tools at the limit.
    expect(child[0].body.tools!.map((t: any) => t.name)).toEqual(["Read", "Bash", "TaskOutput", "TaskStop"]);
  });
});

test("interrupt() of the parent stops the child its input spawned and kills the child's command", async () => {
  await using h = await harness(
    routeByPrompt({
      PARENT: [
        call("spawn_agent", { task: "CHILD-INT: long command" }),
        (r) => call("wait", { agent_id: spawnedId(r) }),
        { text: "second input answered" },
      ],
      "CHILD-INT": [call("bash", { command: "echo $$ > child.pid; sleep 30", timeout: 60 }), { text: "never" }],
    }),
    { killGraceMs: 200 },
  );
  const running = h.session.submit("PARENT: start a long child");
  const pid = await pidFrom(join(h.dir, "child.pid"));
  expect(alive(pid)).toBe(true);
  await h.session.interrupt();
  expect((await running).stopReason).toBe("aborted");
  expect(alive(pid)).toBe(false);
  expect(h.session.state).toBe("IDLE");
  const [child] = h.session.subagents;
  expect(child.status).toBe("failed");
  expect(child.error).toContain("interrupted");
  const end = h.events.find((e) => e.kind === "subagent_end")!;
  expect(end.data.status).toBe("failed");
  // The parent goes on with its history.
  expect((await h.session.submit("PARENT: and now?")).text).toBe("second input answered");
});

test("9.9 wait with a timeout returns a timed-out result while the child keeps running; a later wait gets its answer", async () => {
  await using h = await harness(
    routeByPrompt({
      PARENT: [
        call("spawn_agent", { task: "CHILD-TO: wait for the go file" }),
        (r) => call("wait", { agent_id: spawnedId(r), timeout_ms: 50 }),
        (r) => call("wait", { agent_id: spawnedId(r) }),
        { text: "done" },
      ],
      "CHILD-TO": [
        call("bash", { command: "while [ ! -f go ]; do sleep 0.05; done; echo released" }),
        { text: "released at last" },
      ],
    }),
  );
  // The child can only finish once the first wait has returned.
  h.session.subscribe((e) => {
    if (
      e.kind === "tool_call_end" &&
      e.agent_id === undefined &&
      e.data.tool_name === "wait" &&
      (e.data.output as any).data?.timed_out
    )
      writeFileSync(join(h.dir, "go"), "");
  });
  await h.session.submit("PARENT: wait briefly, then for real");
  const waits = h.events
    .filter(isEnd)
    .filter((e) => e.agent_id === undefined && e.data.tool_name === "wait")
    .map((e) => e.data.output as any);
  expect(waits[0].status).toBe("success");
  expect(waits[0].data.timed_out).toBe(true);
  expect(waits[0].data.agents[0]).toMatchObject({ status: "running", success: false, turns_used: 0 });
  expect(waits[0].text).toContain("timed out");
  expect(waits[1].data.timed_out).toBe(false);
  // The spec's SubAgentResult: output, success, turns_used (docs/conformance.md: 004 §7.3).
  expect(waits[1].data.agents[0]).toMatchObject({
    status: "completed",
    output: "released at last",
    success: true,
    turns_used: 2,
  });
});

test("maxSubagentDepth 2: a child may spawn a grandchild; the grandchild has no spawn tool and its spawn is refused", async () => {
  await using h = await harness(
    routeByPrompt({
      PARENT: [
        call("spawn_agent", { task: "CHILD-D2: delegate further" }),
        (r) => call("wait", { agent_id: spawnedId(r) }),
        { text: "done" },
      ],
      "CHILD-D2": [
        call("spawn_agent", { task: "GRAND-D2: try once more" }),
        (r) => call("wait", { agent_id: spawnedId(r) }),
        { text: "child done" },
      ],
      "GRAND-D2": [call("spawn_agent", { task: "GREAT-D2: never" }), { text: "grandchild done" }],
    }),
    { config: { maxSubagentDepth: 2 } },
  );
  const result = await h.session.submit("PARENT: go deep");
  expect(result.text).toBe("done");
  const toolsOf = (marker: string) => childRequests(h.fake.requests, marker)[0].body.tools!.map((t: any) => t.name);
  expect(toolsOf("CHILD-D2")).toEqual(expect.arrayContaining(["spawn_agent", "wait"]));
  expect(toolsOf("GRAND-D2")).not.toContain("spawn_agent");
  expect(childRequests(h.fake.requests, "GREAT-D2").length).toBe(0);
  // The grandchild's events reach the top with its own agent_id and its parent (the child) as parent_id.
  const starts = h.events.filter((e) => e.kind === "subagent_start") as SessionEvent<"subagent_start">[];
  const child = starts.find((e) => e.agent_id === undefined)!;
  const grand = starts.find((e) => e.agent_id !== undefined)!;
  expect(grand.agent_id).toBe(child.data.agent_id);
  const grandEvents = h.events.filter((e) => e.agent_id === grand.data.agent_id);
  expect(grandEvents.length).toBeGreaterThan(0);
  expect(grandEvents.every((e) => e.parent_id === grand.session_id)).toBe(true);
  const refused = grandEvents.find(
    (e) => e.kind === "tool_call_end" && e.data.tool_name === "spawn_agent",
  ) as SessionEvent<"tool_call_end">;
  expect(refused.data.is_error).toBe(true);
  expect(h.session.subagents[0].status).toBe("completed");
});
