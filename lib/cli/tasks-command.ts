/**
 * `/tasks`: the commands running in the background — moved there with Ctrl-B, or started so by the
 * model — with their state and time; `/tasks ID` shows a task's last output, `/tasks stop ID`
 * stops it (and every process it started).
 */
import type { ProcessTable } from "../../tools/processes.ts";
import { formatSeconds } from "./live-line.ts";
import type { Style } from "./render.ts";

/** Lines of a task's output shown by `/tasks ID`. */
const SHOWN_LINES = 40;

export async function tasksCommand(arg: string, table: ProcessTable, style: Style): Promise<string> {
  const [first, second] = arg.split(/\s+/).filter(Boolean);
  const list = table.list();
  if (!first) {
    if (list.length === 0)
      return "no background tasks (Ctrl-B moves a running command there; the model can start one too).\n";
    const rows = list.map((p) => {
      const state = !p.result
        ? style.cyan("running")
        : p.result.exitCode === 0
          ? style.green("exit 0")
          : style.red(p.result.exitCode !== null ? `exit ${p.result.exitCode}` : "stopped");
      const took = formatSeconds(
        Math.round(((p.result ? p.startedAt + p.result.durationMs : Date.now()) - p.startedAt) / 1000),
      );
      return `  ${String(p.id).padEnd(6)} ${state} ${style.dim(took.padStart(5))}  ${p.command.split("\n")[0]}`;
    });
    return `${rows.join("\n")}\n${style.dim("/tasks ID shows a task's output; /tasks stop ID stops it")}\n`;
  }
  const stop = first === "stop";
  const id = Number(stop ? second : first);
  const task = Number.isInteger(id) ? table.get(id) : undefined;
  if (!task)
    return `no background task ${stop ? (second ?? "") : first}${list.length ? ` (there are ${list.map((p) => p.id).join(", ")})` : ""}.\n`;
  if (stop) {
    if (task.result) return `task ${id} has already ended.\n`;
    await table.kill(id);
    return `stopped task ${id} (${task.command.split("\n")[0]})\n`;
  }
  const tail = table.tail(id, SHOWN_LINES);
  const earlier = tail.totalLines - tail.lines;
  const state = task.result
    ? `ended (${task.result.exitCode !== null ? `exit ${task.result.exitCode}` : "stopped"})`
    : "running";
  return `${style.bold(`task ${id}`)} ${style.dim(`· ${state} · ${task.command.split("\n")[0]}`)}\n${earlier > 0 ? `${style.dim(`  … ${earlier} earlier lines`)}\n` : ""}${
    tail.text
      ? `${tail.text
          .split("\n")
          .map((l) => `  ${l}`)
          .join("\n")}\n`
      : style.dim("  (no output yet)\n")
  }`;
}
