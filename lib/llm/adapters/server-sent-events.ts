/**
 * An event stream's events (the WHATWG server-sent events format), read in one pass. The SDKs
 * make the requests (auth, headers, status errors); their own stream readers then cost more than
 * everything else a streamed answer does: they find line ends with a JavaScript loop over every
 * byte, copy each event's bytes several times and decode every line apart (a 20 MB streamed
 * argument spent seconds there). Here each network chunk is decoded once, lines are found with
 * native string searches, a line still arriving is kept as its pieces and joined once, and every
 * chunk's events come out together.
 */

export interface ServerSentEvent {
  /** The `event:` field, or null when the event had none. */
  event: string | null;
  /** Its `data:` lines joined with "\n". */
  data: string;
}

const LF = 10;
const CR = 13;
const SPACE = 32;

/** Turns text into events, line by line, whatever the chunk boundaries (CRLF, LF or CR line ends). */
export class EventStreamDecoder {
  /** Pieces of the line still arriving. */
  private held: string[] = [];
  /** The last chunk ended with CR: an LF starting the next one belongs to that line end. */
  private afterCr = false;
  private event: string | null = null;
  private data: string[] = [];

  /** Adds decoded text; the events it completed are pushed onto `out`. */
  push(text: string, out: ServerSentEvent[]): void {
    let start = 0;
    if (this.afterCr) {
      this.afterCr = false;
      if (text.charCodeAt(0) === LF) start = 1;
    }
    // Most streams end lines with LF only: look for CR once per chunk, and again only after passing one.
    let nextCr = text.indexOf("\r", start);
    while (start < text.length) {
      const nextLf = text.indexOf("\n", start);
      if (nextCr !== -1 && nextCr < start) nextCr = text.indexOf("\r", start);
      const end = nextCr !== -1 && (nextLf === -1 || nextCr < nextLf) ? nextCr : nextLf;
      if (end === -1) {
        this.held.push(text.slice(start));
        return;
      }
      const piece = text.slice(start, end);
      let line = piece;
      if (this.held.length > 0) {
        this.held.push(piece);
        line = this.held.join("");
        this.held = [];
      }
      this.line(line, out);
      start = end + 1;
      if (text.charCodeAt(end) === CR) {
        if (end + 1 === text.length) this.afterCr = true;
        else if (text.charCodeAt(end + 1) === LF) start++;
      }
    }
  }

  /** The stream ended: a last line without its line end counts; an event without its blank line does not. */
  end(out: ServerSentEvent[]): void {
    if (this.held.length > 0) this.line(this.held.join(""), out);
    this.held = [];
  }

  private line(line: string, out: ServerSentEvent[]): void {
    if (line === "") {
      if (this.event !== null || this.data.length > 0)
        out.push({ event: this.event, data: this.data.length === 1 ? this.data[0] : this.data.join("\n") });
      this.event = null;
      this.data = [];
      return;
    }
    const colon = line.indexOf(":");
    if (colon === 0) return; // a comment
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(line.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.event = value;
  }
}

/** The events of a response body, a network chunk's worth at a time. */
export async function* serverSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent[]> {
  const decoder = new TextDecoder();
  const events = new EventStreamDecoder();
  let out: ServerSentEvent[] = [];
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    events.push(decoder.decode(chunk, { stream: true }), out);
    if (out.length === 0) continue;
    yield out;
    out = [];
  }
  events.push(decoder.decode(), out);
  events.end(out);
  if (out.length > 0) yield out;
}

/**
 * Each chunk's events made into values by `read` (undefined skips an event). When `read` throws
 * (a broken event, an error the server sent), the values before it are delivered first, then the
 * error: what came before a failure is never lost.
 */
export async function* readEvents<T>(
  body: ReadableStream<Uint8Array>,
  read: (event: ServerSentEvent) => T | undefined,
): AsyncGenerator<T[]> {
  for await (const events of serverSentEvents(body)) {
    const values: T[] = [];
    try {
      for (const event of events) {
        const value = read(event);
        if (value !== undefined) values.push(value);
      }
    } catch (err) {
      if (values.length > 0) yield values;
      throw err;
    }
    if (values.length > 0) yield values;
  }
}
