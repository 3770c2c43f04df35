/**
 * Agent loop overhead: a 50-turn session (49 rounds of a trivial tool, then a text answer) against
 * the fake LLM server, minus the same 50 requests sent straight through the client, per turn.
 * What is left is the loop's own cost: events, hooks plumbing, tool pipeline, truncation check,
 * session file writes, loop detection, context estimate.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { createSession } from "../../lib/agent/index.ts";
import { createClient } from "../../lib/llm/client.ts";
import type { LlmClient, Request } from "../../lib/llm/types.ts";
import { startFakeLlm } from "../../lib/testing/fake-llm/server.ts";
import type { ScriptTurn } from "../../lib/testing/fake-llm/types.ts";
import type { Tool } from "../../tools/types.ts";
import { type BenchRow, mb, medianMs, ms, peakRssGrowthMb } from "./measure.ts";

const TURNS = 50;
const MODEL = "anthropic/claude-sonnet-4-5";

const noop: Tool<{ n: number }> = {
  name: "noop",
  description: "Does nothing.",
  schema: v.object({ n: v.number() }),
  truncation: "head",
  run: async (args, ctx) => ctx.reply.success({ n: args.n }, `ok ${args.n}`),
};

const script = (): ScriptTurn[] => [
  ...Array.from({ length: TURNS - 1 }, (_, n) => ({
    text: "Working on it.",
    toolCalls: [{ name: "noop", arguments: { n } }],
  })),
  { text: "All done." },
];

/** Records every request the session makes, so the baseline can replay exactly the same ones. */
function recording(client: LlmClient, into: Request[]): LlmClient {
  return {
    complete: (r, o) => client.complete(r, o),
    model: (ref) => client.model(ref),
    stream(request, options) {
      into.push(structuredClone(request));
      return client.stream(request, options);
    },
  };
}

export async function rows(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "gong-bench-agent-"));
  const fake = await startFakeLlm({ script: script() });
  const client = createClient({ baseUrls: { anthropic: fake.baseUrls.anthropic }, apiKeys: { anthropic: "bench" } });
  try {
    const recorded: Request[] = [];
    const runSession = async (record: boolean) => {
      fake.setScript(script());
      recorded.length = record ? 0 : recorded.length;
      const session = await createSession({
        model: MODEL,
        cwd: dir,
        client: record ? recording(client, recorded) : client,
        customTools: [noop],
        store: { dir: join(dir, "sessions") },
      });
      const result = await session.submit("Run the tool many times.");
      await session.close();
      if (result.turns !== TURNS) throw new Error(`bench session made ${result.turns} turns, expected ${TURNS}`);
    };
    const bareRoundTrips = async () => {
      fake.setScript(script());
      for (const request of recorded) for await (const _event of client.stream(request)) void _event;
    };

    await runSession(true);
    const session = await medianMs(() => runSession(false), { warmup: 1, runs: 5 });
    const bare = await medianMs(bareRoundTrips, { warmup: 1, runs: 5 });
    const memory = await peakRssGrowthMb(() => runSession(false));
    const perTurn = Math.max(0, session - bare) / TURNS;
    return [
      {
        area: "agent",
        name: `loop overhead per turn (${TURNS}-turn session minus bare client)`,
        value: ms(perTurn),
        target: "≤ 2 ms",
      },
      { area: "agent", name: `${TURNS}-turn session, total`, value: ms(session) },
      { area: "agent", name: `${TURNS} bare client round trips, total`, value: ms(bare) },
      { area: "agent", name: `peak RSS growth, ${TURNS}-turn session`, value: mb(memory.growthMb) },
    ];
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
