/**
 * interrupt(): the running input stops (stream closed, commands killed, partial text kept) and the
 * session stays open with its history, so the next submit() continues the same conversation.
 * abort() is the other way to stop: it ends the session (see steering.test.ts).
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { alive, harness, pidFrom, requestMessages, toolResultTexts, waitForEvent } from "./harness.ts";

const SLEEPER = "echo $$ > pid.txt; exec sleep 30";
const KILL_GRACE_MS = 200;

describe("interrupt", () => {
  test("interrupt() kills the running command; submit() then continues the same session with its history", async () => {
    await using h = await harness(
      [{ toolCalls: [{ name: "bash", arguments: { command: SLEEPER } }] }, { text: "back again" }],
      { killGraceMs: KILL_GRACE_MS },
    );
    const running = h.session.submit("take a nap");
    const pid = await pidFrom(join(h.dir, "pid.txt"));
    await h.session.interrupt();
    const result = await running;
    expect(result.stopReason).toBe("aborted");
    expect(alive(pid)).toBe(false);
    expect(h.session.state).toBe("IDLE");
    expect(h.kinds()).not.toContain("session_end");
    // The interrupted call is answered, so the history stays a valid conversation.
    expect(h.session.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);

    const id = h.session.id;
    const next = await h.session.submit("are you there?");
    expect(next.text).toBe("back again");
    expect(h.session.id).toBe(id);
    const sent = JSON.stringify(requestMessages(h.fake, 1));
    expect(sent).toContain("take a nap");
    expect(sent).toContain("are you there?");
    expect(toolResultTexts(h.fake, 1)[0]).toMatch(/abort/i);
  });

  test("interrupt() mid-stream keeps the partial text, and the next input sees it", async () => {
    const answer = "partial answer that will be cut off somewhere in the middle";
    await using h = await harness([{ text: answer, chunkSize: 3, chunkDelayMs: 15 }, { text: "second" }]);
    const running = h.session.submit("talk");
    await waitForEvent(
      h.session,
      h.events,
      () => h.events.filter((x) => x.kind === "assistant_text_delta").length >= 2,
    );
    await h.session.interrupt();
    expect((await running).stopReason).toBe("aborted");
    const partial = h.session.messages.at(-1)!;
    expect(partial.role).toBe("assistant");
    const text = (partial.content as { text: string }[]).map((p) => p.text).join("");
    expect(text.length).toBeGreaterThan(0);
    expect(answer.startsWith(text)).toBe(true);

    expect((await h.session.submit("go on")).text).toBe("second");
    expect(JSON.stringify(requestMessages(h.fake, 1))).toContain(text);
  });

  test("issue 40 item 7: an interrupted answer's usage counts — on the result, on the kept message, and in the session's totals after it", async () => {
    const answer = "partial answer that will be cut off somewhere in the middle of its many words";
    await using h = await harness([
      { text: "a first whole answer" },
      { text: answer, chunkSize: 3, chunkDelayMs: 15 },
      { text: "third" },
    ]);
    const first = await h.session.submit("hello");
    expect(first.usage.input).toBeGreaterThan(0);
    const before = h.events.length;
    const running = h.session.submit("talk");
    await waitForEvent(
      h.session,
      h.events,
      () => h.events.slice(before).filter((x) => x.kind === "assistant_text_delta").length >= 3,
    );
    await h.session.interrupt();
    const result = await running;
    expect(result.stopReason).toBe("aborted");
    // The request was billed: the conversation so far in, what streamed out (estimated), priced.
    expect(result.usage.input + result.usage.cacheRead).toBeGreaterThan(first.usage.input);
    expect(result.usage.output).toBeGreaterThan(0);
    expect(result.usage.cost).toBeGreaterThan(0);
    const partial = h.session.messages.at(-1)!;
    expect(partial.role === "assistant" && partial.usage).toEqual(result.usage);
  });

  test("a submit() sent right behind interrupt() waits for the interrupted input instead of failing as busy", async () => {
    await using h = await harness(
      [{ toolCalls: [{ name: "bash", arguments: { command: SLEEPER } }] }, { text: "fresh start" }],
      { killGraceMs: KILL_GRACE_MS },
    );
    const running = h.session.submit("sleep");
    await pidFrom(join(h.dir, "pid.txt"));
    void h.session.interrupt();
    const next = await h.session.submit("next task");
    expect((await running).stopReason).toBe("aborted");
    expect(next.text).toBe("fresh start");
  });

  test("interrupt() drops queued follow-ups; with nothing running it does nothing", async () => {
    await using h = await harness([{ text: "first", chunkSize: 2, chunkDelayMs: 20 }, { text: "second" }]);
    await h.session.interrupt();
    expect(h.session.state).toBe("IDLE");
    const running = h.session.submit("one");
    h.session.followUp("two");
    await waitForEvent(h.session, h.events, (e) => e.kind === "assistant_text_delta");
    await h.session.interrupt();
    await running;
    expect(h.fake.requests.length).toBe(1);
    expect(h.session.state).toBe("IDLE");
  });
});
