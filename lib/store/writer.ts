/**
 * Appends lines to a session file, each one handed to the OS (writeSync on an fd opened with "a+")
 * before `append` returns: a process killed at any moment loses at most the line being written.
 * `fsync: true` also flushes the OS cache to the disk (survives power loss; costs ~ms per entry).
 *
 * Two writers on one file (a second store, another process) do not corrupt it: the fd is opened for
 * appending, so every line lands at the end, and a line's offset is taken from the file's size after
 * the write rather than from a count kept here, which another writer would have made stale.
 */
import { Buffer } from "node:buffer";
import { closeSync, fstatSync, fsyncSync, mkdirSync, openSync, readSync, renameSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { sweepTempFiles, tempPathFor } from "../temp-files.ts";

export interface WriterOptions {
  /** fsync after every entry (default false). */
  fsync?: boolean;
}

export interface Span {
  /** Byte offset of the line's first byte. */
  offset: number;
  /** Byte length without the newline. */
  length: number;
}

export class SessionWriter {
  readonly path: string;
  private readonly fsync: boolean;
  private fd: number | undefined;

  constructor(path: string, options: WriterOptions = {}) {
    this.path = path;
    this.fsync = options.fsync ?? false;
  }

  /** Appends one line (a newline is added) and returns where it landed. */
  append(line: string): Span {
    const fd = this.open();
    const bytes = Buffer.from(`${line}\n`);
    writeAll(fd, bytes);
    if (this.fsync) fsyncSync(fd);
    const end = fstatSync(fd).size;
    return { offset: end - bytes.length, length: bytes.length - 1 };
  }

  /**
   * Replaces the whole file with `lines` atomically (temp file + rename), so a crash leaves either
   * the old file or the new one. Used once, when an upgraded old-version file is first written to.
   */
  rewrite(lines: string[]): Span[] {
    this.close();
    mkdirSync(dirname(this.path), { recursive: true });
    const temp = tempPathFor(this.path);
    const fd = openSync(temp, "w");
    const spans: Span[] = [];
    let offset = 0;
    try {
      for (const line of lines) {
        const bytes = Buffer.from(`${line}\n`);
        writeAll(fd, bytes);
        spans.push({ offset, length: bytes.length - 1 });
        offset += bytes.length;
      }
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, this.path);
    void sweepTempFiles(dirname(this.path)); // what a rewrite killed midway left here
    return spans;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private open(): number {
    if (this.fd !== undefined) return this.fd;
    mkdirSync(dirname(this.path), { recursive: true });
    const fd = openSync(this.path, "a+");
    const size = fstatSync(fd).size;
    // A torn last line (crash mid-write) must not swallow the next entry: start a fresh line.
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) writeAll(fd, Buffer.from("\n"));
    }
    this.fd = fd;
    return fd;
  }
}

function writeAll(fd: number, bytes: Buffer): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
}
