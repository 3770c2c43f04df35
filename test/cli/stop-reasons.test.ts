/**
 * Issue 24: print mode tells a finished answer from an unfinished one. On every wire API an answer
 * stopped by the filter or the output limit exits 3 with `stop_reason` and a one-sentence `error`.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { startFakeLlm, WIRE_APIS, useWorkspace } from "./helpers.ts";

const ws = useWorkspace();
let fake: FakeLlm;

/** What each API's filter ending is called in gong's vocabulary (Anthropic has a refusal, not a filter). */
const FILTERED: Record<string, string> = {
  "anthropic-messages": "refusal",
  "openai-responses": "content_filter",
  "openai-chat": "content_filter",
  gemini: "content_filter",
};

const resultOf = (stdout: string) => JSON.parse(stdout.trim().split("\n").at(-1)!);

describe("print mode exit codes for unfinished answers", () => {
  for (const api of WIRE_APIS) {
    test(`a filtered answer exits 3 with its stop reason and one sentence (${api.name})`, async () => {
      fake = await startFakeLlm({ script: [{ text: "Partial answer", finishReason: "content_filter" }] });
      const r = await ws.run([...api.flags(fake), "-p", "hi", "--output-format", "json"]);
      expect(r.code).toBe(3);
      const result = resultOf(r.stdout);
      expect(result).toMatchObject({ stop_reason: FILTERED[api.name], is_error: true, answer: "Partial answer" });
      expect(result.error).toMatch(/^The (model refused to answer|answer was stopped by .*content filter)/);
      expect(r.stderr).toBe(`gong: ${result.error}\n`);
    });

    test(`an answer still cut after the allowed continuations exits 3 as max_tokens (${api.name})`, async () => {
      const cut = { text: "more ", finishReason: "max_tokens" as const };
      fake = await startFakeLlm({ script: [cut, cut, cut, cut] });
      const r = await ws.run([...api.flags(fake), "-p", "hi", "--output-format", "stream-json"]);
      expect(r.code).toBe(3);
      const lines = r.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      const end = lines.find((e) => e.kind === "agent_end");
      expect(end.data.stop_reason).toBe("max_tokens");
      expect(
        lines
          .filter((e) => e.kind === "message_end" && e.data.message.role === "assistant")
          .every((e) => e.data.message.finishReason === "max_tokens"),
      ).toBe(true);
      expect(lines.at(-1)).toMatchObject({ kind: "result", stop_reason: "max_tokens", answer: "more more more more " });
      expect(fake.requests.length).toBe(4);
    });
  }

  test("settings maxOutputContinuations sets how often a cut answer is continued", async () => {
    const cut = { text: "part ", finishReason: "max_tokens" as const };
    fake = await startFakeLlm({ script: [cut, cut, { text: "never" }] });
    mkdirSync(join(ws.dir, ".gong"), { recursive: true });
    writeFileSync(join(ws.dir, ".gong", "settings.json"), JSON.stringify({ maxOutputContinuations: 1 }));
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "hi", "--output-format", "json"]);
    expect(r.code).toBe(3);
    expect(resultOf(r.stdout)).toMatchObject({ stop_reason: "max_tokens", answer: "part part " });
    expect(fake.requests.length).toBe(2);
  });

  test("a complete answer still exits 0 as completed", async () => {
    fake = await startFakeLlm({ script: [{ text: "All done." }] });
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "hi", "--output-format", "json"]);
    expect(r.code).toBe(0);
    expect(resultOf(r.stdout)).toMatchObject({ stop_reason: "completed", is_error: false });
  });
});
