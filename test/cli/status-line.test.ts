/**
 * Issue 22 item 12: the shell's status line after a compaction. A 1 MB prompt made the last
 * answer's usage larger than the window ("context 133%"); the compaction's result is what the
 * conversation holds afterwards, and a share over 100 % is never shown.
 */
import { expect, test } from "bun:test";
import { EventStream } from "../../lib/agent/events.ts";
import type { SessionEvent } from "../../lib/agent/vocabulary.ts";
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
  const stream = new EventStream("s1");
  stream.subscribe((e: SessionEvent) => status.observe(e));
  stream.emit("message_end", { message: answer(50_000) });
  expect(status.text()).toContain("context 25%");
  stream.emit("message_end", { message: answer(266_000) });
  expect(status.text()).toContain("context full");
  expect(status.text()).not.toMatch(/context \d{3,}%/);
  stream.emit("compaction_end", { reason: "overflow", compacted: true, tokens_before: 266_000, tokens_after: 40_000 });
  expect(status.text()).toContain("context 20%");
  // A failed call's usage does not count as the conversation's size.
  stream.emit("message_end", { message: answer(300_000, "error") });
  expect(status.text()).toContain("context 20%");
});

test("issue 40 item 8: at exactly 60 columns the status line drops whole parts, never cut mid-phrase; an interrupted answer's size counts", () => {
  const status = new StatusLine(makeStyle(false), info);
  status.shown = true;
  const at = (columns: number) => status.view(columns).rows[0];
  expect(at(120)).toBe("anthropic/claude-haiku-4-5 (anthropic) · approval: auto (Shift+Tab) · context 0% · $0.0000");
  expect(at(60)).toBe("anthropic/claude-haiku-4-5 · approval: auto · $0.0000");
  expect(at(50)).toBe("anthropic/claude-haiku-4-5 · approval: auto");
  expect(at(60)).not.toContain("…");
  expect(status.view(39).rows).toEqual([]);
  const stream = new EventStream("s1");
  stream.subscribe((e: SessionEvent) => status.observe(e));
  stream.emit("message_end", { message: answer(20_000, "aborted") });
  expect(status.text()).toContain("context 10%");
});
