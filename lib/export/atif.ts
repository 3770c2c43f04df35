/**
 * ATIF, the Agent Trajectory Interchange Format Harbor and Terminal-Bench read (field names and
 * rules from Harbor's `harbor.models.trajectories`, schema ATIF-v1.7): one step per user input,
 * model call or note from gong, step ids from 1, a model call's tool calls with their results as
 * its observation, token counts and cost per step and in total. Written as it is read: the steps
 * go out one by one and the totals come last.
 */
import type { Usage } from "../llm/types.ts";
import { VERSION } from "../version.ts";
import { ExportError, type ExportSource } from "./source.ts";
import { transcriptOf, type TranscriptItem } from "./transcript.ts";

export const ATIF_VERSION = "ATIF-v1.7";

interface Totals {
  prompt: number;
  completion: number;
  cached: number;
  cost: number;
  steps: number;
  model?: string;
}

export function* atifChunks(source: ExportSource): Generator<string> {
  const items = transcriptOf(source.branch());
  let next = items.next();
  if (next.done) throw new ExportError(`Session ${source.header.id} has no conversation to export as ATIF.`);
  const totals: Totals = { prompt: 0, completion: 0, cached: 0, cost: 0, steps: 0 };
  yield `{\n  "schema_version": ${JSON.stringify(ATIF_VERSION)},\n  "session_id": ${JSON.stringify(source.header.id)},\n  "steps": [`;
  for (; !next.done; next = items.next()) {
    totals.steps++;
    const step = atifStep(next.value, totals);
    yield `${totals.steps > 1 ? "," : ""}\n    ${JSON.stringify(step, null, 2).replaceAll("\n", "\n    ")}`;
  }
  const agent = { name: "gong", version: VERSION, ...(totals.model ? { model_name: totals.model } : {}) };
  const finalMetrics = {
    total_prompt_tokens: totals.prompt,
    total_completion_tokens: totals.completion,
    total_cached_tokens: totals.cached,
    total_cost_usd: totals.cost,
    total_steps: totals.steps,
  };
  const extra = {
    cwd: source.header.cwd,
    started: source.header.timestamp,
    ...(source.name ? { name: source.name } : {}),
    ...(source.path ? { session_file: source.path } : {}),
    ...(source.header.parentSession ? { parent_session: source.header.parentSession } : {}),
  };
  const tail = { agent, final_metrics: finalMetrics, extra };
  yield `\n  ],\n${JSON.stringify(tail, null, 2).slice(2)}\n`;
}

function atifStep(item: TranscriptItem, totals: Totals): Record<string, unknown> {
  const base = { step_id: totals.steps, ...(item.timestamp ? { timestamp: item.timestamp } : {}) };
  switch (item.kind) {
    case "user":
      return {
        ...base,
        source: "user",
        message: withImages(item.text, item.images),
        ...(item.steering ? { extra: { steering: true } } : {}),
      };
    case "system":
      return {
        ...base,
        source: "system",
        message: SYSTEM_MESSAGES[item.what],
        // A result whose call is not on this branch is kept, unlinked (its id names no call of this step).
        observation: {
          results: [{ content: item.text, ...(item.callId ? { extra: { tool_call_id: item.callId } } : {}) }],
        },
      };
    case "agent": {
      totals.model ??= item.model;
      const results = item.calls.filter((c) => c.result);
      return {
        ...base,
        source: "agent",
        ...(item.model ? { model_name: item.model } : {}),
        ...(item.reasoningEffort ? { reasoning_effort: item.reasoningEffort } : {}),
        message: item.text,
        ...(item.reasoning ? { reasoning_content: item.reasoning } : {}),
        ...(item.calls.length
          ? {
              tool_calls: item.calls.map((c) => ({
                tool_call_id: c.id,
                function_name: c.name,
                arguments: c.arguments,
              })),
            }
          : {}),
        ...(results.length
          ? {
              observation: {
                results: results.map((c) => ({
                  source_call_id: c.id,
                  content: withImages(c.result!.text, c.result!.images),
                  ...(c.result!.isError ? { extra: { is_error: true } } : {}),
                })),
              },
            }
          : {}),
        ...(item.usage ? { metrics: metricsOf(item.usage, totals) } : {}),
        llm_call_count: 1,
        ...(item.finishReason || item.error
          ? {
              extra: {
                ...(item.finishReason ? { stop_reason: item.finishReason } : {}),
                ...(item.error ? { error: item.error } : {}),
              },
            }
          : {}),
      };
    }
  }
}

const SYSTEM_MESSAGES = {
  compaction: "The earlier conversation was compacted into this summary.",
  branch_summary: "Summary of a branch of the conversation that was left.",
  loop_detection: "gong saw the same tool calls repeating and warned the model.",
  tool_result: "The result of a tool call that is not on this branch of the conversation.",
};

/** ATIF counts prompt tokens with the cached ones; gong keeps them apart. */
function metricsOf(usage: Usage, totals: Totals): Record<string, unknown> {
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite;
  totals.prompt += prompt;
  totals.completion += usage.output;
  totals.cached += usage.cacheRead;
  totals.cost += usage.cost;
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.output,
    cached_tokens: usage.cacheRead,
    cost_usd: usage.cost,
    extra: { cache_write_tokens: usage.cacheWrite, reasoning_tokens: usage.reasoning },
  };
}

function withImages(text: string, images: number): string {
  if (images === 0) return text;
  const note = `[${images} image${images === 1 ? "" : "s"} not included]`;
  return text ? `${text}\n${note}` : note;
}
