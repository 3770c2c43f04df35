/**
 * Issue 22 item 12, issue 37: large streamed arguments are received in linear time. An event stream
 * is read in one pass (lib/llm/adapters/server-sent-events.ts): whatever the network's chunks and
 * line ends, the events are the same, and a line arriving in many chunks is joined once, not
 * re-copied per chunk — counted, not timed.
 */
import { expect, test } from "bun:test";
import { type ServerSentEvent, serverSentEvents } from "../../lib/llm/adapters/server-sent-events.ts";

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({ pull: (c) => (i < chunks.length ? c.enqueue(chunks[i++]) : c.close()) });
}

async function eventsOf(bytes: Uint8Array, size: number): Promise<ServerSentEvent[]> {
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  const out: ServerSentEvent[] = [];
  for await (const batch of serverSentEvents(streamOf(chunks))) out.push(...batch);
  return out;
}

/** Characters made by String.prototype.slice and Array.prototype.join while `work` runs. */
async function copiedChars(work: () => Promise<unknown>): Promise<number> {
  const slice = String.prototype.slice;
  const join = Array.prototype.join;
  let copied = 0;
  String.prototype.slice = function (this: string, start?: number, end?: number) {
    const part = slice.call(this, start, end);
    copied += part.length;
    return part;
  };
  Array.prototype.join = function (this: unknown[], separator?: string) {
    const joined = join.call(this, separator);
    copied += joined.length;
    return joined;
  };
  try {
    await work();
  } finally {
    String.prototype.slice = slice;
    Array.prototype.join = join;
  }
  return copied;
}

const BIG = "x".repeat(300_000);

for (const newline of ["\n", "\r\n", "\r"]) {
  test(`issue 37: the same events whatever the chunks (${JSON.stringify(newline)} line ends, even split between chunks)`, async () => {
    const small = Array.from(
      { length: 500 },
      (_, i) => `event: delta${newline}data: {"delta":"${i}"}${newline}${newline}`,
    );
    const text = [
      ...small,
      `: a comment${newline}event: response.output_item.done${newline}data: {"arguments":"${BIG}"}${newline}${newline}`,
      `data: first line${newline}data:second line${newline}${newline}`,
      ...small,
    ].join("");
    const expected: ServerSentEvent[] = [
      ...small.map((_, i) => ({ event: "delta", data: `{"delta":"${i}"}` })),
      { event: "response.output_item.done", data: `{"arguments":"${BIG}"}` },
      { event: null, data: "first line\nsecond line" },
      ...small.map((_, i) => ({ event: "delta", data: `{"delta":"${i}"}` })),
    ];
    const bytes = new TextEncoder().encode(text);
    for (const size of [1, 3, 7, 1000, 65_536, bytes.length]) expect(await eventsOf(bytes, size)).toEqual(expected);
  });
}

test("issue 37: a 300,000-character line in 1-byte chunks is copied a bounded number of times", async () => {
  const bytes = new TextEncoder().encode(`data: ${BIG}\n\n`);
  let events: ServerSentEvent[] = [];
  const copied = await copiedChars(async () => {
    events = await eventsOf(bytes, 1);
  });
  expect(events).toEqual([{ event: null, data: BIG }]);
  // Appending each chunk to what was held and searching it again would copy 45 billion characters.
  expect(copied).toBeLessThan(10 * bytes.length);
});

test("issue 22 item 12: a stream that ends inside an event: its complete events count, the unfinished one does not", async () => {
  expect(await eventsOf(new TextEncoder().encode("data: 1\n\ndata: 2"), 4)).toEqual([{ event: null, data: "1" }]);
});

test("issue 22 item 12: a 1 MB argument through the openai-responses adapter costs linear copying (counted, not timed)", async () => {
  const { startFakeLlm } = await import("../cli/helpers.ts");
  const { fakeClient } = await import("../helpers/fake-client.ts");
  const content = "const value = compute(input, options);\n".repeat(27_000).slice(0, 1_000_000);
  const fake = await startFakeLlm({
    script: [{ toolCalls: [{ id: "call_big", name: "write", arguments: { path: "big.ts", content } }], chunkSize: 64 }],
  });
  // Bytes the SDK copies while cutting the stream into events: appending a chunk to what is left
  // (`set`) and cutting an event off (`slice`).
  const set = Uint8Array.prototype.set;
  const slice = Uint8Array.prototype.slice;
  let copied = 0;
  Uint8Array.prototype.set = function (this: Uint8Array, array: ArrayLike<number>, offset?: number) {
    copied += array.length;
    return set.call(this, array, offset);
  } as typeof set;
  Uint8Array.prototype.slice = function (this: Uint8Array, start?: number, end?: number) {
    const copy = slice.call(this, start, end);
    copied += copy.length;
    return copy;
  } as typeof slice;
  let got = "";
  try {
    for await (const e of fakeClient(fake).stream({
      model: "openai/gpt-5-mini",
      messages: [{ role: "user", content: "write it", timestamp: 0 }],
    })) {
      if (e.type === "tool_call_end") got = String(e.call.arguments.content);
    }
  } finally {
    Uint8Array.prototype.set = set;
    Uint8Array.prototype.slice = slice;
  }
  expect(got).toBe(content);
  // The stream carries the argument about seven times (each piece framed, plus the final events);
  // before, the final events alone were copied once per 1 KB chunk: about 2,000 × their size.
  expect(copied).toBeLessThan(60 * content.length);
}, 60_000);
