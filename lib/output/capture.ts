/**
 * The complete output of one tool call, with bounded memory. A tool writes everything it
 * produces (bytes from a command, formatted lines from a file); the capture keeps all of it in
 * memory up to the event limit, and past it only the first and last halves, while every byte also
 * streams to the call's one spill file (capped; past the cap bytes are counted, not stored). So
 * a command printing a gigabyte costs the event limit in memory, and `tool_call_end` still carries
 * the whole output whenever it fits.
 */
import * as nodeBuffer from "node:buffer";
import type { SpillWriter } from "./spill-store.ts";
import { countNewlines } from "./cut.ts";
import { TailRing } from "./tail-ring.ts";

export const DEFAULT_EVENT_LIMIT_CHARS = 10_000_000;
/** Raw bytes kept before the spill file opens; past this the file takes them. */
const SPILL_AFTER_BYTES = 64 * 1024;

export interface CaptureOptions {
  /** Characters held in memory (and carried by tool_call_end). */
  eventLimitChars?: number;
  /** Opens this call's spill file; without it nothing goes to disk. */
  openSpill?: () => SpillWriter;
  /** How a spill path is shown (relative to the project). */
  displayPath?: (absolute: string) => string;
}

export interface SpillInfo {
  /** As shown to the model and in events; null when the file could not be written. */
  path: string | null;
  failure?: string;
  storedBytes: number;
  totalBytes: number;
  /** The cap stopped storing: the file holds only the first storedBytes. */
  capped: boolean;
}

/**
 * What a tool says about its answer beside the envelope, for the framework's cut: a typed side
 * result of the call, never part of what the model or a client reads.
 */
export interface CutHints {
  /** Characters at the start of the response text that are a header (status lines), not output: kept whole and out of the counts. */
  headerChars?: number;
  /** The call's own character budget (exec_command's max_output_tokens): kept from both ends, never past the tool's limit, with no line cut. */
  budgetChars?: number;
}

export interface CapturedOutput {
  complete: boolean;
  /** The text for the envelope and the event: complete, or head + `gapLine` + tail. */
  text: string;
  /** The line standing for the omitted middle inside `text`; null when complete. */
  gapLine: string | null;
  /** What the gap line stands for. */
  omitted: { chars: number; newlines: number } | null;
  /** Line breaks in the whole output. */
  newlines: number;
  /** The output is not empty and does not end with a line break. */
  endsOpen: boolean;
  totalChars: number;
  totalBytes: number;
  /** Bytes that were not valid UTF-8 decoded as U+FFFD. */
  invalidUtf8: boolean;
  /** Set once the output is spilled (always when incomplete). */
  spill: SpillInfo | null;
}

const encoder = new TextEncoder();

/** A chunk as held: raw bytes and the characters they decode to. */
interface Held {
  bytes: Uint8Array;
  chars: number;
}

export class OutputCapture {
  /** Fixed at construction; a capture that adopts another takes the other's (see adopt). */
  eventLimitChars: number;
  /** Decodes chunks that are not plain ASCII, only to count their characters and bad bytes. */
  private counter = new TextDecoder("utf-8");
  private counterDirty = false;
  /** Raw chunks while the whole output fits the event limit. */
  private held: Held[] = [];
  /** Afterwards the last bytes, in one buffer reused for the whole run (no garbage per chunk). */
  private tail: TailRing | null = null;
  /** The first half (raw), once the output outgrew the event limit. */
  private head: Uint8Array | null = null;
  private chars = 0;
  private bytes = 0;
  private newlines = 0;
  private backlog: Uint8Array[] = [];
  private writer: SpillWriter | null = null;
  private spillInfo: SpillInfo | null = null;
  private replacementsIn = 0;
  private replacementsOut = 0;
  private carry: number[] = [];
  private result: CapturedOutput | null = null;
  /** Its output moved to another capture (adopt): later writes are not this capture's to keep. */
  private moved = false;
  private cutHints: CutHints = {};

  constructor(private readonly options: CaptureOptions = {}) {
    this.eventLimitChars = Math.max(2, Math.floor(options.eventLimitChars ?? DEFAULT_EVENT_LIMIT_CHARS));
  }

  /** A new, empty capture with the same limits and spill folder: where a background command's output waits for the call that reads it. */
  sibling(): OutputCapture {
    return new OutputCapture(this.options);
  }

