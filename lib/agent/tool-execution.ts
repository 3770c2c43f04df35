/**
 * The tool execution pipeline (004 §3.8, DESIGN "flow of one input"): lookup → validate (the
 * registry) → beforeToolCall gate → execute with an abort signal → onToolResult pipe →
 * framework truncation → tool result message. `tool_call_end` carries the full envelope; the
 * model gets the truncated text. Nothing here throws: every failure is an error result the
 * model can recover from.
 */
import { startReply, type ErrorCode, type ImageData, type ToolResponse } from "../envelope.ts";
import type { Observer } from "../observe.ts";
import type { ToolCallPart, ToolResultMessage, UserPart } from "../llm/types.ts";
import type { ToolRegistry } from "../../tools/registry.ts";
import type { TruncationDirection } from "../../tools/types.ts";
import type { EventBus } from "./events.ts";
import type { HookRunner } from "./hooks.ts";

export const SKIPPED_MESSAGE = "Skipped due to queued user message";
export const ABORTED_MESSAGE = "Tool call aborted: the session was stopped.";

export interface ToolExecutionContext {
  registry: ToolRegistry;
  hooks: HookRunner;
  observer: Observer;
  bus: EventBus;
  parallel: boolean;
  /** Aborted when the whole session is aborted. */
  signal: AbortSignal;
  /** True once a steering message is waiting: the calls not yet started are skipped. */
  steeringPending(): boolean;
  /** Controllers of the calls running right now; steering aborts them. */
  running: Set<AbortController>;
  hasSubagentTool: boolean;
}

export interface ExecutedCall {
  call: ToolCallPart;
  /** The full envelope (after hooks, before truncation). */
  response: ToolResponse;
  message: ToolResultMessage;
}

/** Runs the calls of one assistant message; results come back in the calls' order. */
export async function executeToolCalls(ctx: ToolExecutionContext, calls: ToolCallPart[]): Promise<ExecutedCall[]> {
  if (ctx.parallel && calls.length > 1) return Promise.all(calls.map((call) => executeOne(ctx, call)));
  const results: ExecutedCall[] = [];
  for (const call of calls) {
    if (ctx.signal.aborted) results.push(await finish(ctx, call, refusal(call, "EXECUTION_ERROR", ABORTED_MESSAGE), false));
    else if (ctx.steeringPending()) results.push(await finish(ctx, call, refusal(call, "EXECUTION_ERROR", SKIPPED_MESSAGE), false));
    else results.push(await executeOne(ctx, call));
  }
  return results;
}

async function executeOne(ctx: ToolExecutionContext, call: ToolCallPart): Promise<ExecutedCall> {
  ctx.bus.emit("tool_call_start", { call_id: call.id, tool_name: call.name, arguments: call.arguments });
  const tool = ctx.registry.names().includes(call.name) ? ctx.registry.get(call.name) : undefined;
  if (!tool) {
    const known = ctx.registry.names().join(", ") || "none";
    return finish(ctx, call, refusal(call, "NOT_FOUND", `Unknown tool '${call.name}'. Available tools: ${known}.`), true);
  }
  const gate = await ctx.hooks.beforeToolCall(call.name, call.arguments);
  if (gate) return finish(ctx, call, refusal(call, "PERMISSION_DENIED", `Tool call blocked: ${gate.block}`), true);

  const controller = new AbortController();
  const onAbort = () => controller.abort(ctx.signal.reason);
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  ctx.running.add(controller);
  let response: ToolResponse;
  try {
    response = await ctx.registry.execute(call.name, call.arguments, {
      signal: controller.signal,
      onUpdate: (text: string) => ctx.bus.emit("tool_call_output_delta", { call_id: call.id, tool_name: call.name, delta: text }),
      onProgress: (p) => ctx.bus.emit("tool_call_progress", { call_id: call.id, tool_name: call.name, ...p }),
    });
    if (!isEnvelope(response)) throw new Error(`tool '${call.name}' returned no result envelope`);
  } catch (e) {
    response = startReply(call.arguments).fromError(e);
    response.text = `Tool error (${call.name}): ${response.error?.message ?? String(e)}`;
  } finally {
    ctx.running.delete(controller);
    ctx.signal.removeEventListener("abort", onAbort);
  }
  response = await ctx.hooks.onToolResult(call.name, response);
  return finish(ctx, call, response, true, tool.truncation);
}

/** Truncates for the model, emits tool_call_end with the full envelope, builds the result message. */
async function finish(
  ctx: ToolExecutionContext,
  call: ToolCallPart,
  full: ToolResponse,
  started: boolean,
  direction?: TruncationDirection,
): Promise<ExecutedCall> {
  if (!started) ctx.bus.emit("tool_call_start", { call_id: call.id, tool_name: call.name, arguments: call.arguments });
  const seen = await ctx.observer.observe(call.name, full, { direction, hasSubagentTool: ctx.hasSubagentTool }).catch(() => full);
  const isError = full.status === "error";
  ctx.bus.emit("tool_call_end", { call_id: call.id, tool_name: call.name, output: full, is_error: isError, truncated: seen !== full });
  return { call, response: full, message: resultMessage(call, seen, isError) };
}

function resultMessage(call: ToolCallPart, seen: ToolResponse, isError: boolean): ToolResultMessage {
  const images = Array.isArray(seen.data?.images) ? (seen.data.images as ImageData[]) : [];
  const text = typeof seen.text === "string" ? seen.text : String(seen.text);
  const content: string | UserPart[] =
    images.length === 0 ? text : [{ type: "text", text }, ...images.map((img) => ({ type: "image" as const, mimeType: img.mimeType, data: img.data }))];
  return { role: "tool", toolCallId: call.id, toolName: call.name, content, isError, timestamp: Date.now() };
}

function refusal(call: ToolCallPart, code: ErrorCode, message: string): ToolResponse {
  return startReply(call.arguments).fail(code, message);
}

function isEnvelope(value: unknown): value is ToolResponse {
  return typeof value === "object" && value !== null && typeof (value as ToolResponse).status === "string" && "text" in value;
}
