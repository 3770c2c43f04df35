/** Issue 40 items 3 and 4: steering lines from Enter to the model, held while a call waits to start. */
import { expect, test } from "bun:test";
import type { SessionEvent } from "../../lib/agent/index.ts";
import { SteeringLines } from "../../lib/cli/steering-lines.ts";

const event = (kind: string, data: Record<string, unknown>) => ({ kind, data }) as unknown as SessionEvent;

function lines() {
  const delivered: [string, boolean][] = [];
  let shown: readonly string[] = [];
  const steering = new SteeringLines(
    (text, now) => delivered.push([text, now]),
    (l) => {
      shown = l;
    },
  );
  return { steering, delivered, shown: () => shown };
}

test("issue 40 item 4: a sent line waits under the status until the model reads it, then leaves (it is shown once, where it was read)", () => {
  const { steering, delivered, shown } = lines();
  steering.send("then summarise");
  expect(delivered).toEqual([["then summarise", false]]);
  expect(shown()).toEqual(["then summarise"]);
  steering.observe(event("steering_injected", { content: "then summarise" }));
  expect(shown()).toEqual([]);
});

test("issue 40 item 3: a line sent while the model writes, or while its call waits to start, is held until the call starts", () => {
  const { steering, delivered, shown } = lines();
  const args = { command: "rm -rf build" };
  steering.observe(event("turn_start", { turn_index: 0 }));
  steering.send("y");
  expect(delivered).toEqual([]);
  expect(shown()).toEqual(["y"]);
  steering.observe(event("tool_call_update", { call_id: "c1", tool_name: "bash", delta: "" }));
  steering.observe(event("message_end", { message: { role: "assistant", content: [] } }));
  steering.observe(event("tool_call_start", { call_id: "c1", tool_name: "bash", arguments: args }));
  // Still waiting: the call has not started (its approval may be asked).
  expect(delivered).toEqual([]);
  steering.started(args);
  // Sent once the call runs: it reaches the model after it, never skipping it.
  expect(delivered).toEqual([["y", false]]);
});

test("issue 40 item 3: when the call's question comes up, held lines are set aside (not sent, not the answer)", () => {
  const { steering, delivered, shown } = lines();
  steering.observe(event("turn_start", { turn_index: 0 }));
  steering.observe(event("tool_call_update", { call_id: "c1", tool_name: "bash", delta: "" }));
  steering.send("y");
  expect(steering.setAside()).toEqual(["y"]);
  expect(shown()).toEqual([]);
  steering.observe(event("message_end", { message: { role: "assistant", content: [] } }));
  steering.observe(event("tool_call_end", { call_id: "c1" }));
  expect(delivered).toEqual([]);
});

test("issue 40: Ctrl-X sends at once; an interrupted input gives back what the model did not read", () => {
  const { steering, delivered } = lines();
  steering.sendNow("stop that");
  expect(delivered).toEqual([["stop that", true]]);
  steering.observe(event("turn_start", { turn_index: 1 }));
  steering.send("held one");
  expect(steering.end(true)).toEqual(["stop that", "held one"]);
  expect(steering.waitingLines).toEqual([]);
  steering.send("after the end");
  expect(steering.end(false)).toEqual([]);
});

test("issue 40 queued messages: Up takes back the lines the session still queued and the held ones; none reaches the model", () => {
  const { steering, delivered, shown } = lines();
  steering.send("first, sent");
  steering.observe(event("turn_start", { turn_index: 1 }));
  steering.send("second, held");
  expect(shown()).toEqual(["first, sent", "second, held"]);
  // The session gave back what it had queued (the sent line); the held one comes with it.
  expect(steering.takeBack(["first, sent"])).toEqual(["first, sent", "second, held"]);
  expect(shown()).toEqual([]);
  steering.observe(event("message_end", { message: { role: "assistant", content: [] } }));
  expect(delivered).toEqual([["first, sent", false]]);
  expect(steering.end(true)).toEqual([]);
});

test("issue 40 item 3: the gate tells the lines when a call starts, whatever it answered, and reads the call as the session gave it", async () => {
  const { steering, delivered } = lines();
  const args = { command: "ls" };
  steering.observe(event("turn_start", { turn_index: 0 }));
  steering.observe(event("tool_call_start", { call_id: "c1", tool_name: "bash", arguments: args }));
  steering.observe(event("message_end", { message: { role: "assistant", content: [] } }));
  steering.send("after ls");
  const seen: unknown[] = [];
  const gate = steering.afterGate({
    hooks: {
      beforeToolCall: async (...params: unknown[]) => {
        seen.push(...params);
        return { block: true, reason: "no" };
      },
    },
  } as never);
  const call = { id: "c1", tool: { name: "bash" } };
  await (gate.hooks.beforeToolCall as (...p: unknown[]) => Promise<unknown>)("bash", args, call);
  expect(seen).toEqual(["bash", args, call]);
  expect(delivered).toEqual([["after ls", false]]);
});
