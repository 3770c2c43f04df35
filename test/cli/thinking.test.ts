/**
 * The model's reasoning in the interactive shell with `showThinking: "collapsed"`: while it streams
 * its latest line is on the live line, then it folds into one dimmed summary line, and `/thinking`
 * prints the whole of the last reasoning.
 */
import { expect, test } from "bun:test";
import type { SessionEvent } from "../../lib/agent/index.ts";
import { EventRenderer } from "../../lib/cli/event-renderer.ts";
import type { LiveLine } from "../../lib/cli/live-line.ts";
import { makeStyle } from "../../lib/cli/render.ts";
import { runSlashCommand, type SlashContext } from "../../lib/cli/slash-commands.ts";
import type { Message } from "../../lib/llm/types.ts";

const plain = makeStyle(false);
const event = (kind: string, data: Record<string, unknown>) => ({ kind, data }) as unknown as SessionEvent;

function collapsedRenderer() {
  const labels: string[] = [];
  let written = "";
  const spinner = {
    start: (label: string) => void labels.push(label),
    stop() {},
    setTokens() {},
    showTail() {},
  } as unknown as LiveLine;
  const renderer = new EventRenderer(
    (s) => (written += s),
    plain,
    spinner,
    () => 80,
    null,
    "collapsed",
  );
  return { renderer, labels, written: () => written };
}

test("showThinking collapsed: the reasoning streams on the live line, then folds into one summary line before the answer", () => {
  const { renderer, labels, written } = collapsedRenderer();
  renderer.render(event("turn_start", { turn_index: 0 }));
  renderer.render(event("assistant_thinking_delta", { delta: "weigh option A\n" }));
  renderer.render(event("assistant_thinking_delta", { delta: "weigh option B" }));
  expect(labels.at(-1)).toBe("thinking: weigh option B");
  expect(written()).toBe("");
  renderer.render(event("assistant_text_delta", { delta: "option B it is" }));
  // Plain text is word-wrapped as it streams: the word being written shows once it is whole.
  expect(written()).toBe("✻ thought for 2 lines (/thinking shows it)\noption B it");
  renderer.finishAnswer();
  expect(written()).toBe("✻ thought for 2 lines (/thinking shows it)\noption B it is\n");
  expect(written()).not.toContain("weigh");
});

test("showThinking collapsed: a tool call after the reasoning also folds it first", () => {
  const { renderer, written } = collapsedRenderer();
  renderer.render(event("turn_start", { turn_index: 0 }));
  renderer.render(event("assistant_thinking_delta", { delta: "one thought" }));
  renderer.render(
    event("tool_call_start", { call_id: "c1", tool_name: "bash", arguments: {}, kind: "shell", call_summary: "ls" }),
  );
  expect(written()).toStartWith("✻ thought for 1 line (/thinking shows it)\n");
});

test("/thinking prints the last reasoning in full, or says there is none", async () => {
  const messages: Message[] = [
    { role: "user", content: "pick" },
    {
      role: "assistant",
      content: [
        { type: "thinking", text: "first musing" },
        { type: "text", text: "A" },
      ],
    },
    { role: "user", content: "again" },
    {
      role: "assistant",
      content: [
        { type: "thinking", text: "weigh A\nweigh B" },
        { type: "text", text: "B" },
      ],
    },
  ];
  let out = "";
  const ctx = {
    host: { session: { messages } },
    out: (s: string) => void (out += s),
    style: plain,
  } as unknown as SlashContext;
  await runSlashCommand("/thinking", ctx);
  expect(out).toBe("weigh A\nweigh B\n");
  out = "";
  await runSlashCommand("/thinking", {
    ...ctx,
    host: { session: { messages: messages.slice(0, 1) } },
  } as unknown as SlashContext);
  expect(out).toBe("no reasoning yet.\n");
});
