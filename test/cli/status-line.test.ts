/**
 * Issue 22 item 12: the shell's status line after a compaction. A 1 MB prompt made the last
 * answer's usage larger than the window ("context 133%"); the compaction's result is what the
 * conversation holds afterwards, and a share over 100 % is never shown.
 */
import { expect, test } from "bun:test";
import { EventBus, type SessionEvent } from "../../lib/agent/events.ts";
import type { AssistantMessage } from "../../lib/llm/types.ts";
import { StatusLine } from "../../lib/cli/status-line.ts";
import { makeStyle } from "../../lib/cli/render.ts";

const info = () => ({ model: "anthropic/claude-haiku-4-5", profile: "anthropic", approval: "auto", cost: 0 }); // a 200,000-token window

function answer(input: number, finishReason: AssistantMessage["finishReason"] = "end_turn"): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text: "ok" }],
    model: "anthropic/claude-haiku-4-5",
    finishReason,
    timestamp: 0,
    usage: { input, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, cost: 0 },
  } as unknown as AssistantMessage;
}

test("issue 22 item 12: after a compaction the status line shows what the compaction left, never more than 100 %", () => {
  const status = new StatusLine(makeStyle(false), info);
  const bus = new EventBus(() => "s1");
  bus.subscribe((e: SessionEvent) => status.observe(e));
  bus.emit("message_end", { message: answer(50_000) });
  expect(status.text()).toContain("context 25%");
  bus.emit("message_end", { message: answer(266_000) });
  expect(status.text()).toContain("context full");
  expect(status.text()).not.toMatch(/context \d{3,}%/);
  bus.emit("compaction_end", { reason: "overflow", compacted: true, tokens_before: 266_000, tokens_after: 40_000 });
  expect(status.text()).toContain("context 20%");
  // A failed call's usage does not count as the conversation's size.
  bus.emit("message_end", { message: answer(300_000, "error") });
  expect(status.text()).toContain("context 20%");
});
