/**
 * Command output with bounded memory (003 §3.3, §B "rolling buffer").
 *
 * Chunks are kept raw in rolling tail windows (stdout, stderr, and both interleaved) and decoded
 * only when the result is read, so a command printing a gigabyte costs no string per chunk; a
 * listener, when there is one, gets each chunk decoded by a streaming TextDecoder per stream (a
 * character split across two chunks decodes whole), and a raw listener gets the bytes as they
 * come. Keeping the complete output is the caller's business (the bash tool streams it to the
 * call's capture and its one spill file); the environment keeps only the windows.
 */
import { Buffer } from "node:buffer";

export type StreamName = "stdout" | "stderr";

/** Raw output whose oldest chunks are dropped so that about `maxBytes` remain; decoded on demand. */
export class RollingWindow {
  private chunks: Array<{ bytes: Uint8Array; stream: StreamName }> = [];
  private size = 0;
  /** Whether whole chunks were dropped from the head. */
  private dropped = false;

  constructor(private readonly maxBytes: number) {}

  push(bytes: Uint8Array, stream: StreamName = "stdout"): void {
    if (bytes.length === 0) return;
    this.chunks.push({ bytes, stream });
    this.size += bytes.length;
    // Drop whole chunks while the rest still fills the window; text() trims the remainder.
    while (this.chunks.length > 1 && this.size - this.chunks[0].bytes.length >= this.maxBytes) {
      this.size -= this.chunks.shift()!.bytes.length;
      this.dropped = true;
    }
  }

  /** True once anything (bytes or characters) is left out of text(). */
  get truncated(): boolean {
    return this.dropped || this.size > this.maxBytes;
  }

  /**
   * The kept tail, at most maxBytes of UTF-8, starting on a character boundary. Each stream is
   * decoded by its own decoder, so a character split across chunks of one stream decodes whole
   * even with the other stream's output in between; it appears where its last byte arrived.
   * An incomplete character at the very end becomes U+FFFD.
   */
  text(): string {
    const decoders = new Map<StreamName, TextDecoder>();
    let all = "";
    for (const { bytes, stream } of this.chunks) {
      let decoder = decoders.get(stream);
      let from = 0;
      if (!decoder) {
        decoder = new TextDecoder("utf-8");
        decoders.set(stream, decoder);
        // The stream's first kept chunk may begin inside a character whose start was dropped.
        if (this.dropped) while (from < bytes.length && from < 3 && (bytes[from] & 0xc0) === 0x80) from++;
      }
      all += decoder.decode(from === 0 ? bytes : bytes.subarray(from), { stream: true });
    }
    for (const decoder of decoders.values()) all += decoder.decode();
    return tailBytes(all, this.maxBytes);
  }
}

/** The last `maxBytes` bytes of `text` as a string, not starting inside a character. */
export function tailBytes(text: string, maxBytes: number): string {
  // A UTF-16 unit is at most 3 UTF-8 bytes: short text needs no encoding to know it fits.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  let start = bytes.length - maxBytes;
  while (start < bytes.length && (bytes[start] & 0xc0) === 0x80) start++;
  return bytes.subarray(start).toString("utf8");
}

export interface OutputCollectorOptions {
  windowBytes: number;
  onData?: (text: string, stream: StreamName) => void;
  /** Every chunk as raw bytes, in arrival order (both streams). */
  onOutput?: (chunk: Uint8Array, stream: StreamName) => void;
}

export interface CollectedOutput {
  stdout: string;
  stderr: string;
  output: string;
  totalBytes: number;
  outputTruncated: boolean;
}

export class OutputCollector {
  private readonly decoders = { stdout: new TextDecoder("utf-8"), stderr: new TextDecoder("utf-8") };
  private readonly windows: Record<StreamName | "output", RollingWindow>;
  private totalBytes = 0;

  constructor(private readonly options: OutputCollectorOptions) {
    const w = options.windowBytes;
    this.windows = { stdout: new RollingWindow(w), stderr: new RollingWindow(w), output: new RollingWindow(w) };
  }

  write(chunk: Uint8Array, stream: StreamName): void {
    if (chunk.length === 0) return;
    this.totalBytes += chunk.length;
    if (this.options.onOutput) this.guard(() => this.options.onOutput!(chunk, stream));
    this.windows[stream].push(chunk, stream);
    this.windows.output.push(chunk, stream);
    // Decoding costs a string per chunk: only done when someone listens.
    if (this.options.onData) this.tell(this.decoders[stream].decode(chunk, { stream: true }), stream);
  }

  /**
   * Flush the decoders; the collector is done after this. The texts are decoded when first read:
   * a caller that took every byte through onOutput never pays for them.
   */
  finish(): CollectedOutput {
    if (this.options.onData) for (const stream of ["stdout", "stderr"] as const) this.tell(this.decoders[stream].decode(), stream);
    const result = { totalBytes: this.totalBytes, outputTruncated: this.windows.output.truncated } as CollectedOutput;
    for (const name of ["stdout", "stderr", "output"] as const) {
      let text: string | undefined;
      Object.defineProperty(result, name, {
        enumerable: true,
        configurable: true,
        get: () => (text ??= this.windows[name].text()),
        set: (value: string) => {
          text = value;
        },
      });
    }
    return result;
  }

  private tell(text: string, stream: StreamName): void {
    if (text !== "") this.guard(() => this.options.onData?.(text, stream));
  }

  private guard(listener: () => void): void {
    try {
      listener();
    } catch {
      // A failing listener must not break the capture of the command's output.
    }
  }
}
