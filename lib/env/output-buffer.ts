/**
 * Command output with bounded memory (003 §3.3, §B "rolling buffer").
 *
 * Chunks are kept raw in rolling tail windows (stdout, stderr, and both interleaved) and decoded
 * only when the result is read, so a command printing a gigabyte costs no string per chunk; a
 * listener, when there is one, gets each chunk decoded by a streaming TextDecoder per stream (a
 * character split across two chunks decodes whole). Once the total passes the spill threshold the
 * raw bytes also go to a spill file, backfilled with everything seen before, so the file always
 * holds the complete output.
 */
import { Buffer } from "node:buffer";
import { randomBytes } from "node:crypto";
import { closeSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

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
  spillThresholdBytes: number;
  /** Directory for the spill file. */
  tempDir: string;
  onData?: (text: string, stream: StreamName) => void;
}

export interface CollectedOutput {
  stdout: string;
  stderr: string;
  output: string;
  totalBytes: number;
  outputTruncated: boolean;
  spillPath?: string;
}

export class OutputCollector {
  private readonly decoders = { stdout: new TextDecoder("utf-8"), stderr: new TextDecoder("utf-8") };
  private readonly windows: Record<StreamName | "output", RollingWindow>;
  /** Raw chunks kept until the spill file opens (bounded by the threshold plus one chunk). */
  private beforeSpill: Uint8Array[] = [];
  private spillFd: number | undefined;
  private spillPath: string | undefined;
  private totalBytes = 0;

  constructor(private readonly options: OutputCollectorOptions) {
    const w = options.windowBytes;
    this.windows = { stdout: new RollingWindow(w), stderr: new RollingWindow(w), output: new RollingWindow(w) };
  }

  write(chunk: Uint8Array, stream: StreamName): void {
    if (chunk.length === 0) return;
    this.totalBytes += chunk.length;
    this.spill(chunk);
    this.windows[stream].push(chunk, stream);
    this.windows.output.push(chunk, stream);
    // Decoding costs a string per chunk: only done when someone listens.
    if (this.options.onData) this.tell(this.decoders[stream].decode(chunk, { stream: true }), stream);
  }

  /** Flush the decoders and close the spill file; the collector is done after this. */
  finish(): CollectedOutput {
    if (this.options.onData) for (const stream of ["stdout", "stderr"] as const) this.tell(this.decoders[stream].decode(), stream);
    if (this.spillFd !== undefined) closeSync(this.spillFd);
    this.spillFd = undefined;
    this.beforeSpill = [];
    const result: CollectedOutput = {
      stdout: this.windows.stdout.text(),
      stderr: this.windows.stderr.text(),
      output: this.windows.output.text(),
      totalBytes: this.totalBytes,
      outputTruncated: this.windows.output.truncated,
    };
    if (this.spillPath) result.spillPath = this.spillPath;
    return result;
  }

  private tell(text: string, stream: StreamName): void {
    if (text === "") return;
    try {
      this.options.onData?.(text, stream);
    } catch {
      // A failing listener must not break the capture of the command's output.
    }
  }

  private spill(chunk: Uint8Array): void {
    if (this.spillFd === undefined && this.spillPath === undefined) {
      this.beforeSpill.push(chunk);
      if (this.totalBytes <= this.options.spillThresholdBytes) return;
      this.openSpill();
      return;
    }
    if (this.spillFd !== undefined) this.append(chunk);
  }

  private openSpill(): void {
    const path = join(this.options.tempDir, `gong-bash-${randomBytes(8).toString("hex")}.log`);
    const backlog = this.beforeSpill;
    this.beforeSpill = [];
    try {
      this.spillFd = openSync(path, "wx", 0o600);
      this.spillPath = path;
    } catch {
      // No spill file (temp dir unwritable): the window still holds the tail.
      this.spillPath = "";
      return;
    }
    for (const c of backlog) this.append(c);
  }

  /** Synchronous on purpose: the writer's pace is the reader's, so memory stays bounded. */
  private append(chunk: Uint8Array): void {
    if (this.spillFd === undefined) return;
    try {
      for (let off = 0; off < chunk.length; ) off += writeSync(this.spillFd, chunk, off);
    } catch {
      // A partial file would claim to be complete: drop it.
      closeSync(this.spillFd);
      rmSync(this.spillPath!, { force: true });
      this.spillFd = undefined;
      this.spillPath = "";
    }
  }
}
