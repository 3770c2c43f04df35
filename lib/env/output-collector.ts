/**
 * Command output with bounded memory (docs/conformance.md: 003 §3.3, §B "rolling buffer").
 *
 * Chunks are kept raw in tail rings (stdout, stderr, and both interleaved; lib/output/tail-ring.ts)
 * and decoded only when the result is read, so a command printing a gigabyte costs no string per
 * chunk; a listener, when there is one, gets each chunk decoded by a streaming TextDecoder per
 * stream (a character split across two chunks decodes whole), and a raw listener gets the bytes
 * as they come. Keeping the complete output is the caller's business (the bash tool streams it to
 * the call's capture and its one spill file); the environment keeps only the ends.
 */
import { TailRing } from "../output/tail-ring.ts";

export type StreamName = "stdout" | "stderr";

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
  private readonly windows: Record<StreamName | "output", TailRing>;
  /**
   * Each stream's unfinished character, held back from the interleaved ring until the stream's
   * next chunk completes it: a character split across chunks of one stream decodes whole even
   * with the other stream's output in between, and appears where its last byte arrived.
   */
  private readonly unfinished: Record<StreamName, Uint8Array | null> = { stdout: null, stderr: null };

  constructor(private readonly options: OutputCollectorOptions) {
    const w = options.windowBytes;
    this.windows = { stdout: new TailRing(w), stderr: new TailRing(w), output: new TailRing(w) };
  }

  write(chunk: Uint8Array, stream: StreamName): void {
    if (chunk.length === 0) return;
    if (this.options.onOutput) this.guard(() => this.options.onOutput!(chunk, stream));
    this.windows[stream].push(chunk);
    const held = this.unfinished[stream];
    const bytes = held ? concat(held, chunk) : chunk;
    const open = unfinishedCharBytes(bytes);
    this.unfinished[stream] = open > 0 ? bytes.slice(bytes.length - open) : null;
    this.windows.output.push(open > 0 ? bytes.subarray(0, bytes.length - open) : bytes);
    // Decoding costs a string per chunk: only done when someone listens.
    if (this.options.onData) this.tell(this.decoders[stream].decode(chunk, { stream: true }), stream);
  }

  /**
   * Flush the decoders; the collector is done after this. The texts are decoded when first read:
   * a caller that took every byte through onOutput never pays for them.
   */
  finish(): CollectedOutput {
    if (this.options.onData)
      for (const stream of ["stdout", "stderr"] as const) this.tell(this.decoders[stream].decode(), stream);
    // A character still unfinished at the end decodes as U+FFFD, as it does on its own stream.
    for (const stream of ["stdout", "stderr"] as const) {
      const held = this.unfinished[stream];
      if (held) this.windows.output.push(held);
      this.unfinished[stream] = null;
    }
    const output = this.windows.output;
    const totalBytes = this.windows.stdout.totalBytes + this.windows.stderr.totalBytes;
    const result = { totalBytes, outputTruncated: output.droppedBytes > 0 } as CollectedOutput;
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

/** Bytes at the end of `bytes` that begin a UTF-8 character not yet complete; 0 when it ends whole. */
function unfinishedCharBytes(bytes: Uint8Array): number {
  for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 3); i--) {
    const b = bytes[i];
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back for its lead
    if (b < 0xc0) return 0;
    const length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
    return bytes.length - i < length ? bytes.length - i : 0;
  }
  return 0;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
