/**
 * Child agents: the cost of spawning a child, running its one-turn task and collecting its answer,
 * over the child's own model time (the Agent tool's duration minus the child's turn), and four
 * children running at once against one (each child's model streams slowly, so four in parallel
 * should take about as long as one).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSession, type SessionEvent } from "../../lib/agent/index.ts";
import { createClient } from "../../lib/llm/client.ts";
import { routeByPrompt } from "../../lib/testing/fake-llm/route.ts";
import { startFakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { type BenchRow, median, ms } from "./measure.ts";

const MODEL = "anthropic/claude-sonnet-4-5";
const CHILD_DELAY_MS = 50;

export async function rows(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "gong-bench-subagents-"));
  const fake = await startFakeLlm({
    script: routeByPrompt({
      ONE: [
        { toolCalls: [{ name: "Agent", arguments: { description: "one", prompt: "CHILD: answer" } }] },
        { text: "done" },
      ],
      FOUR: [
        { toolCalls: [1, 2, 3, 4].map((n) => ({ name: "spawn_agent", arguments: { task: `SLOW-${n}: answer` } })) },
        { text: "spawned" },
      ],
      SINGLE: [{ toolCalls: [{ name: "spawn_agent", arguments: { task: "SLOW-1: answer" } }] }, { text: "spawned" }],
      CHILD: [{ text: "child answer" }],
      ...Object.fromEntries(
        [1, 2, 3, 4].map((n) => [
          `SLOW-${n}`,
          [{ text: `answer ${n}`, chunkDelayMs: CHILD_DELAY_MS, chunkSize: 1000 }],
        ]),
      ),
    }),
  });
  const client = createClient({ baseUrls: { anthropic: fake.baseUrls.anthropic }, apiKeys: { anthropic: "bench" } });
  try {
    const overheads: number[] = [];
    for (let i = 0; i < 12; i++) {
      const session = await createSession({ model: MODEL, cwd: dir, client, profile: "anthropic", store: false });
      const events: SessionEvent[] = [];
      session.subscribe((e) => events.push(e));
      await session.submit("ONE: delegate");
      const at = (pred: (e: SessionEvent) => boolean) => events.find(pred)!.timestamp;
      const tool =
        at((e) => e.kind === "tool_call_end" && !e.agent_id) - at((e) => e.kind === "tool_call_start" && !e.agent_id);
      const childModel =
        at((e) => e.kind === "turn_end" && e.agent_id !== undefined) -
        at((e) => e.kind === "turn_start" && e.agent_id !== undefined);
      if (i >= 2) overheads.push(tool - childModel);
      await session.close();
    }

    /** Wall time until every child the prompt spawns has finished. */
    const childrenDone = async (prompt: string): Promise<number> => {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const session = await createSession({ model: MODEL, cwd: dir, client, store: false, profile: "default" });
        const started = performance.now();
        await session.submit(prompt);
        while (session.subagents.some((c) => c.status === "running")) await new Promise((r) => setTimeout(r, 1));
        if (i >= 1) times.push(performance.now() - started);
        await session.close();
      }
      return median(times);
    };
    const one = await childrenDone("SINGLE: spawn one");
    const four = await childrenDone("FOUR: spawn four");
    return [
      {
        area: "subagents",
        name: "spawn + run + collect, over the child's model time",
        value: ms(median(overheads)),
        target: "≤ 5 ms",
      },
      { area: "subagents", name: "1 child with a slow model (spawn to finish)", value: ms(one) },
      {
        area: "subagents",
        name: "4 concurrent children, same slow model",
        value: ms(four),
        target: "≈ 1 child, not 4×",
      },
    ];
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
