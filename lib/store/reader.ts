/**
 * Streaming load of a session file into an offset index, without holding the file in memory.
 *
 * The file is read in 1 MB chunks. For each line only `type`, `id` and `parentId` are taken, from
 * the line's first bytes (the writer always puts them first), plus its byte offset and length;
 * bodies are read later, one entry at a time, for just the entries a caller needs. Small files
 * (≤ 4 MB) have every line fully parsed, so any corruption is reported at load; in larger files a
 * line must start with the fixed field prefix and end with `}`, and a body that still fails to
 * parse is reported when it is read. The last line is always fully parsed: that is where a crash
 * mid-write leaves a torn line.
 */
import { Buffer } from "node:buffer";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { Entry, LoadWarning, SessionHeader } from "./format.ts";

export interface IndexRecord {
  id: string;
  parentId: string | null;
  type: string;
  /** Byte offset of the line in the file (-1 for entries held only in memory). */
  offset: number;
  /** Byte length of the line without its newline. */
  length: number;
  /** 1-based line number (0 for entries held only in memory). */
  line: number;
  /** The body, for entries not read from the file (in-memory stores, upgraded old files). */
  entry?: Entry;
}

export interface ScanResult {
  /** Parsed first line when it is a `session` object (any version). */
  header: (Partial<SessionHeader> & Record<string, unknown>) | undefined;
  records: IndexRecord[];
  warnings: LoadWarning[];
  size: number;
  /** Lines seen, including blank, corrupt and torn ones (the next appended line is `lines + 1`). */
  lines: number;
}

const CHUNK = 1 << 20;
const FULL_PARSE_LIMIT = 4 << 20;

/** Reads the header and builds the offset index. Stops after the header when `headerOnly`. */
export function scanSession(path: string, options: { headerOnly?: boolean } = {}): ScanResult {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const result: ScanResult = { header: undefined, records: [], warnings: [], size, lines: 0 };
    const fullParse = size <= FULL_PARSE_LIMIT;
    let lineNo = 0;
    let stop = false;
    const onLine = (buf: Buffer, start: number, end: number, offset: number, terminated: boolean) => {
      lineNo += 1;
      if (lineNo === 1) {
        result.header = parseHeader(buf.subarray(start, end));
        if (result.header) {
          stop = options.headerOnly === true;
          return;
        }
      }
      // Line 1 without a header gets one warning saying so, not a second one for a corrupt entry.
      const warnings = lineNo === 1 ? [] : result.warnings;
      const record = indexLine(buf, start, end, offset, lineNo, fullParse || !terminated, warnings, terminated);
      if (record) result.records.push(record);
      if (lineNo === 1) {
        const what = record ? "is an entry, not a session header" : "is not a readable session header";
        result.warnings.push({ line: 1, message: `line 1 ${what}; the file name gives the session id` });
      }
    };
    forEachLine(fd, size, onLine, () => stop);
    result.lines = lineNo;
    return result;
  } finally {
    closeSync(fd);
  }
}

/**
 * Calls `onLine` for every line: the bytes are `buf[start, end)` (no newline; the last line may lack
 * one). `buf` is reused between calls — copy what must outlive the call.
 */
export function forEachLine(
  fd: number,
  size: number,
  onLine: (buf: Buffer, start: number, end: number, offset: number, terminated: boolean) => void,
  stopped: () => boolean = () => false,
): void {
  const buf = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(size, 1)));
  let pieces: Buffer[] = [];
  let filePos = 0;
  let lineStart = 0;
  while (filePos < size && !stopped()) {
    const n = readSync(fd, buf, 0, Math.min(buf.length, size - filePos), filePos);
    if (n === 0) break;
    let i = 0;
    for (;;) {
      const nl = buf.indexOf(10, i);
      if (nl === -1 || nl >= n) {
        if (i < n) pieces.push(Buffer.from(buf.subarray(i, n)));
        break;
      }
      if (pieces.length) {
        const line = Buffer.concat([...pieces, buf.subarray(i, nl)]);
        onLine(line, 0, line.length, lineStart, true);
      } else {
        onLine(buf, i, nl, lineStart, true);
      }
      pieces = [];
      lineStart = filePos + nl + 1;
      i = nl + 1;
      if (stopped()) return;
    }
    filePos += n;
  }
  if (pieces.length && !stopped()) {
    const line = Buffer.concat(pieces);
    onLine(line, 0, line.length, lineStart, false);
  }
}

function parseHeader(bytes: Buffer): ScanResult["header"] {
  const value = tryParse(bytes);
  return value && value.type === "session" ? (value as ScanResult["header"]) : undefined;
}

