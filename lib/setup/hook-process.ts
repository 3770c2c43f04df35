/**
 * One shell hook run: the command in the project directory through the shell, the event as JSON
 * on stdin, `$CLAUDE_PROJECT_DIR` and `$GONG_PROJECT_DIR` set, killed with its process group at its
 * timeout. A hook is a process tree of gong's like any command (the caller's `ProcessTrees`), so
 * stopping the hooks or gong's exit, however it comes, kills what a hook still runs. Output is kept
 * up to a bound (a hook that prints 100 MB costs no memory beyond it); nothing here throws: a hook
 * that cannot start is an exit code like any other failure.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import type { ProcessTrees } from "../env/process-trees.ts";

/** Bytes of a hook's stdout and of its stderr that are kept; the rest is read and dropped. */
export const HOOK_OUTPUT_LIMIT = 1024 * 1024;

export interface HookRun {
  /** The exit code; 128 + signal number when a signal ended it; -1 when it could not start. */
  code: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Whether stdout went past HOOK_OUTPUT_LIMIT (what was kept is its start). */
  truncated: boolean;
}

export interface HookProcessOptions {
  command: string;
  input: unknown;
  cwd: string;
  env: Record<string, string | undefined>;
  timeoutSeconds: number;
  /** The trees the hook's processes join. */
  trees: ProcessTrees;
}

const SIGNALS: Record<string, number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGKILL: 9,
  SIGSEGV: 11,
  SIGPIPE: 13,
  SIGTERM: 15,
};
const SHELL = existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";

export function runHookProcess(options: HookProcessOptions): Promise<HookRun> {
  return new Promise((done) => {
    const { trees } = options;
    const tree = trees.openTree();
    const env = trees.treeEnv(tree, {
      ...definedOnly(options.env),
      CLAUDE_PROJECT_DIR: options.cwd,
      GONG_PROJECT_DIR: options.cwd,
    });
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(SHELL, ["-c", options.command], {
        cwd: options.cwd,
        env,
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
      });
    } catch (e) {
      trees.settle(tree);
      done({ code: -1, stdout: "", stderr: (e as Error).message, timedOut: false, truncated: false });
      return;
    }
    trees.attach(tree, child.pid);
    const out = bounded();
    const err = bounded();
    child.stdout!.on("data", (chunk: Buffer) => out.add(chunk));
    child.stderr!.on("data", (chunk: Buffer) => err.add(chunk));
    let timedOut = false;
    const killTree = () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killTree();
    }, options.timeoutSeconds * 1000);
    child.on("error", (e) => {
      clearTimeout(timer);
      trees.settle(tree);
      done({ code: -1, stdout: "", stderr: e.message, timedOut: false, truncated: false });
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      // Whatever the hook left running in its group goes with it; anything that left the group
      // still carries the tree's marker, which stopping the hooks and gong's exit look for.
      killTree();
      trees.settle(tree);
      done({
        code: code ?? 128 + (SIGNALS[signal ?? ""] ?? 0),
        stdout: out.text(),
        stderr: err.text(),
        timedOut,
        truncated: out.over,
      });
    });
    // A hook that does not read its stdin must not fail the write.
    child.stdin!.on("error", () => {});
    child.stdin!.end(JSON.stringify(options.input));
  });
}

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

function bounded() {
  const chunks: Buffer[] = [];
  let size = 0;
  const state = {
    over: false,
    add(chunk: Buffer) {
      if (size >= HOOK_OUTPUT_LIMIT) {
        state.over = true;
        return;
      }
      const room = HOOK_OUTPUT_LIMIT - size;
      if (chunk.length > room) state.over = true;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      size += Math.min(chunk.length, room);
    },
    text: () => Buffer.concat(chunks).toString("utf8"),
  };
  return state;
}
