/** The SDK's runBatch(tasks, options): the same batch as the CLI, with progress events for scripts. */
import { expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { runBatch, type BatchEvent } from "../../mod.ts";
import { useWorkspace } from "../cli/helpers.ts";
import { fakeModel, readResults, THREE_TURNS } from "./helpers.ts";

const ws = useWorkspace();

test("runBatch(tasks, options) runs the tasks and reports progress events; a bad task is a problem event, the rest run", async () => {
  mkdirSync(join(ws.dir, "project"));
  const model = fakeModel(ws.dir, "three", THREE_TURNS);
  const events: BatchEvent[] = [];
  const report = await runBatch(
    [{ id: "a", prompt: "go" }, { id: "b", prompt: "go" }, { id: "c" }, { id: "d", prompt: "go" }],
    {
      out: join(ws.dir, "out"),
      workers: 2,
      cwd: join(ws.dir, "project"),
      defaults: { model },
      env: ws.env,
      onEvent: (e) => events.push(e),
    },
  );
  expect(report.problems).toEqual([{ line: 3, id: "c", problem: "missing 'prompt' (a non-empty string)" }]);
  expect(events.filter((e) => e.type === "problem")).toHaveLength(1);
  expect(report.results.map((r) => r?.status)).toEqual(["done", "done", "done"]);
  expect(report.summary.counts.done).toBe(3);
  const finished = events.flatMap((e) => (e.type === "finished" ? [e.result.id] : []));
  expect(finished.sort()).toEqual(["a", "b", "d"]);
  const done = events.flatMap((e) => (e.type === "progress" ? [e.progress.done] : []));
  expect(done.at(-1)).toBe(3);
  expect(done.every((n, i) => i === 0 || n >= done[i - 1])).toBe(true);
  expect(Math.max(...events.flatMap((e) => (e.type === "progress" ? [e.progress.running] : [])))).toBeLessThanOrEqual(
    2,
  );
  expect(readResults(join(ws.dir, "out"))).toHaveLength(3);
});
