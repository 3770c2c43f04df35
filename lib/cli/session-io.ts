/**
 * What every mode shares: the session store chosen by the flags, opening (and re-opening) a
 * session over it, the prompt built from arguments, stdin and @file attachments, and the exit
 * code of a finished input.
 */
import { Buffer } from "node:buffer";
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { createSession, type Session, type SubmitResult } from "../agent/index.ts";
import { isUnfinished } from "../agent/vocabulary.ts";
import type { FinishReason } from "../llm/types.ts";
import { AmbiguousSessionError, SessionNotFoundError } from "../store/list.ts";
import { lockPathOf, SessionLockedError } from "../store/lock.ts";
import { NotASessionFileError } from "../store/session-file-guard.ts";
import { SessionStore } from "../store/session-store.ts";
import type { CliSetup } from "./setup.ts";
import { UsageError } from "./args.ts";
import { ConfigError } from "./model.ts";

export const EXIT = { ok: 0, failed: 1, usage: 2, unfinished: 3, interrupted: 130 } as const;

export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: Record<string, string | undefined>;
}

export const processIo = (): Io => ({
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
});

/** The store the flags ask for; the same instance serves every session the host opens over it. */
export function storeFor(setup: CliSetup): SessionStore {
  const selection = setup.store;
  let store: SessionStore;
  if (selection === false) store = SessionStore.create({ cwd: setup.cwd, persist: false });
  else if (selection.resume) store = openExisting(selection.resume, setup.cwd, setup.fork);
  else if (selection.continue) store = openLatest(setup.cwd, setup.fork);
  else store = SessionStore.create({ cwd: setup.cwd });
  // --fork: the session stays its owner's; this run writes a new file holding its path so far.
  if (setup.fork && store.leafId) store.fork(store.leafId);
  if (setup.name) {
    try {
      store.setName(setup.name);
    } catch (e) {
      setup.warn(`gong: warning: the session name could not be saved (${(e as Error).message}).`);
    }
  }
  return store;
}

/**
 * An existing session by name, id prefix or file path (see resolveSession). An unknown reference,
 * a session another process is writing, or a file this gong cannot read is a configuration error
 * (exit 2), not a crash.
 */
export function openExisting(ref: string, cwd: string, fork = false): SessionStore {
  return opening(ref, () => SessionStore.open(ref, { cwd, lock: !fork }));
}

function openLatest(cwd: string, fork: boolean): SessionStore {
  return opening("the latest session", () => SessionStore.continueLatest(cwd, { lock: !fork }));
}

function opening(ref: string, open: () => SessionStore): SessionStore {
  try {
    return open();
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    if (e instanceof SessionNotFoundError) {
      if (e.file)
        throw new ConfigError(`Session file ${ref} does not exist. 'gong sessions' lists this directory's sessions.`);
      throw new ConfigError(
        `No session '${ref}': it is not a session name, id or file here. 'gong sessions' lists this directory's sessions.`,
      );
    }
    if (e instanceof NotASessionFileError) throw new ConfigError(e.message);
    if (e instanceof AmbiguousSessionError)
      throw new ConfigError(`Session id '${ref}' is ambiguous: give more characters. 'gong sessions' lists them.`);
    if (e instanceof SessionLockedError) {
      throw new ConfigError(
        `Session ${e.path} is in use by another gong process (pid ${e.pid}; lock file ${lockPathOf(e.path)}); wait for it to finish, or branch off it with --fork. If no gong runs there, delete the lock file.`,
      );
    }
    throw new ConfigError(
      `Cannot resume ${ref === "the latest session" ? ref : `session '${ref}'`}: ${(e as Error).message}.`,
    );
  }
}

/** Load problems already reported, per store (a host reopens sessions over the same store). */
const reported = new WeakMap<SessionStore, number>();

export async function openSession(setup: CliSetup, store: SessionStore): Promise<Session> {
  const session = await createSession({ ...setup.sessionOptions, store });
  attachShellHooks(setup, session);
  // Skipped lines (torn, corrupt, invalid entries) are said once each, naming the file and line.
  const from = reported.get(store) ?? 0;
  for (const w of store.warnings.slice(from)) {
    const where = w.line && !w.message.startsWith("line ") ? `line ${w.line}: ` : "";
    setup.warn(`gong: warning: ${store.path ?? "session"}: ${where}${w.message}`);
  }
  reported.set(store, store.warnings.length);
  return session;
}

/** The settings' shell hooks hear the session's events (tool call ids, subagents, the end) and know its file. */
export function attachShellHooks(setup: Pick<CliSetup, "shellHooks">, session: Session): void {
  if (!setup.shellHooks) return;
  setup.shellHooks.setTranscript(session.sessionFile);
  session.subscribe((event) => setup.shellHooks!.observe(event));
}

/** Prompt words + piped stdin + @file contents, in that order; at most `maxBytes` of input in all. */
export function buildPrompt(
  words: string | undefined,
  attachments: string[],
  stdinText: string | undefined,
  cwd: string,
  maxBytes = Infinity,
): string {
  const parts: string[] = [];
  if (words) parts.push(words);
  if (stdinText?.trim()) parts.push(stdinText.replace(/\s+$/, ""));
  let total = Buffer.byteLength(stdinText ?? "");
  for (const file of attachments) {
    const path = resolve(cwd, file);
    let content: string;
    try {
      total += statSync(path).size;
      if (total > maxBytes) throw new UsageError(tooLarge(`@${file}`, maxBytes));
      content = readFileSync(path, "utf8");
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw new UsageError(
        `Cannot attach @${file}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (e as Error).message}.`,
      );
    }
    parts.push(`<file path="${file}">\n${content.replace(/\s+$/, "")}\n</file>`);
  }
  return parts.join("\n\n");
}

/** Reads a stream to the end, refusing (without reading on) once it passes `maxBytes`. */
export async function readAll(stream: NodeJS.ReadableStream, maxBytes = Infinity): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    total += bytes.length;
    if (total > maxBytes) throw new UsageError(tooLarge("The prompt on stdin", maxBytes));
    chunks.push(bytes);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function tooLarge(what: string, maxBytes: number): string {
  const size =
    maxBytes >= 1024 * 1024 ? `${+(maxBytes / (1024 * 1024)).toFixed(1)} MB` : `${+(maxBytes / 1024).toFixed(1)} KB`;
  return `${what} is larger than the ${size} input limit ("maxInputBytes" in settings); give the model a file path to read instead.`;
}

export function exitCodeOf(result: SubmitResult): number {
  switch (result.stopReason) {
    case "completed":
    case "handled":
      return EXIT.ok;
    case "aborted":
      return EXIT.interrupted;
    case "error":
      // A rejected key is a configuration problem, not a failed task.
      return result.error?.kind === "auth" ? EXIT.usage : EXIT.failed;
    default:
      // The model stopped before the answer was complete: a script must be able to tell.
      if (isUnfinished(result.stopReason as FinishReason)) return EXIT.unfinished;
      return EXIT.failed;
  }
}

/** One sentence for a failed input (stack traces only with --verbose). */
export function describeFailure(result: SubmitResult): string | undefined {
  switch (result.stopReason) {
    case "error":
      return result.error?.message ?? "The model call failed.";
    case "turn_limit":
      return "Stopped: the turn limit (--max-turns) was reached.";
    case "tool_round_limit":
      return "Stopped: the limit of tool rounds for one input was reached.";
    case "max_cost":
      return "Stopped: the cost cap (--max-cost-usd) was reached.";
    case "aborted":
      return "Interrupted.";
    default:
      return result.stopMessage;
  }
}
