/**
 * The last `capacity` bytes of a stream: the one "keep the end" buffer, used by a call's capture
 * past the event limit, the environment's output windows, a shell's live updates and the
 * background-process table. One buffer, allocated at the first bytes (or reserved whole), grows
 * (doubling) up to the capacity and then wraps, so a short output costs little and a gigabyte passing through leaves no garbage behind: chunks are
 * copied in and die young. Bytes are decoded only when read.
 */
/** The smallest buffer the ring grows to at its first bytes. */
const MIN_BYTES = 256;

export class TailRing {
  readonly capacity: number;
  private buffer: Uint8Array;
  /** Where the next byte goes. */
  private end = 0;
  /** Bytes held (at most the buffer's length). */
  private filled = 0;
  private pushed = 0;

  /** `reserve`: allocate the whole capacity now, for a ring that is sure to fill (no garbage from growing). */
  constructor(capacity: number, options: { reserve?: boolean } = {}) {
    this.capacity = Math.max(1, Math.floor(capacity));
    this.buffer = new Uint8Array(options.reserve ? this.capacity : 0);
  }

  push(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.pushed += bytes.length;
    const src = bytes.length > this.capacity ? bytes.subarray(bytes.length - this.capacity) : bytes;
    this.reserve(this.filled + src.length);
    const size = this.buffer.length;
    const first = Math.min(src.length, size - this.end);
    this.buffer.set(src.subarray(0, first), this.end);
    this.buffer.set(src.subarray(first), 0);
    this.end = (this.end + src.length) % size;
    this.filled = Math.min(size, this.filled + src.length);
  }

  /** Bytes pushed in all. */
  get totalBytes(): number {
    return this.pushed;
  }

  /** Bytes pushed out of the front: what the ring no longer holds. */
  get droppedBytes(): number {
    return this.pushed - this.filled;
  }

  /** The held bytes, oldest first (a copy). */
  bytes(): Uint8Array {
    const [a, b] = this.parts();
    const out = new Uint8Array(a.length + b.length);
    out.set(a);
    out.set(b, a.length);
    return out;
  }

  /**
   * The held bytes decoded. `fromCharStart` (default: once anything was dropped) skips the stray
   * bytes of a character whose start is not held; an incomplete character at the end becomes U+FFFD.
   */
  text(fromCharStart = this.droppedBytes > 0): string {
    const decoder = new TextDecoder("utf-8");
    let out = "";
    let skip = fromCharStart;
    for (const part of this.parts()) {
      let from = 0;
      if (skip) while (from < part.length && from < 3 && (part[from] & 0xc0) === 0x80) from++;
      if (part.length > 0) skip = skip && from === part.length;
      out += decoder.decode(from === 0 ? part : part.subarray(from), { stream: true });
    }
    return out + decoder.decode();
  }

  /** Empties the ring (its buffer is kept for the next bytes); the counts start again. */
  clear(): void {
    this.end = this.filled = this.pushed = 0;
  }

  /** The held bytes in order: one part, or two when they wrap around the buffer's end. */
  private parts(): [Uint8Array, Uint8Array] {
    if (this.filled === 0) return [this.buffer.subarray(0, 0), this.buffer.subarray(0, 0)];
    const size = this.buffer.length;
    const start = (this.end - this.filled + size) % size;
    if (start < this.end) return [this.buffer.subarray(start, this.end), this.buffer.subarray(0, 0)];
    return [this.buffer.subarray(start), this.buffer.subarray(0, this.end)];
  }

  /** Grows the buffer (up to the capacity) so `bytes` fit without wrapping; it wraps only at full size. */
  private reserve(bytes: number): void {
    const size = this.buffer.length;
    if (bytes <= size || size >= this.capacity) return;
    const grown = new Uint8Array(Math.min(this.capacity, Math.max(2 * size, bytes, MIN_BYTES)));
    const held = this.bytes();
    grown.set(held);
    this.buffer = grown;
    this.end = held.length % grown.length;
    this.filled = held.length;
  }
}
