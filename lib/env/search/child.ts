/**
 * Run a search binary (rg, fd) and hand its stdout to the caller line by line. The caller may stop
 * early (limit reached): the child is killed and its remaining output ignored. An abort signal
 * kills it too and rejects with the signal's reason.
 */
import { spawn } from "node:child_process";

export interface LineRunResult {
  code: number | null;
  /** First 4 KB of stderr, for error messages. */
  stderr: string;
  /** True when `onLine` asked to stop. */
  stopped: boolean;
}

export interface LineRunOptions {
  cwd: string;
  pathEnv: string;
  signal?: AbortSignal;
  /** Return false to stop reading and kill the child. */
  onLine: (line: string) => boolean | void;
}

const STDERR_CAP = 4096;

export function runLines(command: string, args: string[], options: LineRunOptions): Promise<LineRunResult> {
  options.signal?.throwIfAborted();
  return new Promise((resolve, reject) => {
    // Only PATH: no user config (RIPGREP_CONFIG_PATH, global git excludes) changes the results.
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { PATH: options.pathEnv },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    let pending = "";
    let stopped = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      child.kill("SIGKILL");
    };
    const onAbort = () => {
      stop();
      reject(options.signal?.reason);
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });

    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      if (stopped) return;
      pending += chunk;
      let start = 0;
      for (let nl = pending.indexOf("\n"); nl !== -1; nl = pending.indexOf("\n", start)) {
        const line = pending.slice(start, nl);
        start = nl + 1;
        if (options.onLine(line) === false) {
          stop();
          break;
        }
      }
      pending = stopped ? "" : pending.slice(start);
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      if (stderr.length < STDERR_CAP) stderr += chunk.slice(0, STDERR_CAP - stderr.length);
    });
    child.on("error", (e) => {
      options.signal?.removeEventListener("abort", onAbort);
      reject(e);
    });
    child.on("close", (code) => {
      options.signal?.removeEventListener("abort", onAbort);
      if (!stopped && pending !== "") options.onLine(pending);
      resolve({ code, stderr, stopped });
    });
  });
}
