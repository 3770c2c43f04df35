import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createDefaultProfile } from "../../lib/profiles/index.ts";
import type { ScriptedRequest, ScriptTurn } from "../../lib/testing/fake-llm/types.ts";
import { harness, type Harness } from "./harness.ts";

/** A profile whose context window is small enough to fill with a few tool outputs. */
const smallWindow = (tokens: number) => (o: Parameters<typeof createDefaultProfile>[0]) => ({
  ...createDefaultProfile(o),
  contextWindowSize: tokens,
});

const isSummaryRequest = (r: ScriptedRequest) => JSON.stringify(r.body.system ?? "").includes("handover notes");

/** Answers summary requests with SUMMARY-TEXT and plays `turns` for the agent's own requests. */
function scripted(turns: ScriptTurn[]) {
  let i = 0;
  return (r: ScriptedRequest): ScriptTurn =>
    isSummaryRequest(r) ? { text: "SUMMARY-TEXT" } : (turns[i++] ?? { text: "script exhausted" });
}

/** A bash call printing `chars` characters (chars/4 tokens). */
const bigOutput = (chars: number): ScriptTurn => ({
  toolCalls: [{ name: "bash", arguments: { command: `head -c ${chars} /dev/zero | tr '\\0' x` } }],
});

/** Characters of a message's text and tool calls. */
function textLength(content: unknown): number {
  if (typeof content === "string") return content.length;
  if (!Array.isArray(content)) return 0;
  return content.reduce(
    (n, p) =>
      n +
      (typeof p.text === "string"
        ? p.text.length
        : p.type === "tool_call"
          ? p.name.length + JSON.stringify(p.arguments).length
          : 0),
    0,
  );
}

const agentRequests = (h: Harness) => h.fake.requests.filter((r) => !isSummaryRequest(r));
const mentions = (r: ScriptedRequest, text: string) => JSON.stringify(r.body.messages).includes(text);

