/**
 * The event payloads are typed by kind: checking `kind` narrows `data`, so a consumer reading a
 * field its kind does not carry fails the type check (`tsc --noEmit` runs in CI). The
 * `@ts-expect-error` lines below would themselves fail the check if the compiler accepted them.
 */
import { expect, test } from "bun:test";
import type { EventMap, SessionEvent } from "../../lib/agent/index.ts";

function describeEvent(event: SessionEvent): string {
  switch (event.kind) {
    case "tool_call_start":
      return `${event.data.tool_name} ${JSON.stringify(event.data.arguments)}`;
    case "tool_call_end":
      // tool_call_end carries the envelope; the error sentence lives in output.error, not beside it.
      // @ts-expect-error -- no `error` field on tool_call_end
      void event.data.error;
      return event.data.is_error ? `failed: ${event.data.output.error?.message}` : "ok";
    case "tool_call_update":
      // @ts-expect-error -- the tool's name is `tool_name` in every event, never `name`
      void event.data.name;
      return event.data.tool_name;
    case "assistant_text_delta":
      return event.data.delta;
    default:
      return event.kind;
  }
}

test("a kind check narrows the payload to that kind's fields", () => {
  const start: SessionEvent<"tool_call_start"> = {
    kind: "tool_call_start",
    timestamp: 0,
    session_id: "s",
    data: { call_id: "c1", tool_name: "bash", arguments: { command: "ls" }, kind: "shell", call_summary: "ls" },
  };
  expect(describeEvent(start)).toBe('bash {"command":"ls"}');
  const end: SessionEvent = {
    kind: "tool_call_end",
    timestamp: 0,
    session_id: "s",
    data: {
      call_id: "c1",
      tool_name: "bash",
      is_error: true,
      truncated: false,
      output_complete: true,
      full_output_path: null,
      kind: "shell",
      call_summary: "ls",
      result_summary: "exit 1",
      output: {
        status: "error",
        data: {},
        text: "",
        error: { code: "EXECUTION_ERROR", message: "exit 1" },
        stats: {},
        context: {},
      } as EventMap["tool_call_end"]["output"],
    },
  };
  expect(describeEvent(end)).toBe("failed: exit 1");
});

test("a payload with a field its kind does not have is refused", () => {
  const data: EventMap["turn_start"] = {
    turn_index: 0,
    // @ts-expect-error -- turn_start has no tool_calls
    tool_calls: [],
  };
  expect(data.turn_index).toBe(0);
});
