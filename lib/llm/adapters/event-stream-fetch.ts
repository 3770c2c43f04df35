/**
 * `fetch` for the SDKs: event-stream bodies reach them cut at event boundaries. Both SDKs split
 * a stream into events by copying: each network chunk is appended to what is left of the last
 * one (`new Uint8Array(old + chunk)`) and the text after each event found is copied again
 * (`data.slice`). That is quadratic twice over: a network chunk holding thousands of small events
 * costs its size times their number, and one large event — the Responses API's
 * `response.output_item.done` and `response.completed` repeat a call's whole arguments — arriving
 * in many chunks is copied once per chunk (a 5 MB argument stalled the stream for over a minute).
 *
 * Here the body is scanned once: complete events go on together in pieces of about
 * GROUP_BYTES, an event still arriving is held (as its chunks, joined once when it ends), so the
 * SDK always gets whole events, few at a time, and every byte is copied a bounded number of times.
 *
 * Two more things are noted on the way: whether the stream said `[DONE]` (a Chat stream with no
 * finish_reason finished only if it did), and a 200 whose JSON body is an error (some proxies answer
 * a stream request so) becomes the error status it names, so the SDK reports it as the error it is.
 */

/** Complete events handed to an SDK together, up to about this size. */
export const GROUP_BYTES = 1024;

const LF = 0x0a;
const CR = 0x0d;

/** What the body of an event stream showed by its end: whether the server said `[DONE]`. */
export interface StreamEnd {
  done: boolean;
}

/** The end of each event-stream response an SDK read through `eventStreamFetch`. */
export const streamEnds = new WeakMap<globalThis.Response, StreamEnd>();

const DONE_MARK = "[DONE]";

export async function eventStreamFetch(
  input: string | URL | Request,
  init?: RequestInit,
): Promise<globalThis.Response> {
  const response = await fetch(input, init);
  const type = response.headers.get("content-type") ?? "";
  if (
    response.ok &&
    response.body &&
    type.includes("application/json") &&
    typeof init?.body === "string" &&
    /"stream"\s*:\s*true/.test(init.body)
  ) {
    return errorBodyAsStatus(response);
  }
  if (!response.body || !type.includes("text/event-stream")) return response;
  const end: StreamEnd = { done: false };
  const wrapped = new globalThis.Response(wholeEvents(response.body, end), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  streamEnds.set(wrapped, end);
  return wrapped;
}

/** A 200 JSON answer to a stream request: an `{ error }` body becomes a response with the error's status (502 when it names none). */
async function errorBodyAsStatus(response: globalThis.Response): Promise<globalThis.Response> {
  const text = await response.text();
  let status = response.status;
  try {
    const error = (JSON.parse(text) as { error?: { code?: unknown; status?: unknown } }).error;
    if (error && typeof error === "object") {
      const code = Number(error.code ?? error.status);
      status = Number.isInteger(code) && code >= 400 && code <= 599 ? code : 502;
    }
  } catch {
    // Not JSON after all: the SDK reports the body as it is.
  }
  return new globalThis.Response(text, { status, statusText: response.statusText, headers: response.headers });
}

/** The same bytes, cut only after an event's blank line ("\n\n" or "\r\n\r\n"); `end` learns whether `[DONE]` came. */
export function wholeEvents(body: ReadableStream<Uint8Array>, end?: StreamEnd): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let tail = "";
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  // The last two bytes seen, for a blank line split across chunks.
  let last = -1;
  let beforeLast = -1;
  const takeHeld = (tail: Uint8Array): Uint8Array => {
    if (heldBytes === 0) return tail;
    const joined = new Uint8Array(heldBytes + tail.length);
    let at = 0;
    for (const piece of held) {
      joined.set(piece, at);
      at += piece.length;
    }
    joined.set(tail, at);
    held = [];
    heldBytes = 0;
    return joined;
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) {
          if (heldBytes > 0) controller.enqueue(takeHeld(new Uint8Array(0)));
          controller.close();
          return;
        }
        if (end) {
          tail = (tail + decoder.decode(value.subarray(Math.max(0, value.length - 64)), { stream: true })).slice(-64);
          if (tail.includes(DONE_MARK)) end.done = true;
        }
        let groupStart = 0;
        let emitted = false;
        for (let i = value.indexOf(LF); i >= 0; i = value.indexOf(LF, i + 1)) {
          const p1 = i > 0 ? value[i - 1] : last;
          const p2 = i > 1 ? value[i - 2] : i === 1 ? last : beforeLast;
          if (!(p1 === LF || (p1 === CR && p2 === LF))) continue;
          // An event ends at i + 1: pass on the group once it is big enough (the first one with what was held).
          if (i + 1 - groupStart < GROUP_BYTES && heldBytes === 0) continue;
          controller.enqueue(takeHeld(value.subarray(groupStart, i + 1)));
          groupStart = i + 1;
          emitted = true;
        }
        // Complete events left in a small group go on too; only an unfinished event is held.
        const lastEnd = lastEventEnd(value, groupStart, last, beforeLast);
        if (lastEnd > groupStart) {
          controller.enqueue(takeHeld(value.subarray(groupStart, lastEnd)));
          groupStart = lastEnd;
          emitted = true;
        }
        if (groupStart < value.length) {
          held.push(value.subarray(groupStart));
          heldBytes += value.length - groupStart;
        }
        beforeLast = value.length > 1 ? value[value.length - 2] : last;
        last = value.length > 0 ? value[value.length - 1] : last;
        if (emitted) return;
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/** Where the last complete event in `value[from..]` ends (just after its blank line), or `from`. */
function lastEventEnd(value: Uint8Array, from: number, last: number, beforeLast: number): number {
  for (let i = value.lastIndexOf(LF); i >= from; i = value.lastIndexOf(LF, i - 1)) {
    const p1 = i > 0 ? value[i - 1] : last;
    const p2 = i > 1 ? value[i - 2] : i === 1 ? last : beforeLast;
    if (p1 === LF || (p1 === CR && p2 === LF)) return i + 1;
    if (i === 0) break;
  }
  return from;
}