describe("compaction in the session", () => {
  test("003 6.1 compaction at a turn boundary inside a long tool loop", async () => {
    await using h = await harness(scripted([bigOutput(16_000), bigOutput(16_000), { text: "done" }]), {
      profile: smallWindow(24_000),
      config: { compactKeepRecentTokens: 1_000 },
    });
    const result = await h.session.submit("produce output");
    expect(result.text).toBe("done");
    const end = h.events.find((e) => e.kind === "compaction_end")!;
    expect(end.data).toMatchObject({ reason: "threshold", compacted: true, strategy: "summary" });
    expect(h.kinds().indexOf("compaction_start")).toBeLessThan(h.kinds().indexOf("compaction_end"));
    const last = agentRequests(h).at(-1)!;
    expect(mentions(last, "SUMMARY-TEXT")).toBe(true);
    expect(h.session.messages[0].content).toContain("SUMMARY-TEXT");
    const types = readFileSync(h.session.sessionFile!, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l).type);
    expect(types).toContain("compaction");
  });

  test("J.9 4.4 steering and follow-ups sent during a compaction are processed afterwards", async () => {
    await using h = await harness(
      scripted([bigOutput(16_000), bigOutput(16_000), { text: "after steering" }, { text: "after follow-up" }]),
      {
        profile: smallWindow(24_000),
        config: { compactKeepRecentTokens: 1_000 },
      },
    );
    const off = h.session.subscribe((e) => {
      if (e.kind === "compaction_start") {
        off();
        h.session.steer("STEER-DURING-COMPACTION");
        h.session.followUp("FOLLOW-DURING-COMPACTION");
      }
    });
    const result = await h.session.submit("produce output");
    expect(result.text).toBe("after follow-up");
    const requests = agentRequests(h);
    expect(requests).toHaveLength(4);
    expect(mentions(requests[2], "STEER-DURING-COMPACTION")).toBe(true);
    expect(mentions(requests[2], "FOLLOW-DURING-COMPACTION")).toBe(false);
    expect(mentions(requests[3], "FOLLOW-DURING-COMPACTION")).toBe(true);
  });

  test("003 6 a context overflow compacts and retries the request once", async () => {
    await using h = await harness(
      scripted([{ text: "first answer" }, { fault: { type: "overflow" } }, { text: "recovered" }]),
      {
        config: { compactKeepRecentTokens: 1 },
      },
    );
    await h.session.submit("hello");
    const result = await h.session.submit("a question that overflows");
    expect(result.text).toBe("recovered");
    expect(h.events.find((e) => e.kind === "compaction_start")!.data.reason).toBe("overflow");
    const requests = agentRequests(h);
    expect(requests).toHaveLength(3);
    expect(mentions(requests[2], "SUMMARY-TEXT")).toBe(true);
    expect(mentions(requests[2], "a question that overflows")).toBe(true);
  });

  test("004-9.11.4 with autoCompact false a context overflow warns and does not compact", async () => {
    await using h = await harness(
      scripted([{ text: "first answer" }, { fault: { type: "overflow" } }, { text: "unused" }]),
      {
        config: { autoCompact: false, compactKeepRecentTokens: 1 },
      },
    );
    await h.session.submit("hello");
    const result = await h.session.submit("too big");
    expect(result.stopReason).toBe("error");
    expect(result.error?.kind).toBe("context_overflow");
    expect(h.events.some((e) => e.kind === "warning" && e.data.kind === "context_overflow")).toBe(true);
    expect(h.events.some((e) => e.kind === "compaction_start")).toBe(false);
    expect(h.fake.requests.some(isSummaryRequest)).toBe(false);
    expect(agentRequests(h)).toHaveLength(2);
    expect(h.session.state).toBe("IDLE");
  });

  test("004-9.11 an overflow that persists after compacting ends the input with error and warning events", async () => {
    await using h = await harness(
      scripted([
        { text: "first answer" },
        { fault: { type: "overflow" } },
        { fault: { type: "overflow" } },
        { text: "unused" },
      ]),
      {
        config: { compactKeepRecentTokens: 1 },
      },
    );
    await h.session.submit("hello");
    const result = await h.session.submit("too big");
    expect(result.stopReason).toBe("error");
    expect(result.error?.kind).toBe("context_overflow");
    expect(h.events.some((e) => e.kind === "warning" && e.data.kind === "context_overflow")).toBe(true);
    expect(agentRequests(h)).toHaveLength(3);
    expect(h.session.state).toBe("IDLE");
  });

  test("004 5.5 a warning event once the context passes 80% of the window, not before", async () => {
    // Each round adds 6,400 characters (~1,600 tokens) to a 6,000-token window: about 37%, 63%, then 90%.
    await using h = await harness(scripted([bigOutput(6_400), bigOutput(6_400), bigOutput(6_400), { text: "done" }]), {
      profile: smallWindow(6_000),
      config: { autoCompact: false },
    });
    await h.session.submit("fill it");
    const kinds = h.kinds();
    const turnEnds = kinds.flatMap((k, i) => (k === "turn_end" ? [i] : []));
    const warnings = h.of("warning").filter((e) => e.data.kind === "context_usage");
    expect(warnings).toHaveLength(1);
    const at = h.events.indexOf(warnings[0]);
    expect(at).toBeGreaterThan(turnEnds[2]);
    expect(at).toBeLessThan(kinds.indexOf("turn_start", turnEnds[2]));
    // The figure is the chars/4 estimate of what the next request carries.
    const chars = h.session.systemPrompt().length + h.session.messages.reduce((n, m) => n + textLength(m.content), 0);
    const percent = warnings[0].data.percent!;
    expect(Math.abs(percent - (chars / 4 / 6_000) * 100)).toBeLessThan(3);
    expect(percent).toBeGreaterThan(80);
    expect(String(warnings[0].data.message)).toBe(`Context usage is about ${percent}% of the context window`);
    expect(kinds).not.toContain("compaction_start");
  });

  test("session.compact() summarizes on request", async () => {
    await using h = await harness(scripted([{ text: "one" }, { text: "two" }, { text: "three" }]), {
      config: { compactKeepRecentTokens: 1 },
    });
    await h.session.submit("first");
    await h.session.submit("second");
    expect(await h.session.compact()).toBe(true);
    expect(h.session.messages[0].content).toContain("SUMMARY-TEXT");
    await h.session.submit("third");
    expect(mentions(agentRequests(h).at(-1)!, "SUMMARY-TEXT")).toBe(true);
  });
});
