/** LLM layer figures: streamed events per second through each adapter, and one loopback round trip. */
import { createClient } from "../../lib/llm/client.ts";
import { startFakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { medianMs, ms, type BenchRow } from "./measure.ts";

const ADAPTERS = [
  { label: "anthropic", model: "anthropic/claude-haiku-4-5" },
  { label: "openai-responses", model: "openai/gpt-5-mini" },
  { label: "openai-chat", model: "deepseek/deepseek-chat" },
  { label: "gemini", model: "gemini/gemini-2.5-flash" },
];

const LONG_TEXT = "The quick brown fox jumps over the lazy dog. ".repeat(4000); // 180 KB

export async function rows(): Promise<BenchRow[]> {
  const fake = await startFakeLlm({ script: () => ({ text: "ok" }) });
  const client = createClient({
    env: {},
    apiKeys: { anthropic: "k", openai: "k", gemini: "k", deepseek: "k" },
    baseUrls: {
      anthropic: fake.baseUrls.anthropic,
      openai: fake.baseUrls.openai,
      gemini: fake.baseUrls.gemini,
      deepseek: fake.baseUrls.openai,
    },
  });
  const out: BenchRow[] = [];
  try {
    for (const { label, model } of ADAPTERS) {
      const request = { model, messages: [{ role: "user" as const, content: "go" }] };
      fake.setScript(() => ({ text: LONG_TEXT, chunkSize: 16 }));
      let events = 0;
      const streamMs = await medianMs(
        async () => {
          events = 0;
          for await (const e of client.stream(request)) {
            events++;
            if (e.type === "error") throw new Error(e.error.message);
          }
        },
        { warmup: 1, runs: 5 },
      );
      out.push({
        area: "llm",
        name: `${label}: streamed events/s (${events} events)`,
        value: `${Math.round(events / (streamMs / 1000)).toLocaleString("en")}/s`,
      });

      fake.setScript(() => ({ text: "ok" }));
      const roundTrip = await medianMs(
        async () => {
          for await (const e of client.stream(request)) if (e.type === "error") throw new Error(e.error.message);
        },
        { warmup: 3, runs: 21 },
      );
      out.push({ area: "llm", name: `${label}: one request round trip on loopback`, value: ms(roundTrip) });
    }
  } finally {
    await fake.close();
  }
  return out;
}
