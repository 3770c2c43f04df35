/**
 * The local runner: a pool of at most `workers` run-one processes. Each child holds a pipe on its
 * stdin that only this process writes: if the batch dies, even by SIGKILL, the pipe closes and the
 * child cancels itself. A child that ends without a result (killed) is an infrastructure error,
 * retried while the task has attempts left.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { attemptNumbers, attemptsOf } from "./layout.ts";
import { describeExit, recordLostAttempts } from "./outcome.ts";
import type { RunnerHost } from "./runner-host.ts";

export async function runLocal(host: RunnerHost, owed: number[]): Promise<void> {
  const queue = [...owed];
  const children = new Set<ChildProcess>();
  const onCancel = () => {
    for (const child of children) child.kill("SIGTERM");
  };
  host.cancel.addEventListener("abort", onCancel, { once: true });
  try {
    await new Promise<void>((allDone) => {
      const next = () => {
        while (children.size < host.workers && queue.length > 0 && host.mayLaunch()) launch(queue.shift()!);
        if (children.size === 0) allDone();
      };
      const launch = (index: number) => {
        const task = host.tasks[index];
        const before = attemptNumbers(host.out, task.id).at(-1) ?? 0;
        const [command, ...args] = host.command;
        const child = spawn(
          command,
          [...args, "batch", "run-one", host.snapshot, "--index", String(index), "--out", host.out],
          {
            env: { ...host.env, GONG_BATCH_RUNNER: "local" },
            stdio: ["pipe", "ignore", "pipe"],
          },
        );
        children.add(child);
        host.launched(index);
        let tail = "";
        child.stderr!.on("data", (b: Buffer) => (tail = (tail + b.toString()).slice(-2000)));
        child.stdin!.on("error", () => {});
        let ended = false;
        const finish = (code: number | null, signal: string | null) => {
          if (ended) return;
          ended = true;
          children.delete(child);
          const own = attemptsOf(host.out, task.id)
            .filter((a) => a.attempt > before && a.result)
            .map((a) => a.result!);
          const lost = recordLostAttempts(
            host.out,
            task.id,
            before,
            `${describeExit(code, signal)}${tail.trim() ? ` (${tail.trim().split("\n").at(-1)})` : ""}`,
            "local",
            true,
          );
          let again = false;
          for (const r of [...own, ...lost]) again = host.finished(r) || again;
          if (again) queue.unshift(index);
          next();
        };
        child.on("error", (e) => {
          tail += e.message;
          finish(127, null);
        });
        // "exit", not "close": a process the task left behind holding the stderr pipe must not hold up the pool.
        child.on("exit", finish);
      };
      next();
    });
  } finally {
    host.cancel.removeEventListener("abort", onCancel);
  }
}
