/**
 * Commands that outlive the tool call that started them: codex's `exec_command` sessions, Claude
 * Code's `run_in_background`, gemini-cli's `is_background`. One table per tool registry (so per
 * gong session) holds them; a later call reads their new output, writes to their stdin or stops
 * them, and closing the session kills every one still running.
 *
 * They run through the execution environment like any command (own process group, filtered
 * variables), with stdin kept open as a pipe and the environment's maximum timeout as their limit.
 */
import type { ExecResult, ExecutionEnvironment, StdinPort } from "../lib/env/types.ts";

/** Output kept per process; older output is dropped (and counted) past this many characters. */
const KEEP_CHARS = 1_000_000;
/** Background commands may run as long as the environment allows. */
const BACKGROUND_TIMEOUT_MS = Number.MAX_SAFE_INTEGER;

export interface BackgroundProcess {
  /** Small number the model passes back (session_id, task_id, pid). */
  readonly id: number;
  readonly command: string;
  readonly startedAt: number;
  /** Set once the command exited (or was killed). */
  result?: ExecResult;
}

interface Entry extends BackgroundProcess {
  output: string;
  /** Characters dropped from the front of `output`. */
  dropped: number;
  /** Absolute position (dropped + index) up to which output was handed out. */
  readTo: number;
  stdin?: StdinPort;
  controller: AbortController;
  done: Promise<ExecResult>;
  waiters: Set<() => void>;
}

export interface StartOptions {
  /** Working directory, relative to the environment's working directory or absolute. */
  cwd?: string;
}

export class ProcessTable {
  private readonly entries = new Map<number, Entry>();
  private nextId = 1000;

  constructor(private readonly env: ExecutionEnvironment) {}

  /** Starts `command`; it runs until it exits, is killed, or the environment's maximum timeout. */
  start(command: string, options: StartOptions = {}): BackgroundProcess {
    const entry: Entry = {
      id: this.nextId++,
      command,
      startedAt: Date.now(),
      output: "",
      dropped: 0,
      readTo: 0,
      controller: new AbortController(),
      done: Promise.resolve(undefined as unknown as ExecResult),
      waiters: new Set(),
    };
    const wake = () => {
      for (const w of entry.waiters) w();
    };
    entry.done = this.env
      .exec(command, {
        cwd: options.cwd,
        timeoutMs: BACKGROUND_TIMEOUT_MS,
        signal: entry.controller.signal,
        onStdin: (stdin) => {
          entry.stdin = stdin;
        },
        onData: (text) => {
          entry.output += text;
          if (entry.output.length > KEEP_CHARS) {
            const cut = entry.output.length - KEEP_CHARS;
            entry.output = entry.output.slice(cut);
            entry.dropped += cut;
          }
          wake();
        },
      })
      .catch((e): ExecResult => {
        const message = `${(e as Error).message}\n`;
        entry.output += message;
        return { stdout: "", stderr: message, output: message, exitCode: null, signal: null, timedOut: false, aborted: false, durationMs: 0, totalBytes: 0, outputTruncated: false };
      })
      .then((result) => {
        entry.result = result;
        wake();
        return result;
      });
    this.entries.set(entry.id, entry);
    return entry;
  }

  get(id: number): BackgroundProcess | undefined {
    return this.entries.get(id);
  }

  list(): BackgroundProcess[] {
    return [...this.entries.values()];
  }

  /** Resolves when the process exited (true) or `ms` passed (false); an abort ends the wait early. */
  async waitForExit(id: number, ms: number, signal?: AbortSignal): Promise<boolean> {
    const entry = this.entries.get(id);
    if (!entry) return true;
    if (entry.result) return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort = () => {};
    const stop = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), Math.max(0, ms));
      onAbort = () => resolve(false);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await Promise.race([entry.done.then(() => true), stop]);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Output written since the previous call (and whether older output was dropped before it could be read). */
  takeNewOutput(id: number): { text: string; missed: number } {
    const entry = this.entries.get(id);
    if (!entry) return { text: "", missed: 0 };
    const from = Math.max(entry.readTo, entry.dropped);
    const missed = from - entry.readTo;
    const text = entry.output.slice(from - entry.dropped);
    entry.readTo = entry.dropped + entry.output.length;
    return { text, missed };
  }

  /** The last `lines` lines of everything kept. */
  tail(id: number, lines: number): string {
    const entry = this.entries.get(id);
    if (!entry) return "";
    const all = entry.output.endsWith("\n") ? entry.output.slice(0, -1) : entry.output;
    return all.split("\n").slice(-lines).join("\n");
  }

  /** Sends text to the process's stdin; false when it no longer takes input. */
  write(id: number, chars: string): boolean {
    const entry = this.entries.get(id);
    if (!entry?.stdin || entry.result) return false;
    return entry.stdin.write(chars);
  }

  /** Stops the process (its whole group) and waits for it to end. */
  async kill(id: number): Promise<ExecResult | undefined> {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (!entry.result) entry.controller.abort(new Error("Stopped"));
    return entry.done;
  }

  /** Forgets a finished process (its output was handed out). */
  forget(id: number): void {
    const entry = this.entries.get(id);
    if (entry?.result) this.entries.delete(id);
  }

  /** Kills every process still running; used when the session closes. */
  async killAll(): Promise<void> {
    await Promise.all([...this.entries.keys()].map((id) => this.kill(id)));
    this.entries.clear();
  }
}
