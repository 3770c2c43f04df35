/**
 * Streamed output stays proportional to what the model sent: tool_call_update carries each piece
 * of the arguments (with a parsed snapshot only now and then), and message_update lines carry the
 * piece, not the whole answer so far. Parsing the arguments as they stream is linear work: each
 * character is scanned once, and whole-text parses happen only as often as the snapshot interval
 * allows — counted here in calls and characters, never timed.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { JsonCloser } from "../../lib/llm/json-closer.ts";
import { SNAPSHOT_INTERVAL_MS, StreamedArguments } from "../../lib/llm/partial-json.ts";
import type { StreamEvent } from "../../lib/llm/types.ts";
import { fakeClient } from "../helpers/fake-client.ts";
import { startFakeLlm, useWorkspace, WIRE_APIS } from "../cli/helpers.ts";

const ws = useWorkspace();

test("stream-json of a 100 KB streamed write stays proportional to its arguments", async () => {
  const content = "x".repeat(100_000);
  const fake = await startFakeLlm({
    script: [
      { toolCalls: [{ name: "write", arguments: { path: "big.txt", content } }], chunkSize: 20 },
      { text: "y".repeat(20_000), chunkSize: 20 },
    ],
  });
  const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "write it", "--output-format", "stream-json"]);
  expect(r.code).toBe(0);
  expect(readFileSync(join(ws.dir, "big.txt"), "utf8")).toBe(content);
  // Before, every update repeated all arguments so far: 251 MB for this input.
  expect(r.stdout.length).toBeLessThan(20 * 120_000);
  const events = r.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  const updates = events.filter((e) => e.kind === "tool_call_update");
  const pieces = updates.map((e) => e.data.delta ?? "").join("");
  expect(JSON.parse(pieces)).toEqual({ path: "big.txt", content });
  const snapshots = updates.filter((e) => e.data.arguments !== undefined);
  expect(snapshots.length).toBeLessThan(updates.length / 10);
  expect(updates.at(-1).data).toMatchObject({ complete: true, arguments: { path: "big.txt", content } });
  const textUpdates = events.filter((e) => e.kind === "message_update");
  expect(textUpdates.length).toBeGreaterThan(100);
  expect(textUpdates.every((e) => e.data.message === undefined && typeof e.data.delta === "string")).toBe(true);
}, 30_000);

/** 400 KB of arguments, as the issue measured them, and the size of a piece real APIs send. */
const BIG = JSON.stringify({ path: "big.txt", content: "x".repeat(400_000) });
const PIECE = 20;

/**
 * Counts, while `work` runs, the whole-text parses (JSON.parse of at least 10 KB: the small ones
 * are the SSE frames) and their characters, the characters pushed into a JsonCloser, and the bytes
 * copied by Uint8Array slices (how an SDK cuts the byte stream into events).
 */
async function countWork<T>(work: () => Promise<T> | T) {
  const parse = JSON.parse;
  const push = JsonCloser.prototype.push;
  const slice = Uint8Array.prototype.slice;
  const counts = { bigParses: 0, parsedChars: 0, scannedChars: 0, copiedBytes: 0 };
  JSON.parse = (text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    if (typeof text === "string" && text.length >= 10_000) {
      counts.bigParses++;
      counts.parsedChars += text.length;
    }
    return parse(text, reviver);
  };
  JsonCloser.prototype.push = function (piece: string) {
    counts.scannedChars += piece.length;
    return push.call(this, piece);
  };
  Uint8Array.prototype.slice = function (this: Uint8Array, start?: number, end?: number) {
    const copy = slice.call(this, start, end);
    counts.copiedBytes += copy.length;
    return copy;
  } as typeof slice;
  try {
    const result = await work();
    return { result, ...counts };
  } finally {
    JSON.parse = parse;
    JsonCloser.prototype.push = push;
    Uint8Array.prototype.slice = slice;
  }
}

test("400 KB of arguments in 20-character pieces: each character scanned once, whole parses only per snapshot interval", async () => {
  // A stream of 20,000 pieces over one (simulated) second: at most 1 s / interval snapshots.
  let clock = 0;
  const args = new StreamedArguments(() => clock);
  let snapshots = 0;
  const work = await countWork(() => {
    for (let i = 0; i < BIG.length; i += PIECE) {
      if (args.push(BIG.slice(i, i + PIECE)) !== undefined) snapshots++;
      clock += 1000 / (BIG.length / PIECE);
    }
    return args.final();
  });
  expect(work.result).toEqual({ arguments: JSON.parse(BIG) });
  expect(work.scannedChars).toBe(BIG.length);
  const allowed = 1 + Math.ceil(1000 / SNAPSHOT_INTERVAL_MS);
  expect(snapshots).toBeLessThanOrEqual(allowed);
  // Re-parsing on every piece was 20,000 parses and 4 GB of characters for this input.
  expect(work.bigParses).toBeLessThanOrEqual(allowed + 1); // the snapshots and the final strict parse
  expect(work.parsedChars).toBeLessThanOrEqual((allowed + 1) * BIG.length);
});

// `repeats`: events of the API that carry the whole arguments again, each parsed by the SDK
// (Responses: function_call_arguments.done, output_item.done and completed).
for (const api of [
  { name: "anthropic-messages", model: "anthropic/claude-haiku-4-5", repeats: 0 },
  { name: "openai-responses", model: "openai/gpt-5-mini", repeats: 3 },
  { name: "openai-chat", model: "deepseek/deepseek-chat", repeats: 0 },
]) {
  test(`through the ${api.name} adapter, a 400 KB streamed write costs one scan, a bounded number of parses and linear copying`, async () => {
    const fake = await startFakeLlm({
      script: [{ toolCalls: [{ id: "call_big", name: "write", arguments: JSON.parse(BIG) }], chunkSize: PIECE }],
    });
    const started = performance.now();
    const work = await countWork(async () => {
      const events: StreamEvent[] = [];
      for await (const e of fakeClient(fake).stream({
        model: api.model,
        messages: [{ role: "user", content: "write it", timestamp: 0 }],
      }))
        events.push(e);
      return events;
    });
    // Not a time limit: how long the stream took decides how many snapshots the interval allows.
    const streamedMs = performance.now() - started;
    const deltas = work.result.filter((e) => e.type === "tool_call_delta");
    expect(deltas.length).toBeGreaterThan(BIG.length / PIECE / 2); // it really came in small pieces
    const end = work.result.find((e) => e.type === "tool_call_end");
    expect(end?.type === "tool_call_end" && end.call.arguments).toEqual(JSON.parse(BIG));
    expect(work.scannedChars).toBe(BIG.length);
    // Snapshots (the first, then one per interval), the final strict parse, the SDK's parses of the
    // events that repeat the arguments, and one interval of headroom for the clock — whatever the
    // stream's speed. Re-parsing on every piece would be 20,000 parses.
    const allowed = 3 + api.repeats + Math.ceil(streamedMs / SNAPSHOT_INTERVAL_MS);
    expect(work.bigParses).toBeLessThanOrEqual(allowed);
    expect(work.parsedChars).toBeLessThanOrEqual(allowed * BIG.length);
    // Cutting the byte stream into events: the openai SDK copied the rest of each network chunk
    // after every event, 3 GB for this input when the chunks were 500 KB.
    expect(work.copiedBytes).toBeLessThanOrEqual(100 * BIG.length);
  }, 30_000);
}
