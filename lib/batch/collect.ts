/**
 * `gong batch collect DIR` rebuilds `results.jsonl` and `summary.json` from the result files alone;
 * `gong batch export DIR --format swebench` writes SWE-bench predictions.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { collectReport, type BatchReport } from "./batch.ts";
import { attemptsOf, readTasksSnapshot, tasksSnapshot, writeFileAtomic, writeJsonAtomic } from "./layout.ts";

export function rebuildResults(out: string): BatchReport {
  const tasks = readTasksSnapshot(tasksSnapshot(out));
  const all = tasks.flatMap((t) => attemptsOf(out, t.id).flatMap((a) => (a.result ? [a.result] : [])));
  // In the order they finished, as the runner appended them.
  all.sort((a, b) => a.finished_at.localeCompare(b.finished_at));
  writeFileAtomic(join(out, "results.jsonl"), all.map((r) => `${JSON.stringify(r)}\n`).join(""));
  const report = collectReport(out);
  writeJsonAtomic(join(out, "summary.json"), report.summary);
  return report;
}

/**
 * SWE-bench predictions, one line per task in task order: `instance_id`, `model_name_or_path`,
 * `model_patch` (the last attempt's patch; empty when there is none).
 */
export function exportSwebench(out: string): string {
  const tasks = readTasksSnapshot(tasksSnapshot(out));
  return tasks
    .map((task) => {
      const last = attemptsOf(out, task.id).at(-1)?.result;
      let patch = "";
      if (last?.patch_file) {
        try {
          patch = readFileSync(last.patch_file, "utf8");
        } catch {
          patch = "";
        }
      }
      return `${JSON.stringify({ instance_id: task.id, model_name_or_path: last?.model ?? task.model ?? "gong", model_patch: patch })}\n`;
    })
    .join("");
}
