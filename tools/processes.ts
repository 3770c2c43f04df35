/**
 * Commands that outlive the tool call that started them: codex's `exec_command` sessions, Claude
 * Code's `run_in_background`, gemini-cli's `is_background`. One table per tool registry (so per
 * gong session) holds them; a later call reads their new output, writes to their stdin or stops
 * them, and closing the session kills every one still running.
 *
 * They run through the execution environment like any command (own process group, filtered
 * variables), with stdin kept open as a pipe and the environment's maximum timeout as their limit.
 *
 * Output is kept one of two ways, chosen at the start:
 * - read as new output (exec_command, TaskOutput): every byte goes to a capture (lib/output/capture.ts)
 *   made like the starting call's, and the next call that reads the process takes that capture
 *   over as its own. So each call's new output is its capture's — memory bounded by the event
 *   limit, every byte in that call's one spill file — and the framework alone cuts it for the model.
 * - read as the last lines (gemini-cli's read_background_output): only the last TAIL_BYTES bytes
 *   are kept (lib/output/tail-ring.ts), and a read says when the lines it was asked for reach past them.
 */
import { ToolError } from "../lib/envelope.ts";
import type { ExecResult, ExecutionEnvironment, StdinPort } from "../lib/env/types.ts";
import type { OutputCapture } from "../lib/output/capture.ts";
import { countNewlines } from "../lib/output/cut.ts";
import { TailRing } from "../lib/output/tail-ring.ts";

/** Bytes kept for tail() by a process read as its last lines. */
const TAIL_BYTES = 1_000_000;
/** Bytes kept of a process read as new output, for the user's view of it (the shell's /tasks). */
const VIEW_BYTES = 64_000;
/** Background commands running at once per session: each holds a process tree and a live capture. */
export const MAX_RUNNING_PROCESSES = 16;
const encoder = new TextEncoder();
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
  /** Output not yet taken by a call (read-as-new-output processes); null once the process ended and it was taken. */
  pending: OutputCapture | null;
  /** The last bytes written (all of what tail() reads of a read-as-last-lines process; the user's view of the others). */
  recent: TailRing;
  /** Line breaks written in all. */
  newlines: number;
  stdin?: StdinPort;
  controller: AbortController;
  done: Promise<ExecResult>;
}

export interface StartOptions {
  /** Working directory, relative to the environment's working directory or absolute. */
  cwd?: string;
  /**
   * The starting call's capture. Given, the process is read as new output: its output is kept
   * whole in captures like this one until a call takes it (take). Without it, only the last
   * characters are kept, for tail().
   */
  output?: OutputCapture;
}

/** The last lines of a process's output, as tail() gives them. */
export interface Tail {
  text: string;
  /** Lines shown. */
  lines: number;
  /** Lines written in all. */
  totalLines: number;
  /** The lines asked for reach back past the kept characters: `text` starts inside the output, not at a line start. */
  clipped: boolean;
}

export class ProcessTable {
  private readonly entries = new Map<number, Entry>();
  private nextId = 1000;

  constructor(private readonly env: ExecutionEnvironment) {}

  /**
   * Starts `command`; it runs until it exits, is killed, or the environment's maximum timeout.
   * Refused (ToolError) while MAX_RUNNING_PROCESSES are running.
   */
  start(command: string, options: StartOptions = {}): BackgroundProcess {
    const running = [...this.entries.values()].filter((e) => !e.result);
    if (running.length >= MAX_RUNNING_PROCESSES) {
      const ids = running.map((e) => e.id).join(", ");
      throw new ToolError(
        "EXECUTION_ERROR",
        `${running.length} commands started earlier are still running (the limit is ${MAX_RUNNING_PROCESSES}): ${ids}. Stop one you no longer need, or read one to its end, before starting another.`,
      );
    }
    const entry: Entry = {
      id: this.nextId++,
      command,
      startedAt: Date.now(),
      pending: options.output?.sibling() ?? null,
      recent: new TailRing(options.output ? VIEW_BYTES : TAIL_BYTES),
      newlines: 0,
      controller: new AbortController(),
      done: Promise.resolve(undefined as unknown as ExecResult),
    };
    const readAsNew = entry.pending !== null;
    const keepRecent = this.recentKeeper(entry);
    entry.done = this.env
      .exec(command, {
        cwd: options.cwd,
        timeoutMs: BACKGROUND_TIMEOUT_MS,
        signal: entry.controller.signal,
        onStdin: (stdin) => {
          entry.stdin = stdin;
        },
        // Raw bytes into the capture (the whole output); the decoded text's end kept for tail().
        onOutput: readAsNew ? (chunk) => entry.pending?.write(chunk) : undefined,
        onData: keepRecent,
      })
      .catch((e): ExecResult => {
        const result = failedStart(e);
        if (readAsNew) entry.pending?.write(result.output);
        else keepRecent(result.output);
        return result;
      })
      .then((result) => (entry.result = result));
    this.entries.set(entry.id, entry);
    return entry;
  }

