/**
 * What every mode shares: the session store chosen by the flags, opening (and re-opening) a
 * session over it, the prompt built from arguments, stdin and @file attachments, and the exit
 * code of a finished input.
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { createSession, openStore, type Session, type SubmitResult } from "../agent/index.ts";
import { SessionStore } from "../store/session-store.ts";
import type { CliSetup } from "./setup.ts";
import { UsageError } from "./args.ts";
import { ConfigError } from "./model.ts";

export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;

export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: Record<string, string | undefined>;
}

export const processIo = (): Io => ({ stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env });

/** The store the flags ask for; the same instance serves every session the host opens over it. */
export function storeFor(setup: CliSetup): SessionStore {
  const selection = setup.store;
  if (selection !== false && selection.resume) return openExisting(selection.resume, setup.cwd);
  return openStore(selection, setup.cwd);
}

/** An existing session by id prefix or path; a wrong reference is a configuration error (exit 2), not a crash. */
export function openExisting(ref: string, cwd: string): SessionStore {
  if (ref.endsWith(".jsonl") && !existsSync(ref)) throw new ConfigError(`Session file ${ref} does not exist. 'gong sessions' lists this directory's sessions.`);
  try {
    return SessionStore.open(ref, { cwd });
  } catch (e) {
    throw new ConfigError(`Cannot resume session '${ref}': ${(e as Error).message}. 'gong sessions' lists this directory's sessions.`);
  }
}

export async function openSession(setup: CliSetup, store: SessionStore): Promise<Session> {
  return createSession({ ...setup.sessionOptions, store });
}

/** Prompt words + piped stdin + @file contents, in that order. */
export function buildPrompt(words: string | undefined, attachments: string[], stdinText: string | undefined, cwd: string): string {
  const parts: string[] = [];
  if (words) parts.push(words);
  if (stdinText && stdinText.trim()) parts.push(stdinText.replace(/\s+$/, ""));
  for (const file of attachments) {
    const path = resolve(cwd, file);
    let content: string;
    try {
      content = readFileSync(path, "utf8");
    } catch (e) {
      throw new UsageError(`Cannot attach @${file}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (e as Error).message}.`);
    }
    parts.push(`<file path="${file}">\n${content.replace(/\s+$/, "")}\n</file>`);
  }
  return parts.join("\n\n");
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
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
    case "aborted":
      return "Interrupted.";
    default:
      return undefined;
  }
}
