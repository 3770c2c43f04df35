/**
 * The integration smoke test (docs/conformance.md: 004 §9.13): each provider profile drives a whole
 * session against the real API — create a file, edit it, run it, read a 100,000-character file
 * (whole in the event, marked for the model), change course when steered, hand a task to a
 * subagent, and survive a command that outlives the shell timeout. It runs only when the provider's
 * key is set.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createSession } from "../../lib/agent/index.ts";
import type { SessionEvent } from "../../lib/agent/vocabulary.ts";
import { tempDir } from "../helpers/temp.ts";

const PROFILES = [
  {
    profile: "anthropic",
    model: "anthropic/claude-haiku-4-5",
    key: process.env.ANTHROPIC_API_KEY || process.env.ANTHROPIC_AUTH_TOKEN,
  },
  { profile: "openai", model: "openai/gpt-5-mini", key: process.env.OPENAI_API_KEY },
  {
    profile: "gemini",
    model: "gemini/gemini-2.5-flash",
    key: process.env.GEMINI_API_KEY || process.env.GOOGLE_API_KEY,
  },
];

const SMOKE_TIMEOUT = 600_000;

for (const { profile, model, key } of PROFILES) {
  describe(`004-9.13 smoke ${profile}`, () => {
    test.skipIf(!key)(
      `004-9.13 steps 1-7 with ${model}`,
      async () => {
        using dir = tempDir("gong-smoke-");
        const session = await createSession({
          model,
          profile,
          cwd: dir.dir,
          store: false,
          config: { defaultCommandTimeoutMs: 10_000 },
        });
        const events: SessionEvent[] = [];
        session.subscribe((e) => void events.push(e));
        const since = (mark: number) => events.slice(mark);
        const file = (name: string) => readFileSync(dir.path(name), "utf8");
        try {
          // 1. Simple file creation.
          await session.submit("Create a file named hello.py that prints 'Hello World'.");
          expect(existsSync(dir.path("hello.py"))).toBe(true);
          expect(file("hello.py")).toContain("Hello");

          // 2. Read and edit.
          await session.submit("Read hello.py and add a second print statement that says 'Goodbye'.");
          expect(file("hello.py")).toContain("Hello");
          expect(file("hello.py")).toContain("Goodbye");

          // 3. Shell execution: a shell tool call appears in the event stream.
          let mark = events.length;
          await session.submit("Run hello.py with python3 and show me the output.");
          expect(since(mark).some((e) => e.kind === "tool_call_start" && e.data.kind === "shell")).toBe(true);

          // 4. Truncation: the event has all 100,000 characters, the model's copy carries the marker.
          writeFileSync(dir.path("big.txt"), "x".repeat(100_000));
          mark = events.length;
          await session.submit("Read big.txt with your file reading tool.");
          const end = since(mark).find(
            (e): e is Extract<SessionEvent, { kind: "tool_call_end" }> =>
              e.kind === "tool_call_end" && e.data.kind === "read",
          );
          expect(end?.data.output.text).toContain("x".repeat(100_000));
          expect(end?.data.truncated).toBe(true);
          const sent = session.messages
            .filter((m) => m.role === "tool")
            .map((m) => (typeof m.content === "string" ? m.content : ""));
          expect(sent.some((t) => t.includes("WARNING: Tool output was truncated"))).toBe(true);

          // 5. Steering: the message reaches the model while it works.
          mark = events.length;
          const working = session.submit("Create a Flask web application with several routes in app.py.");
          session.steer("Actually, create only a /health endpoint.");
          await working;
          expect(since(mark).some((e) => e.kind === "steering_injected")).toBe(true);

          // 6. Subagents: the subagent tool call appears in the event stream.
          mark = events.length;
          await session.submit("Spawn a subagent to write tests for hello.py, then review its output.");
          expect(since(mark).some((e) => e.kind === "tool_call_start" && e.data.kind === "agent")).toBe(true);

          // 7. Timeout handling: the command is stopped and the session goes on.
          mark = events.length;
          const result = await session.submit("Run 'sleep 30' with the default timeout.");
          expect(result.stopReason).not.toBe("error");
          expect(since(mark).some((e) => e.kind === "tool_call_end" && e.data.kind === "shell")).toBe(true);
        } finally {
          await session.close();
        }
      },
      SMOKE_TIMEOUT,
    );
  });
}
