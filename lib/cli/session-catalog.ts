/**
 * The sessions of a directory for the session picker, fast however many there are: the list is
 * the directory's file names and times (one readdir and a stat each, newest first); each
 * session's summary (name, first input, branch, size) is read when a row shows it, and all of
 * them in the background, a slice per tick, for the search. A file that cannot be read is listed
 * as such, never an error.
 */
import { closeSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { Buffer } from "node:buffer";
import { readSessionInfo, type SessionInfo } from "../store/list.ts";
import { sessionDir, type LocationOptions } from "../store/paths.ts";
import { textOf, type Message } from "../llm/types.ts";
import { oneLine } from "../output/cut.ts";

/** Summaries read per tick in the background. */
const SLICE = 250;
/** Bytes read from a file's end for its preview. */
const PREVIEW_BYTES = 32 << 10;

export interface CatalogEntry {
  path: string;
  updated: Date;
  size: number;
}

export class SessionCatalog {
  readonly entries: CatalogEntry[];
  private readonly summaries = new Map<string, SessionInfo | null>();
  private loaded = 0;
  private stopped = false;

  constructor(cwd: string, options: LocationOptions = {}) {
    this.entries = listFiles(sessionDir(cwd, options));
  }

  /** The summary of a session (read now if not yet); null for a file that is not a readable session. */
  summary(path: string): SessionInfo | null {
    let info = this.summaries.get(path);
    if (info === undefined) {
      info = readSessionInfo(path) ?? null;
      this.summaries.set(path, info);
    }
    return info;
  }

  /** The summary when it was read already (the search looks only at those). */
  known(path: string): SessionInfo | null | undefined {
    return this.summaries.get(path);
  }

  /** How many summaries the background reading has got through. */
  get progress(): number {
    return this.loaded;
  }

  /** Reads every summary, a slice per tick; `changed` after each slice. Stops with stop(). */
  loadAll(changed: () => void): void {
    const step = () => {
      if (this.stopped) return;
      const end = Math.min(this.entries.length, this.loaded + SLICE);
      for (; this.loaded < end; this.loaded++) this.summary(this.entries[this.loaded].path);
      changed();
      if (this.loaded < this.entries.length) setImmediate(step);
    };
    setImmediate(step);
  }

  stop(): void {
    this.stopped = true;
  }
}

/** The session files of `dir`, newest first (a file gone between the listing and its stat is left out). */
function listFiles(dir: string): CatalogEntry[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const entries: CatalogEntry[] = [];
  for (const name of names) {
    if (!name.endsWith(".jsonl")) continue;
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat?.isFile()) entries.push({ path, updated: stat.mtime, size: stat.size });
  }
  return entries.sort((a, b) => b.updated.getTime() - a.updated.getTime());
}

/** The last messages of a session file, one line each (`› input`, then answers), from its end only. */
export function previewLines(path: string, count: number): string[] {
  let text: string;
  try {
    const fd = openSync(path, "r");
    try {
      const size = statSync(path).size;
      const start = Math.max(0, size - PREVIEW_BYTES);
      const buffer = Buffer.alloc(size - start);
      const read = readSync(fd, buffer, 0, buffer.length, start);
      text = buffer.toString("utf8", 0, read);
      // The first line of a slice taken from the middle is a piece of one.
      if (start > 0) text = text.slice(text.indexOf("\n") + 1);
    } finally {
      closeSync(fd);
    }
  } catch {
    return [`(${basename(path)} cannot be read)`];
  }
  const lines: string[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith('{"type":"message"')) continue;
    try {
      const message = (JSON.parse(line) as { message?: Message }).message;
      if (!message || (message.role !== "user" && message.role !== "assistant")) continue;
      const said = oneLine(textOf(message.content, " "));
      if (said) lines.push(message.role === "user" ? `› ${said}` : `  ${said}`);
    } catch {
      // A torn or damaged line: the preview does without it.
    }
  }
  return lines.slice(-count);
}
