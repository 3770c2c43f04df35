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

  const cycle = (pattern: string, length: number) => Array.from({ length }, (_, i) => pattern[i % pattern.length]);

  test("004 2.10 patterns of length 1, 2 and 3 repeated over the window are loops", () => {
    expect(detectLoop(cycle("a", 10), 10)).toBe(true);
    expect(detectLoop(cycle("ab", 10), 10)).toBe(true);
    expect(detectLoop(cycle("abc", 9), 9)).toBe(true);
    // Only the last `window` calls count: what came before does not matter.
    expect(detectLoop(["x", "y", "z", ...cycle("ab", 6)], 6)).toBe(true);
  });

  test("004 2.10 near misses are not loops", () => {
    expect(detectLoop(cycle("0123456789", 10), 10)).toBe(false);
    expect(detectLoop(cycle("a", 9), 10)).toBe(false); // fewer calls than the window
    expect(detectLoop([...cycle("a", 9), "b"], 10)).toBe(false); // the newest call differs
    expect(detectLoop(["b", ...cycle("a", 9)], 10)).toBe(false); // the oldest call in the window differs
    expect(detectLoop([..."ababab", "a", "a", "a", "b"], 10)).toBe(false); // a 2-pattern broken in the middle
    expect(detectLoop(cycle("abcd", 8), 8)).toBe(false); // patterns longer than 3 are not looked for
    expect(detectLoop(cycle("abc", 10), 10)).toBe(false); // a 3-pattern does not divide a window of 10 (004 2.10)
  });

  test("004-9.1 repeating tool calls inject a warning as a user message and a loop_detection event", async () => {
    let n = 0;
    await using h = await harness(
      () => (n++ < 4 ? { toolCalls: [{ name: "ls", arguments: { path: "." } }] } : { text: "changing approach" }),
      {
        config: { loopDetectionWindow: 3 },
      },
    );
    const result = await h.session.submit("list");
    expect(result.text).toBe("changing approach");
    const event = h.events.find((e) => e.kind === "loop_detection")!;
    expect(String(event.data.message)).toMatch(/^Loop detected: the last 3 tool calls follow a repeating pattern/);
    // Injected right after the third call's result, as a user message, and only once.
    expect(JSON.stringify(h.fake.requests.slice(0, 3).map((r) => r.body.messages))).not.toContain("Loop detected");
    const [toolResult, last] = requestMessages(h.fake, 3).slice(-2);
    expect(toolResult.role).toBe("tool");
    expect(last).toMatchObject({ role: "user", content: event.data.message });
    expect(h.events.filter((e) => e.kind === "loop_detection")).toHaveLength(1);
    const before = h.kinds().slice(0, h.kinds().indexOf("loop_detection"));
    expect(before.filter((k) => k === "tool_call_end")).toHaveLength(3);
  });

  test("004 2.10 an alternating pair of calls in the session is caught; varied calls are not", async () => {
    const pair = [
      { name: "ls", arguments: { path: "." } },
      { name: "find", arguments: { pattern: "*.ts" } },
    ];
    let n = 0;
    await using h = await harness(() => (n < 4 ? { toolCalls: [pair[n++ % 2]] } : { text: "done" }), {
      config: { loopDetectionWindow: 4 },
    });
    await h.session.submit("look around");
    expect(h.events.filter((e) => e.kind === "loop_detection")).toHaveLength(1);
    expect(JSON.stringify(requestMessages(h.fake, 4))).toContain("Loop detected");

    // The same tool with different arguments each time is work, not a loop.
    let m = 0;
    h.fake.setScript(() =>
      m < 4 ? { toolCalls: [{ name: "ls", arguments: { path: `dir${m++}` } }] } : { text: "done" },
    );
    await h.session.submit("list four directories");
    expect(h.events.filter((e) => e.kind === "loop_detection")).toHaveLength(1);
  });

  test("loop detection can be turned off", async () => {
    let n = 0;
    await using h = await harness(() => (n++ < 4 ? { toolCalls: [{ name: "ls", arguments: {} }] } : { text: "done" }), {
      config: { enable_loop_detection: false, loop_detection_window: 2 },
    });
    await h.session.submit("list");
    expect(h.kinds()).not.toContain("loop_detection");
  });
});
