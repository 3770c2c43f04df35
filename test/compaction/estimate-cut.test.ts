import { describe, expect, test } from "bun:test";
import type { Message } from "../../lib/llm/types.ts";
import {
  IMAGE_TOKENS,
  estimateTokens,
  extractFileOps,
  fileLists,
  findCutPoint,
  formatFileLists,
  shouldCompact,
  textTokens,
} from "../../lib/agent/compaction/index.ts";
import { assistant, conversation, toolResult, user } from "../store/helpers.ts";

describe("J.12 1. token estimate", () => {
  test("J.12 1.1 mixed CJK and English estimate", () => {
    // Spec reckoning: 2 English words × 1.3 + 4 CJK characters × 2 = 10.6 tokens; within 20 %.
    const expected = 2 * 1.3 + 4 * 2;
    const got = estimateTokens([user("Hello 你好 World 世界")]);
    expect(Math.abs(got - expected) / expected).toBeLessThan(0.2);
    expect(got).toBe(12); // 13 other chars / 4 + 4 × 2 = 11.25, rounded up
    // CJK counts per character, so a Chinese paragraph is not undercounted like chars/4 would.
    expect(textTokens("你好世界".repeat(100))).toBe(800);
    expect(textTokens("abcd".repeat(100))).toBe(100);
  });

  test("J.12 1.2 an empty message list estimates to zero tokens", () => {
    expect(estimateTokens([])).toBe(0);
  });

  test("6.2 images count ~1200 tokens; tool calls count their arguments", () => {
    const withImage: Message = { role: "user", content: [{ type: "image", mimeType: "image/png", data: "AAAA" }] };
    expect(estimateTokens([withImage])).toBe(IMAGE_TOKENS);
    const call = assistant("", [{ id: "c", name: "read", arguments: { path: "x".repeat(400) } }]);
    expect(estimateTokens([call])).toBeGreaterThan(100);
  });

  test("6.1 shouldCompact: context > window - reserve (default 16384)", () => {
    expect(shouldCompact(200_000 - 16_384, 200_000)).toBe(false);
    expect(shouldCompact(200_000 - 16_383, 200_000)).toBe(true);
    expect(shouldCompact(90_000, 100_000, { reserveTokens: 5_000 })).toBe(false);
  });
});

describe("6.2 cut point", () => {
  test("6.2 keeps at least keepRecentTokens and cuts before a user or assistant message", () => {
    const messages = conversation(10, 400); // each tool output ~100 tokens
    const cut = findCutPoint(messages, 300)!;
    expect(["user", "assistant"]).toContain(messages[cut].role);
    expect(estimateTokens(messages.slice(cut))).toBeGreaterThanOrEqual(300);
    expect(findCutPoint(messages, 1_000_000)).toBeUndefined(); // everything fits: nothing to summarise
  });

  test("6.2 never separates a tool call from its result", () => {
    // One assistant turn with three calls whose results arrive after a steering user message.
    const messages: Message[] = [
      user("start"),
      assistant("ok"),
      assistant("", [
        { id: "a", name: "read", arguments: { path: "1" } },
        { id: "b", name: "read", arguments: { path: "2" } },
      ]),
      toolResult("a", "read", "x".repeat(4000)),
      user("steer"),
      toolResult("b", "read", "y".repeat(4000)),
      assistant("done"),
    ];
    for (let keep = 1; keep < 3000; keep += 50) {
      const cut = findCutPoint(messages, keep);
      if (cut === undefined) continue;
      const kept = new Set(messages.slice(cut).flatMap((m) => (m.role === "tool" ? [m.toolCallId] : [])));
      const calledBefore = messages
        .slice(0, cut)
        .flatMap((m) =>
          m.role === "assistant" ? m.content.flatMap((p) => (p.type === "tool_call" ? [p.id] : [])) : [],
        );
      for (const id of calledBefore) expect(kept.has(id)).toBe(false);
      expect(cut).not.toBe(4); // the user message between the results is no boundary
    }
  });
});

describe("6.2 file lists", () => {
  test("6.2 files read and modified come from the kind and files each result recorded, whatever the tool's name", () => {
    const messages: Message[] = [
      toolResult("1", "read", "…", { kind: "read", files: ["a.ts"] }),
      toolResult("2", "Read", "…", { kind: "read", files: ["b.ts"] }),
      toolResult("3", "my_loader", "…", { kind: "read", files: ["c.ts", "d.ts"] }),
      toolResult("4", "Edit", "…", { kind: "modify", files: ["b.ts"] }),
      toolResult("5", "apply_patch", "…", { kind: "modify", files: ["h.ts", "i.ts"] }),
      toolResult("6", "bash", "…", { kind: "shell" }),
      toolResult("7", "grep", "…", { kind: "search", files: ["z.ts"] }),
      // A result recorded without metadata (a session written before tools described themselves) lists nothing.
      toolResult("8", "read", "…"),
    ];
    const lists = fileLists(extractFileOps(messages), { filesRead: ["old.ts"], filesModified: ["older.ts"] });
    expect(lists.filesRead).toEqual(["a.ts", "c.ts", "d.ts", "old.ts"]);
    expect(lists.filesModified).toEqual(["b.ts", "h.ts", "i.ts", "older.ts"]);
    expect(formatFileLists(["a"], ["b"])).toBe(
      "<read-files>\na\n</read-files>\n\n<modified-files>\nb\n</modified-files>",
    );
  });
});
