/** Runs a command to its end with its output captured (stdin closed): the exit code, stdout and stderr. */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCaptured(cmd: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const proc = Bun.spawn(cmd, { cwd: options.cwd, env: options.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr } satisfies Ran;
}
