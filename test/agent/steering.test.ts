import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SKIPPED_MESSAGE } from "../../lib/agent/index.ts";
import { harness, requestMessages, toolResultTexts, waitForEvent } from "./harness.ts";

/** A command whose shell becomes `sleep 30` after writing its pid (so the test can check it died). */
const SLEEPER = "echo $$ > pid.txt; exec sleep 30";

async function pidFrom(dir: string): Promise<number> {
  const file = join(dir, "pid.txt");
  for (let i = 0; i < 500 && !(existsSync(file) && readFileSync(file, "utf8").trim()); i++) await new Promise((r) => setTimeout(r, 10));
  return Number(readFileSync(file, "utf8").trim());
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function userTexts(messages: any[]): string[] {
  return messages
    .filter((m) => m.role === "user")
    .flatMap((m) => (typeof m.content === "string" ? [m.content] : m.content.filter((c: any) => c.type === "text").map((c: any) => c.text)));
}

describe("J.9 1. steering, follow-up, abort", () => {
  test("J.9 1.4 steering interrupts bash: the command is killed and the remaining calls are skipped", async () => {
    const h = await harness([
      {
        toolCalls: [
          { name: "bash", arguments: { command: SLEEPER } },
          { name: "bash", arguments: { command: "echo second > second.txt" } },
        ],
      },
      { text: "Stopped as asked." },
    ]);
    try {
      const running = h.session.submit("sleep for a while");
      const pid = await pidFrom(h.dir);
      expect(alive(pid)).toBe(true);
      h.session.steer("stop, do something else");
      const result = await running;
      expect(result.text).toBe("Stopped as asked.");
      expect(alive(pid)).toBe(false);
      expect(existsSync(join(h.dir, "second.txt"))).toBe(false);
      const results = toolResultTexts(h.fake, 1);
      expect(results[1]).toBe(SKIPPED_MESSAGE);
      const messages = requestMessages(h.fake, 1);
      expect(messages.at(-1).content.map((c: any) => c.type)).toEqual(["tool_result", "tool_result", "text"]);
      expect(userTexts(messages).at(-1)).toBe("stop, do something else");
      expect(h.events.find((e) => e.kind === "steering_injected")!.data.content).toBe("stop, do something else");
    } finally {
      await h.cleanup();
    }
  });

  test("J.9 1.5 follow-up continues after the answer with the context kept", async () => {
    const h = await harness([{ toolCalls: [{ name: "ls", arguments: {} }] }, { text: "first answer" }, { text: "second answer" }]);
    try {
      const running = h.session.submit("look around");
      h.session.followUp("and now summarize");
      const result = await running;
      expect(result.text).toBe("second answer");
      expect(result.turns).toBe(3);
      const messages = requestMessages(h.fake, 2);
      expect(userTexts(messages).at(-1)).toBe("and now summarize");
      expect(messages.some((m) => m.role === "assistant" && m.content.some((c: any) => c.text === "first answer"))).toBe(true);
    } finally {
      await h.cleanup();
    }
  });

  test("004-9.6 follow-up on an idle session starts processing it", async () => {
    const h = await harness([{ text: "one" }, { text: "two" }]);
    try {
      await h.session.submit("first");
      h.session.followUp("second");
      const end = await waitForEvent(h.session, h.events, (e) => e.kind === "agent_end" && h.events.filter((x) => x.kind === "agent_end").length === 2);
      expect(end.data.stop_reason).toBe("completed");
      expect(userTexts(requestMessages(h.fake, 1)).at(-1)).toBe("second");
    } finally {
      await h.cleanup();
    }
  });

  test("004-9.6 steering while idle is delivered with the next input as a user message", async () => {
    const h = await harness([{ text: "ok" }]);
    try {
      h.session.steer("also keep it short");
      await h.session.submit("explain");
      const texts = userTexts(requestMessages(h.fake, 0));
      expect(texts).toEqual(["explain", "also keep it short"]);
      expect(h.session.history.filter((m) => m.role === "user").length).toBe(2);
    } finally {
      await h.cleanup();
    }
  });

  test("004-9.6 steering during a text-only answer is injected and the loop goes on", async () => {
    const h = await harness([{ text: "a long answer streaming slowly", chunkSize: 2, chunkDelayMs: 5 }, { text: "adjusted answer" }]);
    try {
      const running = h.session.submit("answer");
      await waitForEvent(h.session, h.events, (e) => e.kind === "assistant_text_delta");
      h.session.steer("make it shorter");
      const result = await running;
      expect(result.text).toBe("adjusted answer");
      expect(userTexts(requestMessages(h.fake, 1)).at(-1)).toBe("make it shorter");
    } finally {
      await h.cleanup();
    }
  });

  test("J.9 1.6 abort kills the running command, ends the session and submit resolves", async () => {
    const h = await harness([{ toolCalls: [{ name: "bash", arguments: { command: SLEEPER } }] }, { text: "never" }]);
    try {
      const running = h.session.submit("sleep");
      const pid = await pidFrom(h.dir);
      await h.session.abort();
      const result = await running;
      expect(result.stopReason).toBe("aborted");
      expect(alive(pid)).toBe(false);
      expect(h.session.state).toBe("CLOSED");
      expect(h.kinds().at(-1)).toBe("session_end");
      expect(h.fake.requests.length).toBe(1);
      const last = h.session.history.at(-1)!;
      expect(last.role).toBe("tool");
      await expect(h.session.submit("again")).rejects.toThrow(/closed/);
    } finally {
      await h.cleanup();
    }
  });

  test("003 2.4 abort mid-stream keeps the partial text in history", async () => {
    const h = await harness([{ text: "partial answer that will be cut off somewhere in the middle", chunkSize: 3, chunkDelayMs: 15 }]);
    try {
      const running = h.session.submit("talk");
      await waitForEvent(h.session, h.events, (e) => e.kind === "assistant_text_delta" && h.events.filter((x) => x.kind === "assistant_text_delta").length >= 2);
      await h.session.abort();
      const result = await running;
      expect(result.stopReason).toBe("aborted");
      const last = h.session.history.at(-1)!;
      expect(last.role).toBe("assistant");
      const text = (last.content as any[]).map((p) => p.text).join("");
      expect(text.length).toBeGreaterThan(0);
      expect("partial answer that will be cut off somewhere in the middle".startsWith(text)).toBe(true);
      expect((last as any).finishReason).toBe("aborted");
    } finally {
      await h.cleanup();
    }
  });

  test("003 2.4 abort before any content drops the empty placeholder", async () => {
    const h = await harness([{ text: "never arrives", fault: { type: "stall", afterChunks: 0 } }]);
    try {
      const running = h.session.submit("talk");
      await waitForEvent(h.session, h.events, (e) => e.kind === "turn_start");
      await new Promise((r) => setTimeout(r, 50));
      await h.session.abort();
      expect((await running).stopReason).toBe("aborted");
      expect(h.session.history.map((m) => m.role)).toEqual(["user"]);
    } finally {
      await h.cleanup();
    }
  });
});