function indexLine(
  buf: Buffer,
  start: number,
  end: number,
  offset: number,
  line: number,
  parseAll: boolean,
  warnings: LoadWarning[],
  terminated: boolean,
): IndexRecord | undefined {
  if (isBlank(buf, start, end)) return undefined;
  const base = { offset, length: end - start, line };
  if (!parseAll && lastNonSpace(buf, start, end) === 0x7d) {
    const fields = prefixFields(buf, start, end);
    if (fields) return { ...fields, ...base };
  }
  const value = tryParse(buf.subarray(start, end));
  if (
    value &&
    typeof value.type === "string" &&
    typeof value.id === "string" &&
    (value.parentId === null || typeof value.parentId === "string")
  ) {
    return { id: value.id, type: value.type, parentId: value.parentId as string | null, ...base };
  }
  warnings.push({
    line,
    message: terminated
      ? `line ${line}: corrupt entry skipped (not a valid JSON entry)`
      : `line ${line}: torn last line skipped (an incomplete write, e.g. the process was killed)`,
  });
  return undefined;
}

const TYPE_KEY = Buffer.from('{"type":"');
const ID_KEY = Buffer.from('","id":"');
const PARENT_KEY = Buffer.from('","parentId":');
const NULL = Buffer.from("null");
/** One shared string per entry type, so the index does not hold a copy per line. */
const typeNames = new Map<string, string>();

/**
 * `type`, `id`, `parentId` from the fixed prefix the writer puts on every line, read straight from
 * the bytes (no decoding of the line). Undefined when the line does not start that way.
 */
function prefixFields(
  buf: Buffer,
  start: number,
  end: number,
): { type: string; id: string; parentId: string | null } | undefined {
  let p = start;
  if (!hasAt(buf, p, end, TYPE_KEY)) return undefined;
  p += TYPE_KEY.length;
  const typeEnd = closingQuote(buf, p, end);
  if (typeEnd < 0) return undefined;
  const rawType = buf.toString("latin1", p, typeEnd);
  const type = typeNames.get(rawType) ?? rawType;
  if (type === rawType) typeNames.set(rawType, rawType);
  p = typeEnd;
  if (!hasAt(buf, p, end, ID_KEY)) return undefined;
  p += ID_KEY.length;
  const idEnd = closingQuote(buf, p, end);
  if (idEnd < 0) return undefined;
  const id = buf.toString("latin1", p, idEnd);
  p = idEnd;
  if (!hasAt(buf, p, end, PARENT_KEY)) return undefined;
  p += PARENT_KEY.length;
  if (hasAt(buf, p, end, NULL)) return { type, id, parentId: null };
  if (buf[p] !== 0x22) return undefined;
  const parentEnd = closingQuote(buf, p + 1, end);
  return parentEnd < 0 ? undefined : { type, id, parentId: buf.toString("latin1", p + 1, parentEnd) };
}

function hasAt(buf: Buffer, p: number, end: number, literal: Buffer): boolean {
  if (p + literal.length > end) return false;
  for (let k = 0; k < literal.length; k++) if (buf[p + k] !== literal[k]) return false;
  return true;
}

/** Index of the quote closing a short plain-ASCII string starting at `p`, or -1. */
function closingQuote(buf: Buffer, p: number, end: number): number {
  for (let k = p; k < end && k < p + 128; k++) {
    const b = buf[k];
    if (b === 0x22) return k > p ? k : -1;
    if (b === 0x5c || b > 0x7e || b < 0x20) return -1;
  }
  return -1;
}

/** Reads and parses one entry's body. Throws when the bytes are not a JSON entry. */
export function readBody(fd: number, record: IndexRecord): Entry {
  if (record.entry) return record.entry;
  const buf = Buffer.allocUnsafe(record.length);
  let done = 0;
  while (done < record.length) {
    const n = readSync(fd, buf, done, record.length - done, record.offset + done);
    if (n === 0) throw new Error(`line ${record.line}: file ended inside the entry`);
    done += n;
  }
  const value = tryParse(buf);
  if (!value || value.id !== record.id) throw new Error(`line ${record.line}: corrupt entry body (not valid JSON)`);
  return value as unknown as Entry;
}

function tryParse(bytes: Buffer): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(bytes.toString("utf8"));
    return value && typeof value === "object" && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0d;

function isBlank(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (!isSpace(buf[i])) return false;
  return true;
}

function lastNonSpace(buf: Buffer, start: number, end: number): number {
  for (let i = end - 1; i >= start; i--) if (!isSpace(buf[i])) return buf[i];
  return -1;
}