  /**
   * Takes over everything `other` holds — counts, the kept text, its open spill file — as if it
   * had been written here, and leaves `other` inert. Nothing is copied, so a background command's
   * output written between two calls reaches the reading call's capture whole at no cost. False
   * (and nothing moved) when this capture already has output or is finished.
   */
  adopt(other: OutputCapture): boolean {
    if (other === this || this.used || this.result || this.moved) return false;
    if (other.result || other.moved) return false;
    this.eventLimitChars = other.eventLimitChars;
    this.counter = other.counter;
    this.counterDirty = other.counterDirty;
    this.held = other.held;
    this.tail = other.tail;
    this.head = other.head;
    this.chars = other.chars;
    this.bytes = other.bytes;
    this.newlines = other.newlines;
    this.backlog = other.backlog;
    this.writer = other.writer;
    this.replacementsIn = other.replacementsIn;
    this.replacementsOut = other.replacementsOut;
    this.carry = other.carry;
    other.moved = true;
    other.chars = other.bytes = other.newlines = 0;
    other.held = [];
    other.tail = null;
    other.head = null;
    other.backlog = [];
    other.writer = null;
    return true;
  }

  /** Tells the framework how to cut this call's answer (its header, its own budget). */
  hint(hints: CutHints): void {
    this.cutHints = { ...this.cutHints, ...hints };
  }

  get hints(): Readonly<CutHints> {
    return this.cutHints;
  }

  /** True once anything was written. */
  get used(): boolean {
    return this.bytes > 0;
  }

  /**
   * Appends output: text as it is, bytes as UTF-8 (a character split across writes decodes whole).
   * Held raw — one byte per ASCII character — and decoded once, at the end.
   */
  write(chunk: string | Uint8Array): void {
    if (this.result || this.moved) return;
    if (typeof chunk === "string") {
      if (chunk === "") return;
      this.flushCounter();
      const raw = encoder.encode(chunk);
      this.store(raw);
      this.newlines += countNewlines(chunk);
      this.hold(raw, chunk.length);
      return;
    }
    if (chunk.length === 0) return;
    this.store(chunk);
    this.newlines += countByte(chunk, 10);
    this.hold(chunk, this.countChars(chunk));
  }

  /** Ends the output; later calls return the same result. */
  finish(): CapturedOutput {
    if (this.result) return this.result;
    this.flushCounter();
    const invalidUtf8 = this.replacementsOut > this.replacementsIn;
    if (this.head === null) {
      // Decoded when first read: a caller that only needs the spill file (the framework, for a
      // response it already holds as text) never pays for a second copy of the output.
      const held = this.held;
      this.held = [];
      let text: string | undefined;
      const last = held.at(-1)?.bytes;
      this.result = {
        complete: true,
        get text() {
          return (text ??= decodeAll(held));
        },
        gapLine: null,
        omitted: null,
        newlines: this.newlines,
        endsOpen: last !== undefined && last.length > 0 && last[last.length - 1] !== 0x0a,
        totalChars: this.chars,
        totalBytes: this.bytes,
        invalidUtf8,
        spill: null,
      };
      return this.result;
    }
    // The tail may begin inside a character the head split: its stray bytes are skipped.
    const tail = this.tail!.text(true);
    // Without a final flush: a character cut by the split stays out, counted as omitted.
    const head = new TextDecoder("utf-8").decode(this.head, { stream: true });
    this.tail = null;
    this.head = new Uint8Array(0);
    const omitted = {
      chars: this.chars - head.length - tail.length,
      newlines: this.newlines - countNewlines(head) - countNewlines(tail),
    };
    const spill = this.keepSpill();
    const where = spill.path
      ? `; the complete output is in ${spill.path}${spill.capped ? ` (its first ${spill.storedBytes} bytes)` : ""}`
      : "";
    const gapLine = `\n[... ${omitted.chars} characters (${omitted.newlines} line breaks) omitted here to keep the event under ${this.eventLimitChars} characters${where} ...]\n`;
    this.result = {
      complete: false,
      text: head + gapLine + tail,
      gapLine,
      omitted,
      newlines: this.newlines,
      endsOpen: !tail.endsWith("\n"),
      totalChars: this.chars,
      totalBytes: this.bytes,
      invalidUtf8,
      spill,
    };
    return this.result;
  }

  /** Closes the spill file under its final name (once); the info says where it is. */
  keepSpill(): SpillInfo {
    if (this.spillInfo) return this.spillInfo;
    if (!this.writer && this.options.openSpill && this.bytes > 0) this.openWriter();
    if (!this.writer) {
      this.spillInfo = {
        path: null,
        failure: "no spill directory",
        storedBytes: 0,
        totalBytes: this.bytes,
        capped: false,
      };
      return this.spillInfo;
    }
    const done = this.writer.finish();
    const stored = this.writer.storedBytes;
    this.spillInfo =
      "path" in done
        ? {
            path: this.options.displayPath?.(done.path) ?? done.path,
            storedBytes: stored,
            totalBytes: this.bytes,
            capped: stored < this.bytes,
          }
        : { path: null, failure: done.failure, storedBytes: 0, totalBytes: this.bytes, capped: false };
    return this.spillInfo;
  }

  /** The output was small enough to need no file: delete what was written. */
  dropSpill(): void {
    if (this.spillInfo) return;
    this.writer?.abandon("not needed");
    this.writer = null;
    this.backlog = [];
  }

