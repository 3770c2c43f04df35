/**
 * 004 §9.13 step 4 (truncation check) through the whole agent: a 100,000-character file is read;
 * `tool_call_end` carries all of it, while the request the model receives — read from the fake
 * server's request log — has the truncation marker and stays under the read limit. Run over each
 * wire API the fake server speaks (the default profile serves every provider).
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CAPABILITY_LIMITS } from "../../lib/profiles/tool-limits.ts";
import { harness } from "./harness.ts";

const MARKER = "WARNING: Tool output was truncated";
const MODELS = {
  "anthropic messages": "anthropic/claude-sonnet-4-5",
  "openai responses": "openai/gpt-5",
  "chat completions": "deepseek/deepseek-chat",
  gemini: "gemini/gemini-2.5-pro",
};

/** Every string in a request body that holds the marker (the tool result, whatever the wire format). */
function markedStrings(body: unknown): string[] {
  const found: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === "string") {
      if (v.includes(MARKER)) found.push(v);
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") Object.values(v).forEach(walk);
  };
  walk(body);
  return found;
}

describe("004 §9.13 step 4: truncation check", () => {
  for (const [api, model] of Object.entries(MODELS)) {
    test(`004-9.13 step 4 a 100,000-character file read over ${api}`, async () => {
      const h = await harness([{ toolCalls: [{ name: "read", arguments: { path: "big.txt" } }] }, { text: "It is all x." }], { model });
      try {
        writeFileSync(join(h.dir, "big.txt"), "x".repeat(100_000));
        await h.session.submit("Read big.txt");
        const end = h.events.find((e) => e.kind === "tool_call_end")!;
        const output = end.data.output as { text: string };
        // The event has the whole line.
        expect(output.text).toContain(`   1 | ${"x".repeat(100_000)}\n`);
        expect(end.data).toMatchObject({ truncated: true, output_complete: true });
        // The model's request has the marker, and the tool result stays under the limit (plus the marker itself).
        const [seen] = markedStrings(h.fake.requests[1].body);
        expect(seen).toBeDefined();
        expect(seen).toContain("Line 3 alone is longer than the 50000-character limit: only its first");
        expect(seen).toContain(`The full output is in ${end.data.full_output_path}.`);
        expect(seen.length).toBeLessThan(CAPABILITY_LIMITS.read.maxChars + 1000);
        expect(seen.length).toBeGreaterThan(CAPABILITY_LIMITS.read.maxChars - 100);
      } finally {
        await h.cleanup();
      }
    });
  }
});

describe("004 §9.5 limits through the session config", () => {
  test("004-9.5 toolOutputLimits (characters) and toolLineLimits override the profile's", async () => {
    const h = await harness([{ toolCalls: [{ name: "bash", arguments: { command: "seq 1 1000" } }] }, { text: "ok" }], {
      config: { toolOutputLimits: { bash: 100 }, toolLineLimits: { bash: 5 } },
    });
    try {
      await h.session.submit("count");
      const [seen] = markedStrings(h.fake.requests[1].body);
      expect(seen).toContain("Lines 1-995 of 1000 are not shown. Shown: lines 996-1000.");
      expect(seen.endsWith("]\n996\n997\n998\n999\n1000\n")).toBe(true);
    } finally {
      await h.cleanup();
    }
  });

  test("the event limit: tool_call_end keeps the first and last parts and names the full output", async () => {
    const h = await harness([{ toolCalls: [{ name: "bash", arguments: { command: "seq 1 20000" } }] }, { text: "ok" }], {
      observer: { eventLimitChars: 10_000 },
    });
    try {
      await h.session.submit("count");
      const end = h.events.find((e) => e.kind === "tool_call_end")!;
      const text = (end.data.output as { text: string }).text;
      expect(end.data.output_complete).toBe(false);
      expect(text.length).toBeLessThan(10_300);
      expect(text.startsWith("1\n2\n3\n")).toBe(true);
      expect(text.endsWith("19999\n20000\n")).toBe(true);
      expect(text).toContain(`the complete output is in ${end.data.full_output_path}`);
    } finally {
      await h.cleanup();
    }
  });
});

test("001-10 a session sweeps expired and over-budget spill files when it starts", async () => {
  const project = mkdtempSync(join(tmpdir(), "gong-sweep-"));
  const spills = join(project, "tool-output");
  mkdirSync(spills);
  const day = 86_400;
  const now = Date.now() / 1000;
  for (const [name, age, size] of [["tool_old_bash.txt", 8 * day, 10], ["tool_big_bash.txt", 2 * day, 3000], ["tool_new_bash.txt", 60, 1000]] as const) {
    writeFileSync(join(spills, name), "x".repeat(size));
    utimesSync(join(spills, name), now - age, now - age);
  }
  const h = await harness([{ text: "hi" }], { cwd: project, observer: { spillBudgetBytes: 2000 } });
  try {
    expect(readdirSync(spills)).toEqual(["tool_new_bash.txt"]);
  } finally {
    await h.cleanup();
    rmSync(project, { recursive: true, force: true });
  }
});
