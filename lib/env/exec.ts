/**
 * Run one shell command (docs/conformance.md: 004 §4.2, 003 §3.3/§B): `<shell> -c <script>`,
 * detached into its own process group, stdin closed, output collected with bounded memory.
 *
 * The call settles when the shell EXITS, not when its pipes close: a background child that
 * inherited stdout (`server &`) would otherwise hold the call open forever. After the exit we
 * give the pipes a moment to deliver what is already buffered, then destroy them.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import { ToolError } from "../envelope.ts";
import { heldByAny, stdinObject } from "./stdin-readers.ts";
import { OutputCollector, type OutputCollectorOptions } from "./output-collector.ts";
import type { ProcessTrees } from "./process-trees.ts";
import type { ExecResult, StdinPort } from "./types.ts";

/** After the exit, the pipes are read until they are quiet this long (or close)… */
const DRAIN_QUIET_MS = 20;
/** …but never longer than this: a background child may write forever. */
const DRAIN_MAX_MS = 500;

export interface RunCommandOptions extends OutputCollectorOptions {
  /** Path of the shell program. */
  shell: string;
  /** The name the shell is started under ($0, and the prefix of its own messages: "sh: …"). */
  shellName?: string;
  script: string;
  /** Absolute working directory (checked to exist). */
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  /** Between SIGTERM and SIGKILL. */
  killGraceMs: number;
  signal?: AbortSignal;
  /** Aborted when the command goes on in the background: its timeout is lifted. */
  background?: AbortSignal;
  /** Where the command's process tree is registered, so timeout, abort and cleanup reach all of it. */
  trees: ProcessTrees;
  /** Keep stdin open as a pipe and hand its write end over (long-running, interactive commands). */
  onStdin?: (stdin: StdinPort) => void;
}

export async function runCommand(options: RunCommandOptions): Promise<ExecResult> {
  const started = performance.now();
  await assertDirectory(options.cwd);
  const collector = new OutputCollector(options);
  // Object.assign, not a spread: the texts stay undecoded until someone reads them.
  if (options.signal?.aborted) return Object.assign(collector.finish(), ending(started, null, null, false, true));

  const tree = options.trees.openTree();
  let child: ChildProcess;
  try {
    child = spawn(options.shell, ["-c", options.script], {
      argv0: options.shellName,
      cwd: options.cwd,
      env: options.trees.treeEnv(tree, options.env),
      detached: true,
      stdio: [options.onStdin ? "pipe" : "ignore", "pipe", "pipe"],
    });
  } catch (e) {
    collector.finish();
    options.trees.settle(tree);
    throw spawnError(e, options.shell);
  }

  return new Promise<ExecResult>((resolve, reject) => {
    let timedOut = false;
    let aborted = false;
    let killing: Promise<void> | undefined;
    const pid = child.pid;
    options.trees.attach(tree, pid);

    // The whole tree goes, not just the shell: SIGTERM, then SIGKILL after the grace period.
    const stop = (why: "timeout" | "abort") => {
      if (pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      if (why === "timeout") timedOut = true;
      else aborted = true;
      killing ??= options.trees.kill(tree, options.killGraceMs);
    };
    const timer = setTimeout(() => stop("timeout"), options.timeoutMs);
    const onAbort = () => stop("abort");
    const untimed = () => clearTimeout(timer);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    options.background?.addEventListener("abort", untimed, { once: true });
    const detach = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      options.background?.removeEventListener("abort", untimed);
    };

    if (options.onStdin && child.stdin) {
      // What the command holds as stdin, noted once it runs (unknown: writes are trusted as before).
      let object: string | undefined;
      child.once("spawn", () => {
        if (pid !== undefined) object = stdinObject(pid);
      });
      options.onStdin(stdinPort(child, () => object === undefined || heldByAny(options.trees.running(), object)));
    }

    let onDrainData = () => {};
    child.stdout!.on("data", (chunk: Uint8Array) => {
      collector.write(chunk, "stdout");
      onDrainData();
    });
    child.stderr!.on("data", (chunk: Uint8Array) => {
      collector.write(chunk, "stderr");
      onDrainData();
    });

    child.once("error", (e) => {
      if (pid !== undefined) return; // A late error on a running child (e.g. a failed kill): the exit still comes.
      detach();
      collector.finish();
      options.trees.settle(tree);
      reject(spawnError(e, options.shell));
    });

    child.once("exit", (code, signal) => {
      detach();
      let settled = false;
      const settle = () => {
        if (settled) return;
        settled = true;
        clearTimeout(quietTimer);
        clearTimeout(capTimer);
        child.stdout!.destroy();
        child.stderr!.destroy();
        child.stdin?.destroy();
        const result = Object.assign(collector.finish(), ending(started, code, signal, timedOut, aborted));
        // A timed-out or aborted command answers once its whole tree is gone, so nothing it started
        // outlives the answer; a finished command's background processes (a dev server) stay,
        // tracked until cleanup.
        if (killing) void killing.finally(() => resolve(result));
        else {
          options.trees.settle(tree);
          resolve(result);
        }
      };
      let quietTimer = setTimeout(settle, DRAIN_QUIET_MS);
      const capTimer = setTimeout(settle, DRAIN_MAX_MS);
      onDrainData = () => {
        clearTimeout(quietTimer);
        quietTimer = setTimeout(settle, DRAIN_QUIET_MS);
      };
      child.once("close", settle);
    });
  });
}

/** How long a write to a command's stdin may wait for a full pipe before it counts as delivered. */
const STDIN_WRITE_SETTLE_MS = 250;

/** `read`: whether some process of the command still has its stdin open. */
function stdinPort(child: ChildProcess, read: () => boolean): StdinPort {
  const stdin = child.stdin!;
  // A command that exits or closes its input makes writes fail with EPIPE: that is an answer, not a crash.
  stdin.on("error", () => {});
  const open = () => !stdin.destroyed && !stdin.writableEnded && child.exitCode === null && child.signalCode === null;
  return {
    write(text) {
      if (!open() || !read()) return Promise.resolve(false);
      // The pipe answers at once: written, or EPIPE when no process reads it any more. A full pipe
      // (the command reads slowly) holds the text for it: delivered, as far as the writer can know.
      return new Promise<boolean>((resolve) => {
        const full = setTimeout(() => resolve(open()), STDIN_WRITE_SETTLE_MS);
        stdin.write(text, (error) => {
          clearTimeout(full);
          resolve(!error);
        });
      });
    },
    end() {
      if (!stdin.writableEnded) stdin.end();
    },
  };
}

function ending(started: number, exitCode: number | null, signal: string | null, timedOut: boolean, aborted: boolean) {
  return { exitCode, signal, timedOut, aborted, durationMs: Math.round(performance.now() - started) };
}

async function assertDirectory(dir: string): Promise<void> {
  const info = await stat(dir).catch(() => null);
  if (!info)
    throw new ToolError(
      "NOT_FOUND",
      `Working directory '${dir}' does not exist. Create it first or run the command from an existing directory.`,
    );
  if (!info.isDirectory())
    throw new ToolError(
      "INVALID_PARAM",
      `Working directory '${dir}' is a file, not a directory. Use its parent directory.`,
    );
}

function spawnError(e: unknown, shell: string): ToolError {
  const code = (e as { code?: string }).code ?? "unknown error";
  const detail = code === "ENOENT" ? "no such file (ENOENT)" : code === "EACCES" ? "permission denied (EACCES)" : code;
  return new ToolError(
    "EXECUTION_ERROR",
    `Could not start the shell '${shell}': ${detail}. Check that the shell exists and is executable, or configure another shell.`,
  );
}
