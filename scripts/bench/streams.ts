/**
 * Parse cost of recorded real streams (test/fixtures/streams): each wire API's recordings replayed
 * whole over loopback through the SDK and gong's adapter, as milliseconds per MB of stream.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createClient } from "../../lib/llm/client.ts";
import type { WireApi } from "../../lib/llm/types.ts";
import { replyFor, startReplayServer, type Recording } from "../../lib/testing/replay.ts";
import { medianMs, type BenchRow } from "./measure.ts";

const DIR = join(import.meta.dir, "..", "..", "test", "fixtures", "streams");

const MODELS: Record<WireApi, string> = {
  "anthropic-messages": "anthropic/claude-sonnet-4-5",
  "openai-responses": "openai/gpt-5-mini",
  "openai-chat": "deepseek/recorded-model",
  gemini: "gemini/gemini-2.5-flash",
};

export async function rows(): Promise<BenchRow[]> {
  const recordings: Recording[] = JSON.parse(readFileSync(join(DIR, "sources.json"), "utf8"));
  const server = await startReplayServer();
  const client = createClient({
    env: {},
    apiKeys: { anthropic: "k", openai: "k", gemini: "k", deepseek: "k" },
    baseUrls: { anthropic: server.url, openai: `${server.url}/v1`, gemini: server.url, deepseek: `${server.url}/v1` },
    retry: { maxRetries: 0 },
  });
  const out: BenchRow[] = [];
  try {
    for (const api of Object.keys(MODELS) as WireApi[]) {
      // Successful streams only: an error ends a replay early and would flatter the figure.
      const replies = recordings
        .filter((r) => r.api === api && !r.status && r.mode !== "complete" && r.expect.error === undefined)
        .map((r) => replyFor(r, readFileSync(join(DIR, r.file), "utf8")));
      const bytes = replies.reduce((sum, r) => sum + r.body.length, 0);
      const request = { model: MODELS[api], messages: [{ role: "user" as const, content: "replay" }] };
      const total = await medianMs(
        async () => {
          for (const reply of replies) {
            server.serve(reply);
            for await (const e of client.stream(request))
              if (e.type === "error") throw new Error(`${api}: ${e.error.message}`);
          }
        },
        { warmup: 1, runs: 5 },
      );
      const mb = bytes / (1024 * 1024);
      out.push({
        area: "streams",
        name: `${api}: parse cost of recorded streams (${replies.length} streams, ${mb.toFixed(2)} MB)`,
        value: `${(total / mb).toFixed(0)} ms/MB`,
      });
    }
  } finally {
    await server.close();
  }
  return out;
}
