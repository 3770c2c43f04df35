/** A command run to its end, its output collected: what isolation and the runners need from processes. */
import { spawn } from "node:child_process";

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

export function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; signal?: AbortSignal } = {},
): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout!.on("data", (b: Buffer) => out.push(b));
    child.stderr!.on("data", (b: Buffer) => err.push(b));
    if (options.input !== undefined) child.stdin!.end(options.input);
    const stop = () => child.kill("SIGTERM");
    options.signal?.addEventListener("abort", stop, { once: true });
    child.on("close", () => options.signal?.removeEventListener("abort", stop));
    child.on("error", (e) => resolve({ code: 127, stdout: "", stderr: e.message }));
    child.on("close", (code, signal) =>
      resolve({
        code: code ?? 128 + (signal === "SIGKILL" ? 9 : 15),
        stdout: Buffer.concat(out).toString(),
        stderr: Buffer.concat(err).toString(),
      }),
    );
  });
}

/** The last non-empty line of a command's error output: enough to say why it failed. */
export const lastLine = (text: string) => text.trim().split("\n").at(-1)?.trim() ?? "";
