/**
 * issue 23 "the loop as a function": runLoop driven on its own — no Session — with the scripted
 * model behind the real client, real commands for the tool round, and only the narrow callbacks
 * of LoopConfig leading back to whoever runs it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { resolveConfig } from "../../lib/agent/config.ts";
import type { EventKind, EventMap, SessionEvent } from "../../lib/agent/vocabulary.ts";
import { HookRunner } from "../../lib/agent/hooks.ts";
import { LoopDetector } from "../../lib/agent/loop-detection.ts";
import { runLoop, type LoopConfig, type LoopContext } from "../../lib/agent/loop.ts";
import { buildToolset } from "../../lib/agent/toolset.ts";
import type { ExecutedCall } from "../../lib/agent/tool-execution.ts";
import { startReply } from "../../lib/envelope.ts";
import { LocalEnvironment } from "../../lib/env/local.ts";
import type { Message, ToolCallPart } from "../../lib/llm/types.ts";
import { zeroUsage } from "../../lib/llm/usage.ts";
import { factoryFor } from "../../lib/profiles/index.ts";
import type { Script, ScriptedRequest } from "../../lib/testing/fake-llm/types.ts";
import { scriptedClient, type ScriptedClient } from "../../lib/testing/scripted-client.ts";
import { tempDir, type TempDir } from "../helpers/temp.ts";

const MODEL = "anthropic/claude-sonnet-4-5";

const fake: ScriptedClient = scriptedClient([]);
let dir: TempDir;
let env: LocalEnvironment;
beforeAll(async () => {
  dir = tempDir("gong-run-loop-");
  env = new LocalEnvironment({ root: dir.dir, killGraceMs: 300 });
});
afterAll(async () => {
  await env.cleanup();
  dir.cleanup();
});

/** Runs one command per call in a real shell: the part of a host the loop reaches through executeTools. */
async function runCommands(calls: ToolCallPart[]): Promise<ExecutedCall[]> {
  const executed: ExecutedCall[] = [];
  for (const call of calls) {
    const result = await env.exec(String(call.arguments.command));
    const response = startReply(call.arguments).success({ exit_code: result.exitCode }, result.stdout);
    executed.push({
      call,
      response,
      message: {
        role: "tool",
        toolCallId: call.id,
        toolName: call.name,
        content: result.stdout,
        isError: false,
        timestamp: Date.now(),
      },
    });
  }
  return executed;
}

interface Driven {
  context: LoopContext;
  config: LoopConfig;
  events: SessionEvent[];
  executed: ToolCallPart[][];
}

/** A context, a config whose callbacks take from the given queues, and an emit that keeps the events. */
function drive(script: Script<ScriptedRequest>, queues: { steering?: string[][]; followUps?: string[] } = {}): Driven {
  fake.setScript(script);
  const profile = factoryFor("default", MODEL)({ model: MODEL, modelInfo: fake.model(MODEL) });
  const toolset = buildToolset({ profile, selection: "default" });
  const events: SessionEvent[] = [];
  const executed: ToolCallPart[][] = [];
  const steering = [...(queues.steering ?? [])];
  const followUps = [...(queues.followUps ?? [])];
  const settings = resolveConfig({});
  const context: LoopContext = { messages: [], turns: 0, current: () => ({ profile, toolset, system: "Be brief." }) };
  const config: LoopConfig = {
    settings,
    client: fake,
    hooks: new HookRunner([], settings, () => {}),
    loopDetector: new LoopDetector(settings),
    executeTools: (calls) => {
      executed.push(calls);
      return runCommands(calls);
    },
    takeSteering: () => steering.shift() ?? [],
    takeFollowUp: () => followUps.shift(),
    maintainContext: async () => true,
    childUsage: zeroUsage,
  };
  return { context, config, events, executed };
}

function emitInto(events: SessionEvent[]) {
  return <K extends EventKind>(kind: K, data: EventMap[K]) => {
    events.push({ kind, timestamp: Date.now(), session_id: "loop-test", data } as SessionEvent);
  };
}

const roles = (messages: readonly Message[]) => messages.map((m) => m.role);
const ended = (events: SessionEvent[]) => events.flatMap((e) => (e.kind === "message_end" ? [e.data] : []));

test("issue 23: runLoop on its own runs a tool round through executeTools and ends with the answer", async () => {
  const { context, config, events, executed } = drive([
    { toolCalls: [{ name: "bash", arguments: { command: "echo from-the-shell" } }] },
    { text: "done" },
  ]);
  const result = await runLoop(
    { text: "say hi", images: [] },
    context,
    config,
    new AbortController().signal,
    emitInto(events),
  );

  expect(result).toMatchObject({ text: "done", stopReason: "completed", turns: 2 });
  expect(executed.map((calls) => calls.map((c) => c.arguments))).toEqual([[{ command: "echo from-the-shell" }]]);
  // Every message joined the context, each told by its own message_end, in order.
  expect(roles(context.messages)).toEqual(["user", "assistant", "tool", "assistant"]);
  expect(ended(events).map((d) => d.message)).toEqual(context.messages);
  expect(context.messages[2].content).toBe("from-the-shell\n");
  // The session-wide count lives on the context: a second run goes on from it.
  expect(context.turns).toBe(2);
  expect(events[0].kind).toBe("agent_start");
  expect(events.at(-1)?.kind).toBe("agent_end");
});

test("issue 23: steering comes only from takeSteering and joins the next request as an injected message", async () => {
  const { context, config, events } = drive([{ text: "first" }, { text: "second" }], {
    steering: [["before anything"], ["after the answer"]],
  });
  const before = fake.requests.length;
  const result = await runLoop(
    { text: "go", images: [] },
    context,
    config,
    new AbortController().signal,
    emitInto(events),
  );

  expect(result).toMatchObject({ text: "second", stopReason: "completed", turns: 2 });
  const injected = ended(events).filter((d) => d.injected !== undefined);
  expect(injected.map((d) => [d.injected, d.message.content])).toEqual([
    ["steering", "before anything"],
    ["steering", "after the answer"],
  ]);
  const requests = fake.requests.slice(before).map((r) => JSON.stringify(r.body));
  expect(requests).toHaveLength(2);
  expect(requests[0]).toContain("before anything");
  expect(requests[1]).toContain("after the answer");
  expect(events.filter((e) => e.kind === "steering_injected")).toHaveLength(2);
});

test("issue 23: a follow-up from takeFollowUp is a second input of the same run", async () => {
  const { context, config, events } = drive([{ text: "one" }, { text: "two" }], { followUps: ["and now?"] });
  const result = await runLoop(
    { text: "start", images: [] },
    context,
    config,
    new AbortController().signal,
    emitInto(events),
  );

  expect(result).toMatchObject({ text: "two", turns: 2 });
  expect(context.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["start", "and now?"]);
  expect(events.filter((e) => e.kind === "agent_start")).toHaveLength(1);
  expect(events.filter((e) => e.kind === "user_input")).toHaveLength(2);
});

test("issue 23: an aborted signal stops the run before any model call", async () => {
  const { context, config, events } = drive([{ text: "never" }]);
  const controller = new AbortController();
  controller.abort();
  const before = fake.requests.length;
  const result = await runLoop({ text: "x", images: [] }, context, config, controller.signal, emitInto(events));

  expect(result.stopReason).toBe("aborted");
  expect(fake.requests.length).toBe(before);
  expect(roles(context.messages)).toEqual(["user"]);
});
