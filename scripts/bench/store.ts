/**
 * Session store figures: append latency, resume of a 100 MB session (time to the rebuilt context and
 * peak RSS growth), and listing 1,000 sessions. Every file is generated under os.tmpdir() and removed.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "../../lib/llm/types.ts";
import { SessionStore, listSessions } from "../../lib/store/index.ts";
import { mb, median, medianMs, ms, peakRssGrowthMb, type BenchRow } from "./measure.ts";

const AREA = "store";

function turn(i: number, outputBytes: number): Message[] {
  return [
    { role: "user", content: `step ${i}: please look at src/module${i}.ts and fix the failing test` },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Reading the file first." },
        { type: "tool_call", id: `call_${i}`, name: "read", arguments: { path: `src/module${i}.ts` } },
      ],
      usage: { input: 1200, output: 40, cacheRead: 0, cacheWrite: 0, reasoning: 0, cost: 0 },
    },
    {
      role: "tool",
      toolCallId: `call_${i}`,
      toolName: "read",
      content: `export const value${i} = 1;\n`.repeat(Math.ceil(outputBytes / 28)),
      isError: false,
    },
    { role: "assistant", content: [{ type: "text", text: `Fixed module ${i}.` }] },
  ];
}

async function appendLatency(dir: string): Promise<BenchRow> {
  const store = SessionStore.create({ cwd: "/bench/append", dir });
  const messages = turn(0, 400);
  const times: number[] = [];
  for (let i = 0; i < 3000; i++) {
    const t = performance.now();
    store.appendMessage(messages[i % messages.length]);
    times.push(performance.now() - t);
  }
  store.close();
  return {
    area: AREA,
    name: "append one entry (writeSync, no fsync)",
    value: `${(median(times.slice(500)) * 1000).toFixed(1)} µs`,
  };
}

/** A ~100 MB session the way long sessions look: tool outputs, a compaction every ~1 MB, a few branches. */
function generateLargeSession(dir: string): string {
  const store = SessionStore.create({ cwd: "/bench/large", dir });
  store.setModel("anthropic/claude-sonnet-4-5");
  let i = 0;
  let sinceCompaction: string[] = [];
  while (statSync(store.path!).size < 100 * 2 ** 20) {
    const ids = turn(i, 2000 + ((i * 7919) % 6000)).map((m) => store.appendMessage(m).id);
    sinceCompaction.push(ids[0]);
    if (i % 50 === 25) store.branch(ids[1]); // abandon the tail of this turn
    if (sinceCompaction.length >= 150) {
      store.append({
        type: "compaction",
        summary: `Summary up to step ${i}.`,
        firstKeptEntryId: sinceCompaction[sinceCompaction.length - 10],
        tokensBefore: 180_000,
        tokensAfter: 20_000,
        filesRead: [],
        filesModified: [],
        strategy: "summary",
      });
      sinceCompaction = [];
    }
    i++;
  }
  store.close();
  return store.path!;
}

async function resumeLarge(dir: string): Promise<BenchRow[]> {
  const path = generateLargeSession(dir);
  const size = statSync(path).size;
  const resume = () => {
    const store = SessionStore.open(path);
    const context = store.buildContext();
    store.close();
    return context.messages.length;
  };
  const time = await medianMs(resume, { warmup: 1, runs: 5 });
  const { growthMb } = await peakRssGrowthMb(async () => resume());
  return [
    {
      area: AREA,
      name: `resume ${(size / 2 ** 20).toFixed(0)} MB session to its context`,
      value: ms(time),
      target: "≤ 500 ms",
    },
    { area: AREA, name: "resume 100 MB: peak RSS growth", value: mb(growthMb), target: "≪ file size" },
  ];
}

async function listMany(home: string): Promise<BenchRow> {
  for (let s = 0; s < 1000; s++) {
    const store = SessionStore.create({ cwd: `/bench/project${s % 10}`, home });
    const turns = 2 + (s % 25);
    for (let i = 0; i < turns; i++) for (const m of turn(i, 1000 + (s % 7) * 500)) store.appendMessage(m);
    if (s % 3 === 0) store.setName(`session ${s}`);
    store.close();
  }
  const time = await medianMs(() => listSessions(undefined, { home }), { warmup: 1, runs: 5 });
  return { area: AREA, name: "list 1,000 sessions (5–200 KB each)", value: ms(time), target: "≤ 500 ms" };
}

export async function rows(): Promise<BenchRow[]> {
  const root = mkdtempSync(join(tmpdir(), "gong-bench-store-"));
  try {
    return [
      await appendLatency(join(root, "append")),
      ...(await resumeLarge(join(root, "large"))),
      await listMany(join(root, "home")),
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
