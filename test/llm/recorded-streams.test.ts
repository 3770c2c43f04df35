/**
 * Issue 24, the corpus: streams recorded from the real services (test/fixtures/streams, each with
 * its source in sources.json) replayed verbatim over loopback HTTP through the official SDKs and
 * gong's adapters, once whole and once cut into 1–9 byte pieces. Each must give the answer, the
 * tool calls with their parsed arguments, thinking and signatures, usage and stop reason the
 * recording holds — or, for a recorded failure, one sentence naming the provider.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createClient } from "../../lib/llm/client.ts";
import type { Request, Response, StreamEvent, WireApi } from "../../lib/llm/types.ts";
import { replyFor, startReplayServer, type Recording, type ReplayServer } from "../../lib/testing/replay.ts";

const DIR = join(import.meta.dir, "..", "fixtures", "streams");
const recordings: Recording[] = JSON.parse(readFileSync(join(DIR, "sources.json"), "utf8"));

/** Chat servers gong has a preset for keep their preset (its reasoning fields and id rules); others are declared. */
const CHAT_PRESETS = new Set([
  "openrouter",
  "groq",
  "deepseek",
  "xai",
  "mistral",
  "together",
  "cerebras",
  "ollama",
  "vllm",
  "lmstudio",
]);

function modelFor(recording: Recording): string {
  const models: Record<WireApi, string> = {
    "anthropic-messages": "anthropic/claude-sonnet-4-5",
    "openai-responses": "openai/gpt-5-mini",
    gemini: "gemini/gemini-2.5-flash",
    "openai-chat": `${CHAT_PRESETS.has(recording.provider) ? recording.provider : `${recording.provider}-chat`}/recorded-model`,
  };
  return models[recording.api];
}

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(async () => {
  await server?.close();
});

function clientFor(recording: Recording) {
  const chatIds = [...CHAT_PRESETS];
  const declared =
    recording.api === "openai-chat" && !CHAT_PRESETS.has(recording.provider)
      ? [{ id: `${recording.provider}-chat`, baseUrl: `${server.url}/v1` }]
      : [];
  return createClient({
    env: {},
    apiKeys: Object.fromEntries(["anthropic", "openai", "gemini", ...chatIds].map((p) => [p, "recorded"])),
    baseUrls: {
      anthropic: server.url,
      openai: `${server.url}/v1`,
      gemini: server.url,
      ...Object.fromEntries(chatIds.map((p) => [p, `${server.url}/v1`])),
    },
    providers: declared,
    // A recorded failure is answered once: no retries, no waiting.
    retry: { maxRetries: 0 },
  });
}

async function replay(
  recording: Recording,
  pieces: boolean,
): Promise<{ finish?: Response; error?: Extract<StreamEvent, { type: "error" }> }> {
  server.serve(replyFor(recording, readFileSync(join(DIR, recording.file), "utf8"), pieces));
  const request: Request = { model: modelFor(recording), messages: [{ role: "user", content: "replay" }] };
  if (recording.mode === "complete") return { finish: await clientFor(recording).complete(request) };
  let finish: Response | undefined;
  let error: Extract<StreamEvent, { type: "error" }> | undefined;
  for await (const event of clientFor(recording).stream(request)) {
    if (event.type === "finish") finish = event.response;
    if (event.type === "error") error = event;
  }
  return { finish, error };
}

function hasSignature(response: Response): boolean {
  const thinking = response.message.content.some((p) => p.type === "thinking" && !!p.signature);
  return thinking || response.toolCalls.some((c) => typeof c.providerData?.thoughtSignature === "string");
}

function check(recording: Recording, outcome: Awaited<ReturnType<typeof replay>>): void {
  const { expect: want } = recording;
  if (want.error !== undefined || want.httpError) {
    expect(outcome.finish).toBeUndefined();
    const error = outcome.error!.error;
    // One sentence naming the provider and what was wrong, in the provider's own words.
    expect(error.message.startsWith(modelFor(recording).split("/")[0])).toBe(true);
    if (want.error) expect(error.message).toContain(want.error.slice(0, 40));
    if (recording.status) expect(error.status).toBe(recording.status);
    expect(error.kind).not.toBe("unknown");
    return;
  }
  expect(outcome.error?.error.message).toBeUndefined();
  const response = outcome.finish!;
  expect(response.text).toBe(want.text!);
  expect(response.toolCalls.map((c) => ({ name: c.name, arguments: c.invalidArguments ? null : c.arguments }))).toEqual(
    want.toolCalls!,
  );
  expect((response.reasoning ?? "") !== "").toBe(want.thinking!);
  expect(hasSignature(response)).toBe(want.signature!);
  expect({ input: response.usage.input, output: response.usage.output }).toEqual(want.usage!);
  expect(response.finishReason).toBe(want.stop as Response["finishReason"]);
  // Tools the provider ran itself are kept as its blocks, and none of them is a call gong would run.
  const serverBlocks = response.message.content.flatMap((p) =>
    p.type === "server_tool" ? [String(p.block.type)] : [],
  );
  expect([...new Set(serverBlocks)].sort()).toEqual(want.serverBlocks ?? []);
}

describe("recorded real streams", () => {
  test("the corpus holds at least 60 recordings across the four wire APIs and five OpenAI-compatible servers", () => {
    expect(recordings.length).toBeGreaterThanOrEqual(60);
    for (const api of ["anthropic-messages", "openai-responses", "openai-chat", "gemini"])
      expect(recordings.some((r) => r.api === api)).toBe(true);
    const compatible = new Set(
      recordings
        .filter((r) => r.api === "openai-chat" && r.provider !== "openai" && r.provider !== "azure")
        .map((r) => r.provider),
    );
    expect(compatible.size).toBeGreaterThanOrEqual(5);
    for (const r of recordings) expect(r.source.commit).toMatch(/^[0-9a-f]{40}$/);
  });
});

describe("streams written by hand (kept apart: test/fixtures/streams/hand-written)", () => {
  const handWritten: Recording[] = JSON.parse(readFileSync(join(DIR, "hand-written", "sources.json"), "utf8"));
  for (const recording of handWritten) {
    test(`${recording.file}: ${recording.expect.toolCalls?.length ? "a custom (freeform) tool call arrives as { input }" : "replays"}`, async () => {
      check(recording, await replay(recording, true));
    });
  }

  for (const recording of recordings) {
    if (recording.mode === "complete") {
      test(`${recording.file} (${recording.source.repository}) answered whole (not streamed)`, async () => {
        check(recording, await replay(recording, false));
      });
      continue;
    }
    test(`${recording.file} (${recording.source.repository}) replayed whole`, async () => {
      check(recording, await replay(recording, false));
    });
    test(`${recording.file} (${recording.source.repository}) replayed in 1–9 byte pieces`, async () => {
      check(recording, await replay(recording, true));
    });
  }
});