  private store(raw: Uint8Array): void {
    this.bytes += raw.length;
    if (this.writer) {
      this.writer.write(raw);
      return;
    }
    if (!this.options.openSpill || this.spillInfo) return;
    this.backlog.push(raw);
    if (this.bytes > SPILL_AFTER_BYTES) this.openWriter();
  }

  private openWriter(): void {
    this.writer = this.options.openSpill!();
    for (const b of this.backlog) this.writer.write(b);
    this.backlog = [];
  }

  /** Characters in a byte chunk: its length when plain ASCII, otherwise what the decoder makes of it. */
  private countChars(chunk: Uint8Array): number {
    if (!this.counterDirty && isAscii(chunk)) return chunk.length;
    this.replacementsIn += this.countReplacementBytes(chunk);
    const text = this.counter.decode(chunk, { stream: true });
    this.replacementsOut += countChar(text, "\uFFFD");
    // An ASCII byte ends any character left open by the previous chunk.
    this.counterDirty = !isAscii(chunk);
    return text.length;
  }

  /** A character left open at a switch from bytes to text decodes as U+FFFD, as it would in the text. */
  private flushCounter(): void {
    if (!this.counterDirty) return;
    const rest = this.counter.decode();
    this.counterDirty = false;
    if (rest === "") return;
    this.replacementsOut += countChar(rest, "\uFFFD");
    this.chars += rest.length; // the bytes are held already; they decode to these characters
  }

  /** Keeps every chunk up to the event limit; past it the first half once (raw) and the last bytes. */
  private hold(raw: Uint8Array, chars: number): void {
    this.chars += chars;
    if (this.tail) {
      this.tail.push(raw);
      return;
    }
    this.held.push({ bytes: raw, chars });
    if (this.chars > this.eventLimitChars) this.splitHead(Math.floor(this.eventLimitChars / 2));
  }

  /**
   * The output just outgrew the event limit: its first bytes, up to half the limit in characters,
   * become the head (kept raw, decoded at the end); everything after goes to the tail ring. Raw
   * bytes live outside the JavaScript heap, which keeps the collector brisk while a gigabyte
   * streams past.
   */
  private splitHead(headChars: number): void {
    const parts: Uint8Array[] = [];
    let chars = 0;
    let i = 0;
    for (; i < this.held.length && chars < headChars; i++) {
      const { bytes, chars: c } = this.held[i];
      // A byte is at most one character: this many bytes never pass headChars characters.
      const take = chars + c <= headChars ? bytes.length : Math.min(bytes.length, headChars - chars);
      parts.push(bytes.subarray(0, take));
      chars += chars + c <= headChars ? c : take;
      if (take < bytes.length) {
        this.held[i] = { bytes: bytes.subarray(take), chars: 0 };
        break;
      }
    }
    this.head = concat(parts);
    // Reserved whole: output past the event limit is about to fill it.
    this.tail = new TailRing(Math.max(4, this.eventLimitChars - Math.floor(this.eventLimitChars / 2)), {
      reserve: true,
    });
    for (const h of this.held.slice(i)) this.tail.push(h.bytes);
    this.held = [];
  }

  /** EF BF BD sequences (a real U+FFFD) in the input, across chunk boundaries. */
  private countReplacementBytes(chunk: Uint8Array): number {
    let n = 0;
    const at = (i: number) => (i < 0 ? this.carry[this.carry.length + i] : chunk[i]);
    for (let i = chunk.indexOf(0xbd); i !== -1; i = chunk.indexOf(0xbd, i + 1))
      if (at(i - 1) === 0xbf && at(i - 2) === 0xef) n++;
    this.carry = [...this.carry, ...chunk.subarray(Math.max(0, chunk.length - 2))].slice(-2);
    return n;
  }
}

/** Decodes held chunks as one text. */
function decodeAll(held: Held[]): string {
  const decoder = new TextDecoder("utf-8");
  let out = "";
  for (const { bytes } of held) out += decoder.decode(bytes, { stream: true });
  return out + decoder.decode();
}

/** node:buffer's isAscii where the runtime has it; a byte scan otherwise. */
const isAscii: (bytes: Uint8Array) => boolean =
  typeof (nodeBuffer as { isAscii?: unknown }).isAscii === "function"
    ? (nodeBuffer as unknown as { isAscii: (b: Uint8Array) => boolean }).isAscii
    : (bytes) => {
        for (let i = 0; i < bytes.length; i++) if (bytes[i] > 0x7f) return false;
        return true;
      };

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function countByte(bytes: Uint8Array, byte: number): number {
  let n = 0;
  for (let i = bytes.indexOf(byte); i !== -1; i = bytes.indexOf(byte, i + 1)) n++;
  return n;
}

function countChar(text: string, char: string): number {
  let n = 0;
  for (let i = text.indexOf(char); i !== -1; i = text.indexOf(char, i + 1)) n++;
  return n;
}
