/**
 * Issue 22 item 12: large streamed arguments are received in linear time. The SDKs get an event
 * stream cut at event boundaries only: whatever the network's chunks, the bytes arrive unchanged,
 * every piece ends at an event's blank line, and an event still arriving is held, not re-copied.
 */
import { expect, test } from "bun:test";
import { GROUP_BYTES, wholeEvents } from "../../lib/llm/adapters/event-stream-fetch.ts";

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({ pull: (c) => (i < chunks.length ? c.enqueue(chunks[i++]) : c.close()) });
}

async function collect(body: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  const reader = body.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) out.push(r.value);
  return out;
}

const text = (pieces: Uint8Array[]) => new TextDecoder().decode(Buffer.concat(pieces));

for (const newline of ["\n", "\r\n"]) {
  test(`issue 22 item 12: pieces end at event boundaries (${JSON.stringify(newline)}), whatever the chunks, bytes unchanged`, async () => {
    const big = `event: response.output_item.done${newline}data: {"arguments":"${"x".repeat(300_000)}"}${newline}${newline}`;
    const small = Array.from(
      { length: 2000 },
      (_, i) => `event: delta${newline}data: {"delta":"${i}"}${newline}${newline}`,
    ).join("");
    const all = new TextEncoder().encode(small + big + small);
    // Chunks of odd sizes: boundaries fall inside "\n\n" and "\r\n\r\n" too.
    for (const size of [1, 3, 7, 1000, 65_536, all.length]) {
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < all.length; i += size) chunks.push(all.subarray(i, i + size));
      const pieces = await collect(wholeEvents(streamOf(chunks)));
      expect(text(pieces)).toBe(text([all]));
      const blank = `${newline}${newline}`;
      for (const piece of pieces) expect(new TextDecoder().decode(piece).endsWith(blank)).toBe(true);
      // The big event comes as one piece (held, then joined once), small ones in groups of about GROUP_BYTES.
      expect(pieces.some((p) => p.length >= 300_000)).toBe(true);
      expect(pieces.filter((p) => p.length < 300_000).every((p) => p.length <= 2 * GROUP_BYTES)).toBe(true);
    }
  });
}

test("issue 22 item 12: a stream that ends inside an event passes its last bytes on", async () => {
  const pieces = await collect(wholeEvents(streamOf([new TextEncoder().encode("data: 1\n\ndata: 2")])));
  expect(text(pieces)).toBe("data: 1\n\ndata: 2");
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
