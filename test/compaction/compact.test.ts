import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import {
  CompactionInProgressError,
  compact,
  compactMessages,
  type CompactResult,
} from "../../lib/agent/compaction/index.ts";
import type { Message } from "../../lib/llm/types.ts";
import { REMOVED_OUTPUT_NOTE, SessionStore } from "../../lib/store/index.ts";
import type { Script, ScriptedRequest } from "../../lib/testing/fake-llm/types.ts";
import { scriptedClient, type ScriptedClient } from "../../lib/testing/scripted-client.ts";
import { assistant, conversation, tempDir, toolResult, treeProblems, user } from "../store/helpers.ts";

const MODEL = "anthropic/claude-sonnet-4-5";
const SUMMARY = "## Goal\nShip the feature.\n\n## Next Steps\n1. run the tests";

let tmp: ReturnType<typeof tempDir>;
let fake: ScriptedClient | undefined;
beforeEach(() => {
  tmp = tempDir("gong-compaction-");
});
afterEach(async () => {
  fake = undefined;
  tmp.cleanup();
});

async function llm(script: Script<ScriptedRequest>) {
  fake = scriptedClient(script);
  return fake;
}

/** The prompt text the summary request carried. */
function promptOf(index: number): string {
  const body = fake!.requests[index].body;
  const content = body.messages[0].content;
  return typeof content === "string" ? content : content.map((p: { text?: string }) => p.text ?? "").join("");
}

/** 50 messages of ~1000 tokens each, alternating user / assistant. */
const fifty = (): Message[] =>
  Array.from({ length: 50 }, (_, i) =>
    i % 2 ? assistant(`answer ${i} `.padEnd(4000, ".")) : user(`question ${i} `.padEnd(4000, ".")),
  );

function newStore(messages: Message[]) {
  const store = SessionStore.create({ cwd: "/work/c", dir: tmp.dir });
  const ids = messages.map((m) => store.appendMessage(m).id);
  return { store, ids };
}

/** Every tool result answers a call made earlier in the list. */
function orphanResults(messages: Message[]): string[] {
  const called = new Set<string>();
  const orphans: string[] = [];
  for (const m of messages) {
    if (m.role === "assistant") for (const p of m.content) if (p.type === "tool_call") called.add(p.id);
    if (m.role === "tool" && !called.has(m.toolCallId)) orphans.push(m.toolCallId);
  }
  return orphans;
}

describe("J.12 2. window and retention", () => {
  test("J.12 2.1 under threshold no compaction and no LLM call", async () => {
    const client = await llm([{ text: SUMMARY }]);
    const messages = conversation(3); // 12 messages, far below the window
    const result = await compactMessages({ client, model: MODEL, messages, contextWindow: 100_000 });
    expect(result.compacted).toBe(false);
    expect(result.messages).toBe(messages);
    expect(result.compacted ? undefined : result.reason).toBe("under_threshold");
    expect(fake!.requests).toHaveLength(0);
  });

  test("J.12 2.2 over threshold compacts: the last 20 kept, the first 30 summarised", async () => {
    const client = await llm([{ text: SUMMARY }]);
    const messages = fifty();
    const { store, ids } = newStore(messages);
    const result = await compact({ store, client, model: MODEL, contextWindow: 40_000, keepRecentTokens: 20_000 });
    expect(result.compacted).toBe(true);
    if (!result.compacted) return;
    expect(result.strategy).toBe("summary");
    expect(result.messages).toHaveLength(21);
    expect(result.messages.slice(1)).toEqual(messages.slice(30));
    expect(String(result.messages[0].content)).toContain("Ship the feature.");
    expect(result.entry).toMatchObject({
      type: "compaction",
      firstKeptEntryId: ids[30],
      strategy: "summary",
      tokensBefore: result.tokensBefore,
    });
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
    expect(fake!.requests).toHaveLength(1);
    const prompt = promptOf(0);
    expect(prompt).toContain("question 28");
    expect(prompt).not.toContain("question 30");
    for (const section of [
      "## Goal",
      "## Constraints & Preferences",
      "### Done",
      "### In Progress",
      "### Blocked",
      "## Key Decisions",
      "## Next Steps",
      "## Critical Context",
    ]) {
      expect(prompt).toContain(section);
    }
    store.close();
  });

  test("J.12 2.3 system message never summarised, stays first", async () => {
    const client = await llm([{ text: SUMMARY }]);
    const system = { role: "system", content: "SYSTEM RULES: be careful" } as unknown as Message;
    const messages = [system, ...fifty()];
    const result = await compactMessages({
      client,
      model: MODEL,
      messages,
      contextWindow: 40_000,
      keepRecentTokens: 20_000,
    });
    expect(result.compacted).toBe(true);
    expect(result.messages[0]).toBe(system);
    expect(String(result.messages[1].content)).toContain("Ship the feature.");
    expect(result.messages.slice(2)).toEqual(messages.slice(31));
    expect(promptOf(0)).not.toContain("SYSTEM RULES");
  });
});

