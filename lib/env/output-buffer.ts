/**
 * Command output with bounded memory (003 §3.3, §B "rolling buffer").
 *
 * Every chunk is decoded with a streaming TextDecoder per stream (a character split across two
 * chunks decodes whole), kept in rolling tail windows (stdout, stderr, and both interleaved), and —
 * once the total passes the spill threshold — appended raw to a spill file that is backfilled
 * with everything seen before, so the file always holds the complete output.
 */
import { Buffer } from "node:buffer";
import { randomBytes } from "node:crypto";
import { closeSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

export type StreamName = "stdout" | "stderr";

/** Text whose oldest part is dropped so at most `maxBytes` UTF-8 bytes remain. */
export class RollingWindow {
  private chunks: string[] = [];
  private sizes: number[] = [];
  private bytes = 0;
  /** Bytes dropped from the head so far. */
  dropped = 0;

  constructor(private readonly maxBytes: number) {}

  push(text: string): void {
    if (text === "") return;
    const size = Buffer.byteLength(text, "utf8");
    this.chunks.push(text);
    this.sizes.push(size);
    this.bytes += size;
    // Drop whole chunks while the rest still fills the window; text() trims the remainder.
    while (this.chunks.length > 1 && this.bytes - this.sizes[0] >= this.maxBytes) {
      this.bytes -= this.sizes[0];
      this.dropped += this.sizes[0];
      this.chunks.shift();
      this.sizes.shift();
    }
  }

  /** The kept tail, at most maxBytes, starting on a character boundary. */
  text(): string {
    const all = this.chunks.join("");
    if (this.bytes <= this.maxBytes) return all;
    this.dropped += this.bytes - this.maxBytes;
    const tail = tailBytes(all, this.maxBytes);
    this.chunks = [tail];
    this.sizes = [Buffer.byteLength(tail, "utf8")];
    this.bytes = this.sizes[0];
    return tail;
  }
}

/** The last `maxBytes` bytes of `text` as a string, not starting inside a character. */
export function tailBytes(text: string, maxBytes: number): string {
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
    this.totalBytes += chunk.length;
    this.spill(chunk);
    this.take(this.decoders[stream].decode(chunk, { stream: true }), stream);
  }

  /** Flush the decoders and close the spill file; the collector is done after this. */
  finish(): CollectedOutput {
    for (const stream of ["stdout", "stderr"] as const) this.take(this.decoders[stream].decode(), stream);
    if (this.spillFd !== undefined) closeSync(this.spillFd);
    this.spillFd = undefined;
    this.beforeSpill = [];
    const output = this.windows.output.text();
    const result: CollectedOutput = {
      stdout: this.windows.stdout.text(),
      stderr: this.windows.stderr.text(),
      output,
      totalBytes: this.totalBytes,
      outputTruncated: this.windows.output.dropped > 0,
    };
    if (this.spillPath) result.spillPath = this.spillPath;
    return result;
  }

  private take(text: string, stream: StreamName): void {
    if (text === "") return;
    this.windows[stream].push(text);
    this.windows.output.push(text);
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