  /**
   * A foreground command the user moved to the background (the shell's Ctrl-B): it goes on as one
   * of the table's, its output from here on kept as `start` keeps it (given `output`, the starting
   * call's capture: read as new output; else as the last lines). `controller` stops it, `done`
   * settles when it exits. Returns the process and the two sinks its output goes to from now on.
   */
  adopt(
    command: string,
    run: {
      startedAt: number;
      done: Promise<ExecResult>;
      controller: AbortController;
      output?: OutputCapture;
      /** The end of what it wrote before it was moved (the user's view starts with it). */
      before?: string;
    },
  ): { process: BackgroundProcess; bytes(chunk: Uint8Array): void; text(text: string): void } {
    const entry: Entry = {
      id: this.nextId++,
      command,
      startedAt: run.startedAt,
      pending: run.output?.sibling() ?? null,
      recent: new TailRing(run.output ? VIEW_BYTES : TAIL_BYTES),
      newlines: 0,
      controller: run.controller,
      done: run.done.then((result) => (entry.result = result)),
    };
    this.entries.set(entry.id, entry);
    const text = this.recentKeeper(entry);
    if (run.before) text(run.before);
    return { process: entry, bytes: (chunk) => entry.pending?.write(chunk), text };
  }

  /** Text decoded per stream (a character split across chunks stays whole), kept as its bytes. */
  private recentKeeper(entry: Entry): (text: string) => void {
    return (text) => {
      entry.newlines += countNewlines(text);
      entry.recent.push(encoder.encode(text));
    };
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

  /**
   * Hands the output written since the last take to `capture` (the reading call's, still empty):
   * it takes the waiting capture over whole. What the process writes afterwards waits in a new
   * capture for the next reader. Call it right before finishing the capture, in the same tick,
   * so no byte falls between the two.
   */
  take(id: number, capture: OutputCapture): void {
    const entry = this.entries.get(id);
    if (!entry?.pending) return;
    capture.adopt(entry.pending);
    entry.pending = entry.result ? null : capture.sibling();
  }

  /** The last `lines` lines of what a read-as-last-lines process wrote. */
  tail(id: number, lines: number): Tail {
    const entry = this.entries.get(id);
    if (!entry) return { text: "", lines: 0, totalLines: 0, clipped: false };
    const recent = entry.recent.text();
    const totalLines = entry.newlines + (recent !== "" && !recent.endsWith("\n") ? 1 : 0);
    const body = recent.endsWith("\n") ? recent.slice(0, -1) : recent;
    if (body === "") return { text: "", lines: 0, totalLines, clipped: false };
    const kept = body.split("\n");
    const shown = kept.slice(-lines);
    // Reaching back to the first kept line, which may be the end of a longer one, once anything was dropped.
    const clipped = entry.recent.droppedBytes > 0 && shown.length === kept.length;
    return { text: shown.join("\n"), lines: shown.length, totalLines, clipped };
  }

  /** Sends text to the process's stdin; false when it no longer takes input (exited, or closed its stdin). */
  async write(id: number, chars: string): Promise<boolean> {
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
    if (!entry?.result) return;
    entry.pending?.dropSpill();
    this.entries.delete(id);
  }

  /** Kills every process still running and drops output nobody read; used when the session closes. */
  async killAll(): Promise<void> {
    await Promise.all([...this.entries.keys()].map((id) => this.kill(id)));
    for (const entry of this.entries.values()) entry.pending?.dropSpill();
    this.entries.clear();
  }
}

/** What a command that failed to start (or to go on) answers: its error as its output. */
export function failedStart(e: unknown): ExecResult {
  const message = `${(e as Error).message}\n`;
  return {
    stdout: "",
    stderr: message,
    output: message,
    exitCode: null,
    signal: null,
    timedOut: false,
    aborted: false,
    durationMs: 0,
    totalBytes: 0,
    outputTruncated: false,
  };
}
