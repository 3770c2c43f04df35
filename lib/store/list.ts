/**
 * Listing, finding and deleting session files. Listing reads only each file's head (header and
 * first user message) and its last 64 KB (the latest name), so many large sessions list fast.
 * A name set in the middle of a file larger than 128 KB, and the message count of such a file,
 * are therefore not reported: `name`/`messageCount` are exact for smaller files and for names set
 * near the start or the end.
 */
import { Buffer } from "node:buffer";
import { closeSync, existsSync, fstatSync, openSync, readdirSync, readSync, statSync, unlinkSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Message } from "../llm/types.ts";
import { forEachLine } from "./reader.ts";
import { idFromFileName, sessionDir, sessionsRoot, type LocationOptions } from "./paths.ts";
import { textOf } from "../llm/types.ts";
import { oneLine } from "../output/cut.ts";

export interface SessionInfo {
  id: string;
  path: string;
  cwd: string;
  name?: string;
  /** First user message text, on one line, at most ~100 characters. */
  firstMessage: string;
  created: Date;
  /** File modification time. */
  updated: Date;
  /** Bytes. */
  size: number;
  /** Number of message entries; only for files small enough to read whole (≤ 128 KB). */
  messageCount?: number;
  parentSession?: string;
  /** The git branch the session started on (sessions written since gong recorded it). */
  gitBranch?: string;
  /** A child agent's session: the parent's tool call that spawned it. */
  spawnedBy?: string;
  /**
   * Line 1 is not a readable session header (torn, corrupt or missing): the id comes from the file
   * name, `cwd` from the directory listed, and the session still opens (see SessionStore.open).
   */
  headerDamaged?: true;
}

const WHOLE_LIMIT = 128 << 10;
const HEAD_LIMIT = 64 << 10;
const TAIL_BYTES = 64 << 10;
const TYPE_PREFIX = /^\{"type":"([^"\\]+)"/;

/** Sessions of `cwd` (or of every cwd when omitted), newest first. Unreadable and empty files are left out. */
export function listSessions(cwd?: string, options: LocationOptions = {}): SessionInfo[] {
  const dirs = cwd !== undefined || options.dir ? [sessionDir(cwd ?? ".", options)] : subdirs(sessionsRoot(options));
  const wantedCwd = cwd !== undefined ? resolve(cwd) : undefined;
  const infos: SessionInfo[] = [];
  for (const path of dirs.flatMap(sessionFiles)) {
    const info = readSessionInfo(path);
    if (!info) continue;
    // A file without a readable header names no cwd; the directory it sits in is the best guess.
    if (info.headerDamaged && wantedCwd !== undefined) info.cwd = wantedCwd;
    if (wantedCwd === undefined || info.cwd === wantedCwd) infos.push(info);
  }
  return infos.sort((a, b) => b.updated.getTime() - a.updated.getTime());
}

/**
 * Child agents' session files live in an `agents/` folder beside their parent's, so that listing,
 * `-c` and `-r` see only top-level sessions.
 */
export function childSessionDir(parentPath: string): string {
  return join(dirname(parentPath), "agents");
}

/** The child agents spawned from the session file at `parentPath`, oldest first. */
export function listChildSessions(parentPath: string): SessionInfo[] {
  const parent = resolve(parentPath);
  return sessionFiles(childSessionDir(parent))
    .map(readSessionInfo)
    .filter(
      (info): info is SessionInfo =>
        info !== undefined && info.parentSession !== undefined && resolve(info.parentSession) === parent,
    )
    .sort((a, b) => a.created.getTime() - b.created.getTime());
}

/** Path of the most recently modified session file of `cwd`, if any (reads no file contents). */
export function latestSessionPath(cwd: string, options: LocationOptions = {}): string | undefined {
  let best: { path: string; mtime: number } | undefined;
  for (const path of sessionFiles(sessionDir(cwd, options))) {
    const mtime = statSync(path, { throwIfNoEntry: false })?.mtimeMs; // deleted since the listing: skip it
    if (mtime !== undefined && (!best || mtime > best.mtime)) best = { path, mtime };
  }
  return best?.path;
}

/** No session answers to a reference: `file` when it named a file that does not exist, else no name or id matched. */
export class SessionNotFoundError extends Error {
  constructor(
    readonly ref: string,
    readonly file: boolean,
    message: string,
  ) {
    super(message);
    this.name = "SessionNotFoundError";
  }
}

/** An id prefix more than one session starts with. */
export class AmbiguousSessionError extends Error {
  constructor(
    readonly ref: string,
    readonly ids: string[],
  ) {
    super(`session id "${ref}" is ambiguous: ${ids.join(", ")}; give more characters`);
    this.name = "AmbiguousSessionError";
  }
}

/**
 * The file of the session whose id starts with `idPrefix`: searched in `cwd`'s directory first,
 * then under every cwd. Throws SessionNotFoundError when there is none, AmbiguousSessionError
 * when there is more than one.
 */