describe("J.12 3. fallback and guards", () => {
  test("J.12 3.1 summary API failure falls back to removing old tool outputs, one request only", async () => {
    const client = await llm([{ fault: { type: "overflow" } }, { text: "never requested" }]);
    const messages = conversation(40, 2000); // ~500-token tool outputs, ~21k tokens
    const { store, ids } = newStore(messages);
    const result = await compact({
      store,
      client,
      model: MODEL,
      contextWindow: 20_000,
      reserveTokens: 4_000,
      keepRecentTokens: 3_000,
    });
    expect(fake!.requests).toHaveLength(1); // no retry, no loop
    expect(result.compacted).toBe(true);
    if (!result.compacted) return;
    expect(result.strategy).toBe("truncate");
    expect(result.error).toBeTruthy();
    expect(result.messages).toHaveLength(messages.length); // structure kept
    expect(orphanResults(result.messages)).toEqual([]);
    const before = result.messages.slice(0, result.cutIndex).filter((m) => m.role === "tool");
    const after = result.messages.slice(result.cutIndex).filter((m) => m.role === "tool");
    expect(before.length).toBeGreaterThan(0);
    for (const m of before) expect(m.content).toBe(REMOVED_OUTPUT_NOTE);
    for (const m of after) expect(m.content).not.toBe(REMOVED_OUTPUT_NOTE);
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
    expect(result.entry).toMatchObject({ strategy: "truncate", firstKeptEntryId: ids[0], summary: "" });
    store.close();
    const resumed = SessionStore.open(store.path!);
    expect(resumed.buildContext().messages).toEqual(result.messages);
    resumed.close();
  });

  test("J.12 3.3 a summary after a truncate-only compaction keeps the removed outputs removed; resume equals live", async () => {
    const client = await llm([{ fault: { type: "overflow" } }, { text: SUMMARY }]);
    const { store } = newStore(conversation(40, 2000));
    const base = { store, client, model: MODEL, contextWindow: 20_000, reserveTokens: 4_000 };
    const first = await compact({ ...base, keepRecentTokens: 2_000 });
    expect(first.compacted && first.strategy).toBe("truncate");
    // A larger kept window cuts earlier than the outputs the first compaction removed.
    const second = (await compact({ ...base, keepRecentTokens: 2_500, force: true })) as Extract<
      CompactResult,
      { compacted: true }
    >;
    expect(second.strategy).toBe("summary");
    const keptRemoved = second.messages.filter((m) => m.role === "tool" && m.content === REMOVED_OUTPUT_NOTE);
    expect(keptRemoved.length).toBeGreaterThan(0);
    expect(store.buildContext().messages).toEqual(second.messages);
    store.close();
    const resumed = SessionStore.open(store.path!);
    expect(resumed.buildContext().messages).toEqual(second.messages);
    resumed.close();
  });

  test("J.12 3.2 compaction lock refuses a second compaction while one runs", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const client = await llm(async () => {
      await gate;
      return { text: SUMMARY };
    });
    const { store } = newStore(fifty());
    const options = { store, client, model: MODEL, contextWindow: 40_000 };
    const first = compact(options);
    const second = compact(options).then(
      () => undefined,
      (error: unknown) => error,
    );
    const refused = await second;
    expect(refused).toBeInstanceOf(CompactionInProgressError);
    expect((refused as CompactionInProgressError).code).toBe("compaction_in_progress");
    release();
    const done = await first;
    expect(done.compacted).toBe(true);
    expect(fake!.requests).toHaveLength(1);
    expect([...store.entries()].filter((e) => e.type === "compaction")).toHaveLength(1);
    store.close();
  });

  test("J.12 3.3 compaction entry written to the session file; resume equals the live context", async () => {
    const client = await llm([{ text: SUMMARY }, { text: "## Goal\nShip it, updated." }]);
    const messages = conversation(30, 2000);
    const { store } = newStore(messages);
    const opts = { store, client, model: MODEL, contextWindow: 12_000, reserveTokens: 2_000, keepRecentTokens: 5_000 };
    const first = (await compact(opts)) as Extract<CompactResult, { compacted: true }>;
    expect(first.compacted).toBe(true);
    const lines = readFileSync(store.path!, "utf8").trimEnd().split("\n");
    const written = JSON.parse(lines[lines.length - 1]);
    expect(written).toMatchObject({
      type: "compaction",
      id: first.entry!.id,
      summary: first.summary,
      filesModified: [],
    });
    expect(written.filesRead).toContain("src/f0.ts");
    expect(first.summary).toContain("<read-files>\nsrc/f0.ts");
    expect(store.buildContext().messages).toEqual(first.messages);

    // The session goes on and compacts again: the previous summary is sent for an UPDATE.
    for (const m of conversation(25, 2000))
      store.appendMessage({ ...m, ...(m.role === "user" ? { content: `later ${m.content}` } : {}) } as Message);
    store.appendMessage(assistant("", [{ id: "w1", name: "write", arguments: { path: "out.ts", content: "x" } }]));
    store.appendMessage(toolResult("w1", "write", "written", { kind: "modify", files: ["out.ts"] }));
    store.appendMessage(user("and the last question"));
    const second = (await compact(opts)) as Extract<CompactResult, { compacted: true }>;
    expect(second.compacted).toBe(true);
    expect(promptOf(1)).toContain("<previous-summary>\n## Goal\nShip the feature.");
    expect(promptOf(1)).toContain("UPDATE the previous summary");
    expect(promptOf(1).includes("[User]\nstep 0: look")).toBe(false); // the old part is not summarised again
    expect(promptOf(1).includes("[User]\nlater step 0: look")).toBe(true);
    expect(second.entry!.filesRead).toContain("src/f0.ts"); // carried over
    const live = store.buildContext();
    expect(live.messages).toEqual(second.messages);
    expect(String(live.messages[0].content)).toContain("Ship it, updated.");
    expect(treeProblems(store)).toEqual([]);
    store.close();
    const resumed = SessionStore.open(store.path!);
    expect(resumed.buildContext()).toEqual(live);
    resumed.close();
  });
});
