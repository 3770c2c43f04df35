import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { SKIPPED_MESSAGE } from "../../lib/agent/index.ts";
import { alive, harness, pidFrom, requestMessages, toolResultTexts, waitForEvent } from "./harness.ts";

/**
 * A command that leaves a grandchild behind: `sleep 30` runs in the background of the shell and
 * writes its pid. Killing only the shell would leave the sleep running; the whole process group must go.
 */
const SLEEPER = "sleep 30 & echo $! > pid.txt; wait";
const KILL_GRACE_MS = 100;

function userTexts(messages: any[]): string[] {
  return messages
    .filter((m) => m.role === "user")
    .flatMap((m) =>
      typeof m.content === "string"
        ? [m.content]
        : m.content.filter((c: any) => c.type === "text").map((c: any) => c.text),
    );
}

describe("J.9 1. steering, follow-up, abort", () => {
  test("J.9 1.4 steering interrupts bash: the command is killed and the remaining calls are skipped", async () => {
    await using h = await harness(
      [
        {
          toolCalls: [
            { name: "bash", arguments: { command: SLEEPER } },
            { name: "bash", arguments: { command: "echo second > second.txt" } },
          ],
        },
        { text: "Stopped as asked." },
      ],
      { killGraceMs: KILL_GRACE_MS },
    );
    const running = h.session.submit("sleep for a while");
    const pid = await pidFrom(join(h.dir, "pid.txt"));
    expect(alive(pid)).toBe(true);
    h.session.steer("stop, do something else");
    const result = await running;
    expect(result.text).toBe("Stopped as asked.");
    expect(alive(pid)).toBe(false);
    expect(existsSync(join(h.dir, "second.txt"))).toBe(false);
    const results = toolResultTexts(h.fake, 1);
    expect(results[0]).toContain("Command aborted");
    expect(results[1]).toBe(SKIPPED_MESSAGE);
    const ends = h.events.filter((e) => e.kind === "tool_call_end");
    expect(ends.map((e) => [e.data.is_error, (e.data.output as any).text])).toEqual([
      [true, expect.stringContaining("Command aborted")],
      [true, SKIPPED_MESSAGE],
    ]);
    const messages = requestMessages(h.fake, 1);
    expect(messages.slice(-3).map((m) => m.role)).toEqual(["tool", "tool", "user"]);
    expect(userTexts(messages).at(-1)).toBe("stop, do something else");
    expect(h.events.find((e) => e.kind === "steering_injected")!.data.content).toBe("stop, do something else");
    expect(h.kinds().indexOf("steering_injected")).toBeGreaterThan(h.kinds().lastIndexOf("tool_call_end"));
  });

  test("J.9 1.5 follow-up continues after the answer with the context kept", async () => {
    await using h = await harness([
      { toolCalls: [{ name: "ls", arguments: {} }] },
      { text: "first answer" },
      { text: "second answer" },
    ]);
    const running = h.session.submit("look around");
    h.session.followUp("and now summarize");
    const result = await running;
    expect(result.text).toBe("second answer");
    expect(result.turns).toBe(3);
    // Not injected as steering: the first two requests never saw it.
    expect(JSON.stringify(requestMessages(h.fake, 0))).not.toContain("and now summarize");
    expect(JSON.stringify(requestMessages(h.fake, 1))).not.toContain("and now summarize");
    // The third request carries the whole first cycle (input, tool call and result, answer), then the follow-up.
    const messages = requestMessages(h.fake, 2);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect(userTexts(messages)).toEqual(["look around", "and now summarize"]);
    expect(toolResultTexts(h.fake, 2)).toHaveLength(1);
    expect(messages[3].content.map((c: any) => c.text)).toEqual(["first answer"]);
  });

  test("004-9.6 follow-up on an idle session starts processing it", async () => {
    await using h = await harness([{ text: "one" }, { text: "two" }]);
    await h.session.submit("first");
    h.session.followUp("second");
    const end = await waitForEvent(
      h.session,
      h.events,
      (e) => e.kind === "agent_end" && h.events.filter((x) => x.kind === "agent_end").length === 2,
    );
    expect(end.kind === "agent_end" && end.data.stop_reason).toBe("completed");
    expect(userTexts(requestMessages(h.fake, 1)).at(-1)).toBe("second");
  });

  test("004-9.6 steering while idle is delivered with the next input as a user message", async () => {
    await using h = await harness([{ text: "ok" }]);
    h.session.steer("also keep it short");
    await h.session.submit("explain");
    const texts = userTexts(requestMessages(h.fake, 0));
    expect(texts).toEqual(["explain", "also keep it short"]);
    expect(h.session.messages.filter((m) => m.role === "user").length).toBe(2);
  });

  test("004-9.6 steering during a text-only answer is injected and the loop goes on", async () => {
    await using h = await harness([
      { text: "a long answer streaming slowly", chunkSize: 2, chunkDelayMs: 5 },
      { text: "adjusted answer" },
    ]);
    const running = h.session.submit("answer");
    await waitForEvent(h.session, h.events, (e) => e.kind === "assistant_text_delta");
    h.session.steer("make it shorter");
    const result = await running;
    expect(result.text).toBe("adjusted answer");
    expect(userTexts(requestMessages(h.fake, 1)).at(-1)).toBe("make it shorter");
  });

  test("J.9 1.6 abort kills the running command, ends the session and submit resolves", async () => {
    await using h = await harness(
      [{ toolCalls: [{ name: "bash", arguments: { command: SLEEPER } }] }, { text: "never" }],
      { killGraceMs: KILL_GRACE_MS },
    );
    const running = h.session.submit("sleep");
    const pid = await pidFrom(join(h.dir, "pid.txt"));
    expect(alive(pid)).toBe(true);
    await h.session.abort();
    const result = await running;
    expect(result.stopReason).toBe("aborted");
    expect(alive(pid)).toBe(false);
    expect(h.session.state).toBe("CLOSED");
    expect(h.kinds().at(-1)).toBe("session_end");
    expect(h.fake.requests.length).toBe(1);
    const last = h.session.messages.at(-1)!;
    expect(last.role).toBe("tool");
    await expect(h.session.submit("again")).rejects.toThrow(/closed/);
  });

  test("003 2.4 abort mid-stream keeps the partial text in history", async () => {
    await using h = await harness([
      { text: "partial answer that will be cut off somewhere in the middle", chunkSize: 3, chunkDelayMs: 15 },
    ]);
    const running = h.session.submit("talk");
    await waitForEvent(
      h.session,
      h.events,
      (e) => e.kind === "assistant_text_delta" && h.events.filter((x) => x.kind === "assistant_text_delta").length >= 2,
    );
    await h.session.abort();
    const result = await running;
    expect(result.stopReason).toBe("aborted");
    const last = h.session.messages.at(-1)!;
    expect(last.role).toBe("assistant");
    const text = (last.content as any[]).map((p) => p.text).join("");
    expect(text.length).toBeGreaterThan(0);
    expect("partial answer that will be cut off somewhere in the middle".startsWith(text)).toBe(true);
    expect((last as any).finishReason).toBe("aborted");
  });

  test("003 2.4 abort before any content drops the empty placeholder", async () => {
    await using h = await harness([{ text: "never arrives", fault: { type: "stall", afterChunks: 0 } }]);
    const running = h.session.submit("talk");
    await waitForEvent(h.session, h.events, (e) => e.kind === "turn_start");
    await new Promise((r) => setTimeout(r, 50));
    await h.session.abort();
    expect((await running).stopReason).toBe("aborted");
    expect(h.session.messages.map((m) => m.role)).toEqual(["user"]);
  });
});
