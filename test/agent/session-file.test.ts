import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createSession } from "../../lib/agent/index.ts";
import { harness } from "./harness.ts";

function entries(path: string): any[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

describe("session file", () => {
  test("every message, model change and thinking-level change is appended as it happens", async () => {
    await using h = await harness([{ toolCalls: [{ name: "ls", arguments: {} }] }, { text: "one" }, { text: "two" }]);
    let linesAtToolEnd = 0;
    h.session.subscribe((e) => {
      if (e.kind === "tool_call_end") linesAtToolEnd = entries(h.session.sessionFile!).length;
    });
    await h.session.submit("first");
    // header, model_change, user, assistant (tool call) were on disk while the tool ran
    expect(linesAtToolEnd).toBe(4);
    h.session.setReasoningEffort("low");
    h.session.setModel("anthropic/claude-haiku-4-5");
    await h.session.submit("second");
    const types = entries(h.session.sessionFile!).map((e) => e.type);
    expect(types).toEqual([
      "session",
      "model_change",
      "message",
      "message",
      "message",
      "message",
      "thinking_level_change",
      "model_change",
      "message",
      "message",
    ]);
    expect(h.fake.requests[2].body.model).toBe("anthropic/claude-haiku-4-5");
    expect(h.kinds()).toContain("model_change");
  });

  test("store: false writes nothing and the session still works", async () => {
    await using h = await harness([{ text: "ok" }], { store: false });
    await h.session.submit("hi");
    expect(h.session.sessionFile).toBeUndefined();
    expect(existsSync(join(h.home, "sessions")) ? readdirSync(join(h.home, "sessions")) : []).toEqual([]);
    expect(h.session.messages.length).toBe(2);
  });

  test("resume and continue rebuild the history, model and reasoning effort from the file", async () => {
    await using first = await harness([{ text: "the answer is 42" }], { reasoningEffort: "medium" });
    await first.session.submit("what is the answer?");
    const file = first.session.sessionFile!;
    await first.session.close();

    first.fake.setScript([{ text: "you asked about the answer" }, { text: "still here" }]);
    await using resumed = await createSession({
      cwd: first.dir,
      client: first.fake,
      store: { resume: file, dir: join(first.home, "sessions") },
    });
    expect(resumed.id).toBe(first.session.id);
    expect(resumed.model).toBe("anthropic/claude-sonnet-4-5");
    expect(resumed.reasoningEffort).toBe("medium");
    expect(resumed.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    await resumed.submit("what did I ask?");
    expect(JSON.stringify(first.fake.requests.at(-1)!.body.messages)).toContain("the answer is 42");

    await using continued = await createSession({
      cwd: first.dir,
      client: first.fake,
      store: { continue: true, dir: join(first.home, "sessions") },
    });
    expect(continued.id).toBe(first.session.id);
    expect(continued.messages.length).toBe(4);
  });
});
