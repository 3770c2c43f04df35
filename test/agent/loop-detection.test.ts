import { describe, expect, test } from "bun:test";
import { callSignature, detectLoop, stableStringify } from "../../lib/agent/index.ts";
import { harness, requestMessages } from "./harness.ts";

describe("004 §2.10 loop detection", () => {
  test("signatures are stable across argument key order and differ by value", () => {
    expect(stableStringify({ b: 1, a: { d: [1, 2], c: null } })).toBe('{"a":{"c":null,"d":[1,2]},"b":1}');
    expect(callSignature("read", { path: "a", limit: 5 })).toBe(callSignature("read", { limit: 5, path: "a" }));
    expect(callSignature("read", { path: "a" })).not.toBe(callSignature("read", { path: "b" }));
    expect(callSignature("read", { path: "a" })).not.toBe(callSignature("grep", { path: "a" }));
  });

  test("patterns of length 1 and 2 over the window are loops; a varied window is not", () => {
    expect(detectLoop(Array(10).fill("a"), 10)).toBe(true);
    expect(detectLoop(Array.from({ length: 10 }, (_, i) => (i % 2 ? "a" : "b")), 10)).toBe(true);
    expect(detectLoop(Array.from({ length: 9 }, (_, i) => ["a", "b", "c"][i % 3]), 9)).toBe(true);
    expect(detectLoop(Array.from({ length: 10 }, (_, i) => String(i)), 10)).toBe(false);
    expect(detectLoop(Array(9).fill("a"), 10)).toBe(false);
  });

  test("004-9.1 repeating tool calls inject a warning as a user message and a loop_detection event", async () => {
    let n = 0;
    const h = await harness(() => (n++ < 4 ? { toolCalls: [{ name: "ls", arguments: { path: "." } }] } : { text: "changing approach" }), {
      config: { loopDetectionWindow: 3 },
    });
    try {
      const result = await h.session.submit("list");
      expect(result.text).toBe("changing approach");
      const event = h.events.find((e) => e.kind === "loop_detection")!;
      expect(String(event.data.message)).toMatch(/^Loop detected: the last 3 tool calls follow a repeating pattern/);
      const users = requestMessages(h.fake, 3).filter((m: any) => m.role === "user");
      expect(JSON.stringify(users.at(-1))).toContain("Loop detected");
      expect(h.events.filter((e) => e.kind === "loop_detection")).toHaveLength(1);
    } finally {
      await h.cleanup();
    }
  });

  test("loop detection can be turned off", async () => {
    let n = 0;
    const h = await harness(() => (n++ < 4 ? { toolCalls: [{ name: "ls", arguments: {} }] } : { text: "done" }), {
      config: { enable_loop_detection: false, loop_detection_window: 2 },
    });
    try {
      await h.session.submit("list");
      expect(h.kinds()).not.toContain("loop_detection");
    } finally {
      await h.cleanup();
    }
  });
});
