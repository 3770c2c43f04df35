/** Shared pieces of the batch tests: scripted tasks, tasks files, reading an out directory. */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import type { AttemptResult, Summary } from "../../lib/batch/result.ts";
import type { ScriptTurn } from "../../lib/testing/fake-llm/types.ts";
import { until } from "../helpers/wait.ts";

/** Writes a fake-model script and returns its `--model` value (absolute, as run-one's cwd differs). */
export function fakeModel(dir: string, name: string, turns: ScriptTurn[]): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(turns));
  return `fake/${path}`;
}

/** A scripted turn that runs one bash command. */
export const bashTurn = (command: string): ScriptTurn => ({ toolCalls: [{ name: "bash", arguments: { command } }] });

/** Three turns: write a file named after the task, list it, answer. */
export const THREE_TURNS: ScriptTurn[] = [
  {
    text: "Writing the file.",
    toolCalls: [
      { name: "bash", arguments: { command: 'printf "%s\\n" "$GONG_BATCH_TASK_ID" > "out-$GONG_BATCH_TASK_ID.txt"' } },
    ],
  },
  { text: "Checking it.", toolCalls: [{ name: "bash", arguments: { command: 'cat "out-$GONG_BATCH_TASK_ID.txt"' } }] },
  { text: "Done." },
];

export function writeTasks(path: string, tasks: Array<Record<string, unknown> | string>): string {
  writeFileSync(path, `${tasks.map((t) => (typeof t === "string" ? t : JSON.stringify(t))).join("\n")}\n`);
  return path;
}

export function readResults(out: string): AttemptResult[] {
  const file = join(out, "results.jsonl");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AttemptResult);
}

export const readSummary = (out: string) => JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as Summary;

export function resultOf(out: string, id: string, attempt: number): AttemptResult | undefined {
  const file = join(out, "tasks", id, `attempt-${attempt}`, "result.json");
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as AttemptResult) : undefined;
}

export function attemptCount(out: string, id: string): number {
  const dir = join(out, "tasks", id);
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith("attempt-")).length : 0;
}

/** Waits for a condition with a generous bound; never a fixed sleep standing in for it. */
export async function waitFor(what: string, check: () => boolean, boundMs = 30_000): Promise<void> {
  await until(check, what, boundMs);
}

/** True while `pid` runs; a zombie (killed, not yet reaped) counts as dead. */
export { alive } from "../agent/harness.ts";

export function gitRepo(dir: string, files: Record<string, string>): string {
  const git = (...args: string[]) => {
    const r = spawnSync("git", args, { cwd: dir, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
    return r.stdout.trim();
  };
  git("init", "-q", "-b", "main");
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  git("add", "-A");
  git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "base");
  return git("rev-parse", "HEAD");
}
