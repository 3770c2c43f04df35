/**
 * Limits that hold: the per-task cost cap (checked before every model call, `gong -p --max-cost-usd`
 * too) and the batch's total cap, against the fake server speaking the Anthropic API for a priced
 * model (claude-haiku-4-5: $1 per million input tokens, so a 100k-token call costs $0.10).
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { startFakeLlm, useWorkspace } from "../cli/helpers.ts";
import type { RecordedRequest, ScriptTurn } from "../../lib/testing/fake-llm/types.ts";
import { readSummary, resultOf, writeTasks } from "./helpers.ts";

const ws = useWorkspace();
const MODEL = "anthropic/claude-haiku-4-5";

/** "endless" prompts always call a tool; "short" ones answer after one tool call. Each call uses 100k input tokens. */
function script(request: RecordedRequest): ScriptTurn {
  const messages = request.body.messages as Array<{ role: string }>;
  const assistantTurns = messages.filter((m) => m.role === "assistant").length;
  const endless = JSON.stringify(messages[0]).includes("endless");
  const usage = { input: 100_000, output: 10 };
  if (endless || assistantTurns === 0)
    return { toolCalls: [{ name: "bash", arguments: { command: "echo step" } }], usage };
  return { text: "Finished.", usage };
}

const promptOf = (r: RecordedRequest) => JSON.stringify((r.body.messages as unknown[])[0]);

async function fakeEnv() {
  const fake = await startFakeLlm({ script });
  return { fake, env: { ANTHROPIC_BASE_URL: fake.baseUrls.anthropic, ANTHROPIC_API_KEY: "test" } };
}

describe("cost caps", () => {
  test("gong -p --max-cost-usd stops before the model call that would pass the cap (stop_reason max_cost)", async () => {
    const { fake, env } = await fakeEnv();
    const r = await ws.run(
      [
        "-p",
        "--output-format",
        "json",
        "--model",
        MODEL,
        "--profile",
        "default",
        "--max-cost-usd",
        "0.25",
        "endless work",
      ],
      { env },
    );
    expect(r.code).toBe(1);
    const result = JSON.parse(r.stdout);
    expect(result.stop_reason).toBe("max_cost");
    expect(result.is_error).toBe(true);
    // $0.10, $0.20, $0.30: the third call passed the cap, so no fourth call was made.
    expect(result.turns).toBe(3);
    expect(fake.requests).toHaveLength(3);
    expect(r.stderr).toContain("cost cap");
  });

  test("the per-task cost cap ends the task as failed at its next model call", async () => {
    const { fake, env } = await fakeEnv();
    mkdirSync(join(ws.dir, "project"));
    writeTasks(join(ws.dir, "tasks.jsonl"), [
      { id: "capped", prompt: "endless work", workdir: "project", limits: { max_cost_usd: 0.15 } },
      { id: "fine", prompt: "short work", workdir: "project" },
    ]);
    const r = await ws.run(["batch", "tasks.jsonl", "--out", "out", "--model", MODEL, "--profile", "default"], { env });
    expect(r.code).toBe(1);
    const capped = resultOf(join(ws.dir, "out"), "capped", 1)!;
    expect(capped.status).toBe("failed");
    expect(capped.stop_reason).toBe("max_cost");
    expect(capped.turns).toBe(2);
    expect(fake.requests.filter((q) => promptOf(q).includes("endless"))).toHaveLength(2);
    expect(resultOf(join(ws.dir, "out"), "fine", 1)!.status).toBe("done");
    expect(r.stderr).toContain("task capped (attempt 1): failed");
  });

  test("the batch's total cost cap stops launching new tasks; the rest are skipped and run on a later resume", async () => {
    const { env } = await fakeEnv();
    mkdirSync(join(ws.dir, "project"));
    writeTasks(
      join(ws.dir, "tasks.jsonl"),
      ["a", "b", "c", "d"].map((id) => ({ id, prompt: "short work", workdir: "project" })),
    );
    // Each task costs $0.20 (two calls); one at a time, the cap of $0.30 is passed by the second.
    const r = await ws.run(
      [
        "batch",
        "tasks.jsonl",
        "--out",
        "out",
        "--workers",
        "1",
        "--max-total-cost-usd",
        "0.3",
        "--model",
        MODEL,
        "--profile",
        "default",
      ],
      { env },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("no new tasks start: the batch's cost cap ($0.3) was reached");
    const summary = readSummary(join(ws.dir, "out"));
    expect(summary.counts.done).toBe(2);
    expect(summary.counts.skipped).toBe(2);
    expect(summary.cost_usd).toBeCloseTo(0.4, 3);
    expect(resultOf(join(ws.dir, "out"), "c", 1)).toBeUndefined();
    const resumed = await ws.run(
      ["batch", "tasks.jsonl", "--out", "out", "--workers", "1", "--model", MODEL, "--profile", "default"],
      { env },
    );
    expect(resumed.code).toBe(0);
    expect(readSummary(join(ws.dir, "out")).counts.done).toBe(4);
  });
});