export function findSession(idPrefix: string, options: LocationOptions & { cwd?: string } = {}): string {
  const prefix = idPrefix.toLowerCase();
  const search = (dirs: string[]) =>
    dirs.flatMap(sessionFiles).filter((p) => idFromFileName(p)?.toLowerCase().startsWith(prefix));
  let found = options.cwd !== undefined || options.dir ? search([sessionDir(options.cwd ?? ".", options)]) : [];
  if (found.length === 0 && !options.dir) found = search(subdirs(sessionsRoot(options)));
  if (found.length === 0)
    throw new SessionNotFoundError(
      idPrefix,
      false,
      `no session with id "${idPrefix}" in ${options.dir ?? sessionsRoot(options)}`,
    );
  if (found.length > 1)
    throw new AmbiguousSessionError(
      idPrefix,
      found.map((p) => idFromFileName(p) ?? p),
    );
  return found[0];
}

/**
 * A session by reference: a file path (anything with a slash or ending in .jsonl; relative to
 * `cwd` when given), the name of a session of `cwd`, or an id prefix (see findSession).
 */
export function resolveSession(ref: string, options: LocationOptions & { cwd?: string } = {}): string {
  if (ref.includes("/") || ref.endsWith(".jsonl")) {
    const path = resolve(options.cwd ?? ".", ref);
    if (!existsSync(path)) throw new SessionNotFoundError(ref, true, `session file ${ref} does not exist`);
    return path;
  }
  const named = options.cwd !== undefined ? listSessions(options.cwd, options).find((s) => s.name === ref) : undefined;
  return named?.path ?? findSession(ref, options);
}

/** Deletes a session file; returns its path. */
export function deleteSession(idOrPath: string, options: LocationOptions & { cwd?: string } = {}): string {
  const path = resolveSession(idOrPath, options);
  unlinkSync(path);
  return path;
}

function subdirs(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => join(root, d.name));
}

function sessionFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => join(dir, f));
}

/** Summary of one file from its head and tail; undefined when it cannot be opened or is empty. */
export function readSessionInfo(path: string): SessionInfo | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    const whole = stat.size <= WHOLE_LIMIT;
    let header: Record<string, unknown> | undefined;
    let lineNo = 0;
    let firstMessage: string | undefined;
    let name: string | undefined;
    let messageCount = 0;
    let bytes = 0;
    forEachLine(
      fd,
      stat.size,
      (buf, start, end) => {
        const line = buf.subarray(start, end);
        bytes += line.length + 1;
        lineNo += 1;
        if (lineNo === 1) {
          const first = parseObject(line);
          if (first?.type === "session") {
            header = first;
            return;
          }
          // Not a header: line 1 is then read like any other (it may be the first entry).
        }
        const type = TYPE_PREFIX.exec(line.toString("utf8", 0, 40))?.[1];
        if (type === "message") {
          messageCount += 1;
          if (firstMessage === undefined) {
            const message = parseObject(line)?.message as Message | undefined;
            if (message?.role === "user") firstMessage = oneLine(textOf(message.content, " "));
          }
        } else if (type === "session_info") {
          name = stringField(parseObject(line), "name") ?? name;
        }
      },
      () => !whole && (bytes >= HEAD_LIMIT || firstMessage !== undefined),
    );
    if (!header && stat.size === 0) return undefined;
    if (!whole) name = tailName(fd, stat.size) ?? name;
    return {
      ...(header ? {} : { headerDamaged: true as const }),
      id: stringField(header, "id") ?? idFromFileName(path) ?? "",
      path,
      cwd: stringField(header, "cwd") ?? "",
      name,
      firstMessage: firstMessage ?? "",
      created: new Date(stringField(header, "timestamp") ?? stat.birthtime),
      updated: stat.mtime,
      size: stat.size,
      messageCount: whole ? messageCount : undefined,
      parentSession: stringField(header, "parentSession"),
      gitBranch: stringField(header, "gitBranch"),
      spawnedBy: stringField(header, "spawnedBy"),
    };
  } finally {
    closeSync(fd);
  }
}

/** The last session name set within the file's last 64 KB. */
function tailName(fd: number, size: number): string | undefined {
  const start = Math.max(0, size - TAIL_BYTES);
  const buf = Buffer.allocUnsafe(size - start);
  const n = readSync(fd, buf, 0, buf.length, start);
  const lines = buf.toString("utf8", 0, n).split("\n");
  for (let i = lines.length - 1; i >= (start > 0 ? 1 : 0); i--) {
    if (!lines[i].startsWith('{"type":"session_info"')) continue;
    const name = stringField(parseObject(Buffer.from(lines[i])), "name");
    if (name !== undefined) return name;
  }
  return undefined;
}

function parseObject(line: Buffer): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(line.toString("utf8"));
    return value && typeof value === "object" ? value : undefined;
  } catch {
    return undefined;
  }
}

function stringField(value: Record<string, unknown> | undefined, key: string): string | undefined {
  const v = value?.[key];
  return typeof v === "string" ? v : undefined;
}
