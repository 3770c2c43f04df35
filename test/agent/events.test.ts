import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import type { SessionEvent } from "../../lib/agent/index.ts";
import { EventStream } from "../../lib/agent/events.ts";
import type { Tool } from "../../tools/types.ts";
import { harness } from "./harness.ts";

describe("004 §2.9 events", () => {
  test("004-9.10 events() iterators see every event from their creation on and end with the session", async () => {
    await using h = await harness([{ text: "one" }, { text: "two" }]);
    const early = h.session.events();
    const collected: SessionEvent[] = [];
    const draining = (async () => {
      for await (const e of early) collected.push(e);
    })();
    await h.session.submit("first");
    const late = h.session.events();
    await h.session.submit("second");
    await h.session.close();
    await draining;
    expect(collected.map((e): string => e.kind)).toEqual(h.kinds());
    expect(collected[0].kind).toBe("session_start");
    expect(collected.at(-1)!.kind).toBe("session_end");
    const lateKinds: string[] = [];
    for await (const e of late) lateKinds.push(e.kind);
    expect(lateKinds[0]).toBe("agent_start");
    expect(lateKinds.at(-1)).toBe("session_end");
    expect(collected.every((e) => e.session_id === h.session.id && typeof e.timestamp === "number")).toBe(true);
  });

  test("a consumer that stops iterating leaves no listener behind", async () => {
    const stream = new EventStream("s1");
    const iterator = stream.events();
    expect(stream.listenerCount).toBe(1);
    const consumed = (async () => {
      for await (const e of iterator) if (e.kind === "assistant_text_delta") break;
    })();
    stream.emit("assistant_text_start", {});
    stream.emit("assistant_text_delta", { delta: "streamed" });
    await consumed;
    expect(stream.listenerCount).toBe(0);
    const off = stream.subscribe(() => {});
    off();
    expect(stream.listenerCount).toBe(0);
  });

  test("a listener that throws does not break the agent", async () => {
    await using h = await harness([{ text: "fine" }]);
    h.session.subscribe(() => {
      throw new Error("listener bug");
    });
    expect((await h.session.submit("go")).text).toBe("fine");
  });

  test("004 2.3 states: IDLE, PROCESSING, AWAITING_INPUT after a question, CLOSED", async () => {
    await using h = await harness([
      { text: "Which file do you mean?", chunkSize: 4, chunkDelayMs: 2 },
      { text: "Done." },
    ]);
    expect(h.session.state).toBe("IDLE");
    const running = h.session.submit("fix it");
    expect(h.session.state).toBe("PROCESSING");
    await running;
    expect(h.session.state).toBe("AWAITING_INPUT");
    await h.session.submit("main.ts");
    expect(h.session.state).toBe("IDLE");
    await h.session.close();
    expect(h.session.state).toBe("CLOSED");
    expect(() => h.session.steer("x")).toThrow(/closed/);
  });

  test("004-9.10 tool_call_output_delta streams a command's output while it runs", async () => {
    // The command prints "early", then waits (up to 20 s) for the test to have received it in a
    // delta: "late" says whether the delta arrived while the command was still running.
    const waitSeen = "for _ in $(seq 2000); do [ -e seen.marker ] && break; sleep 0.01; done";
    const command = `echo early; ${waitSeen}; if [ -e seen.marker ]; then echo late-after-delta; else echo late-without-delta; fi`;
    await using h = await harness([{ toolCalls: [{ name: "bash", arguments: { command } }] }, { text: "ok" }]);
    h.session.subscribe((e) => {
      if (e.kind === "tool_call_output_delta" && String(e.data.delta).includes("early"))
        writeFileSync(join(h.dir, "seen.marker"), "");
    });
    await h.session.submit("run");
    const deltas = h.events.filter((e) => e.kind === "tool_call_output_delta");
    const start = h.events.find((e) => e.kind === "tool_call_start")!;
    expect(deltas.every((e) => e.data.tool_name === "bash" && e.data.call_id === start.data.call_id)).toBe(true);
    const streamed = deltas.map((e) => String(e.data.delta)).join("");
    expect(streamed).toBe("early\nlate-after-delta\n");
    const kinds = h.kinds();
    expect(kinds.lastIndexOf("tool_call_output_delta")).toBeLessThan(kinds.indexOf("tool_call_end"));
    expect(kinds.indexOf("tool_call_output_delta")).toBeGreaterThan(kinds.indexOf("tool_call_start"));
  });

  test("004-9.10 tool_call_output_delta carries only what is new: joined, the deltas are the command's output", async () => {
    // Bursts closer together than the update interval, pauses longer than it, and an unfinished last
    // line. Halfway, the command waits until the test has received the first half, so there are at
    // least two deltas however the machine schedules them.
    const waitHalf = "for _ in $(seq 2000); do [ -e half.marker ] && break; sleep 0.01; done";
    const command = `for i in 1 2 3 4 5 6; do echo line-$i; echo more-$i; sleep 0.06; [ $i = 3 ] && ${waitHalf}; done; printf 'no newline at the end'`;
    await using h = await harness([{ toolCalls: [{ name: "bash", arguments: { command } }] }, { text: "ok" }]);
    let received = "";
    h.session.subscribe((e) => {
      if (e.kind !== "tool_call_output_delta") return;
      received += String(e.data.delta);
      if (received.includes("more-3\n")) writeFileSync(join(h.dir, "half.marker"), "");
    });
    await h.session.submit("run");
    const deltas = h.events.filter((e) => e.kind === "tool_call_output_delta").map((e) => String(e.data.delta));
    const end = h.events.find((e) => e.kind === "tool_call_end")!;
    const output = (end.data.output as { text: string }).text;
    expect(output).toBe(`${[1, 2, 3, 4, 5, 6].map((i) => `line-${i}\nmore-${i}\n`).join("")}no newline at the end`);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe(output);
    // No delta repeats text an earlier one carried.
    expect(deltas.filter((d) => d.includes("line-1")).length).toBe(1);
  });

  test("an unexpected failure (a custom tool with a non-object schema) rejects submit with an error event; the session stays usable", async () => {
    const broken: Tool<string> = {
      name: "broken",
      description: "Bad schema.",
      schema: v.string(),
      truncation: "head",
      run: async (_a, ctx) => ctx.reply.success({}, ""),
    };
    await using h = await harness([{ text: "ok" }], { customTools: [broken] });
    await expect(h.session.submit("go")).rejects.toThrow(/broken: its schema must describe an object/);
    expect(h.events.find((e) => e.kind === "error")!.data.kind).toBe("internal");
    expect(h.session.state).toBe("IDLE");
    // Custom tools are on under the default preset only: another preset leaves the broken one out.
    h.session.setTools("minimal");
    expect((await h.session.submit("again")).text).toBe("ok");
  });
});

test("004-9.10 session_start and session_end bracket the session; an unused session announces neither", async () => {
  await using h = await harness([]);
  await h.session.close();
  expect(h.kinds()).not.toContain("session_end");
  expect(h.kinds()).not.toContain("session_start");
});
