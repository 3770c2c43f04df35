/**
 * The tool execution pipeline (docs/conformance.md: 004 §3.8; ARCHITECTURE.md, the flow of one
 * prompt): lookup → validate (the registry) → beforeToolCall gate → execute with an abort signal →
 * onToolResult pipe → framework truncation → tool result message. The tool writes its output to the
 * call's capture (bounded memory, one spill file); `tool_call_end` carries the complete envelope up
 * to the event limit, the model gets the framework's cut. Nothing here throws: every failure is an
 * error result the model can recover from.
 */
import { startReply, type ErrorCode, type ImageData, type ToolResponse } from "../envelope.ts";
import type { Observed, Observer } from "../output/policy.ts";
import type { OutputCapture } from "../output/capture.ts";
import type { ToolCallPart, ToolResultMessage, UserPart } from "../llm/types.ts";
import type { ToolRegistry } from "../../tools/registry.ts";
import { describeCall, filesOf, kindOf, summarizeResult } from "../../tools/metadata.ts";
import { planOf } from "../../tools/plan.ts";
import type { Toolset } from "./toolset.ts";
import type { Tool } from "../../tools/types.ts";
import type { UserChannel } from "../../tools/user-channel.ts";
import type { HookRunner } from "./hooks.ts";
import type { Emit } from "./vocabulary.ts";

export const SKIPPED_MESSAGE = "Skipped due to queued user message";
export const ABORTED_MESSAGE = "Tool call aborted: the input was stopped.";

export interface ToolExecutionContext {
  /** Runs the calls (the one error boundary). */
  registry: ToolRegistry;
  /** The active tools of this round, with their limits and the names the truncation notice uses. */
  toolset: Toolset;
  hooks: HookRunner;
  observer: Observer;
  emit: Emit;
  parallel: boolean;
  /** Aborted when the whole session is aborted. */
  signal: AbortSignal;
  /** The session's input queues: once a steering message waits, the calls not yet started are skipped. */
  queues: { readonly hasSteering: boolean };
  /** Controllers of the calls running right now; steering aborts them. */
  running: Set<AbortController>;
  /** The signal that moves a running command to the background (the user's Ctrl-B), for the calls starting now. */
  background?: () => AbortSignal;
  /** Timeout for shell commands that give none (session config, else the profile's default). */
  commandTimeoutMs?: number;
  /** The person the tools may ask; absent: no one can be asked. */
  user?: UserChannel;
}

export interface ExecutedCall {
  call: ToolCallPart;
  /** The full envelope (after hooks, before truncation). */
  response: ToolResponse;
  message: ToolResultMessage;
}

/**
 * Runs the calls of one assistant message; results come back in the calls' order. Without parallel
 * calls they run one after another. With them (the profile allows it: the model sends the calls of
 * one turn as independent) they start together, except that a call of kind "modify" waits for the
 * calls before it and the calls after it wait for it — a command that runs a file written in the
 * same turn sees the file, a read issued before an edit sees the old text. Either way a call not
 * yet started when steering arrives or the session is aborted is answered without running, and
 * each call passes the beforeToolCall gate on its own. A plan tool's new plan is told last
 * (`plan_update`; the recorder keeps and stores it).
 */
export async function executeToolCalls(ctx: ToolExecutionContext, calls: ToolCallPart[]): Promise<ExecutedCall[]> {
  const results: ExecutedCall[] = [];
  if (ctx.parallel && calls.length > 1) results.push(...(await Promise.all(inParallel(ctx, calls))));
  else for (const call of calls) results.push(await runOrSkip(ctx, call));
  for (const result of results) {
    // A plan tool (of whatever name) says what it is through its kind and returns the plan in data.
    const plan =
      result.message.kind === "plan" && result.response.status !== "error"
        ? planOf(result.response.data.plan)
        : undefined;
    if (plan)
      ctx.emit("plan_update", { ...structuredClone(plan), call_id: result.call.id, tool_name: result.call.name });
  }
  return results;
}

/**
 * The loop's `executeTools`: runs each round's calls with the context in force when the round
 * starts (the current Toolset, the running input's signal).
 */
export function toolRunner(context: () => ToolExecutionContext): (calls: ToolCallPart[]) => Promise<ExecutedCall[]> {
  return (calls) => executeToolCalls(context(), calls);
}

function inParallel(ctx: ToolExecutionContext, calls: ToolCallPart[]): Promise<ExecutedCall>[] {
  const started: Promise<ExecutedCall>[] = [];
  /** The last modifying call (or nothing): every later call starts after it. */
  let barrier: Promise<unknown> = Promise.resolve();
  /** Calls started since that barrier: the next modifying call waits for them. */
  let sinceBarrier: Promise<unknown>[] = [];
  for (const call of calls) {
    if (kindOf(toolFor(ctx, call.name)) === "modify") {
      const run = Promise.all([barrier, ...sinceBarrier]).then(() => runOrSkip(ctx, call));
      barrier = run;
      sinceBarrier = [];
      started.push(run);
    } else {
      const run = barrier.then(() => runOrSkip(ctx, call));
      sinceBarrier.push(run);
      started.push(run);
    }
  }
  return started;
}

async function runOrSkip(ctx: ToolExecutionContext, call: ToolCallPart): Promise<ExecutedCall> {
  const reason = notStarting(ctx);
  return reason ? finish(ctx, call, refusal(call, "EXECUTION_ERROR", reason), false) : executeOne(ctx, call);
}

/** Why a call that has not started must not start now, if it must not. */
function notStarting(ctx: ToolExecutionContext): string | undefined {
  if (ctx.signal.aborted) return ABORTED_MESSAGE;
  if (ctx.queues.hasSteering) return SKIPPED_MESSAGE;
  return undefined;
}

/** The active tool a call names, if any. */
function toolFor(ctx: ToolExecutionContext, name: string): Tool | undefined {
  return ctx.toolset.callable(name);
}

function emitStart(ctx: ToolExecutionContext, call: ToolCallPart, tool: Tool | undefined): void {
  ctx.emit("tool_call_start", {
    call_id: call.id,
    tool_name: call.name,
    arguments: call.arguments,
    ...describeCall(tool, call.arguments),
  });
}

async function executeOne(ctx: ToolExecutionContext, call: ToolCallPart): Promise<ExecutedCall> {
  const tool = toolFor(ctx, call.name);
  emitStart(ctx, call, tool);
  // A cut-off call is never run on repaired arguments: the model hears why and can retry smaller.
  if (call.invalidArguments) return finish(ctx, call, refusal(call, "INVALID_PARAM", cutOffMessage(call)), true);
  // An unknown tool is the registry's to answer (below); only a call to a real tool asks the gates.
  const gate = tool
    ? await ctx.hooks.beforeToolCall(call.name, call.arguments, { id: call.id, tool, env: ctx.registry.env })
    : null;
  if (gate) return finish(ctx, call, refusal(call, "PERMISSION_DENIED", `Tool call blocked: ${gate.block}`), true);
  // The gate may take a while (a host asking its user): steering or an abort meanwhile wins.
  const late = notStarting(ctx);
  if (late) return finish(ctx, call, refusal(call, "EXECUTION_ERROR", late), true);

  const controller = new AbortController();
  const onAbort = () => controller.abort(ctx.signal.reason);
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  ctx.running.add(controller);
  const capture = ctx.observer.capture(call.name);
  let response: ToolResponse;
  try {
    // The registry never throws: unknown tools, bad arguments and failing tools come back as envelopes.
    response = await ctx.registry.execute(call.name, call.arguments, {
      tools: ctx.toolset,
      signal: controller.signal,
      background: ctx.background?.(),
      callId: call.id,
      output: capture,
      commandTimeoutMs: ctx.commandTimeoutMs,
      user: ctx.user,
      onUpdate: (text: string) =>
        ctx.emit("tool_call_output_delta", { call_id: call.id, tool_name: call.name, delta: text }),
      onProgress: (p) => ctx.emit("tool_call_progress", { call_id: call.id, tool_name: call.name, ...p }),
    });
  } finally {
    ctx.running.delete(controller);
    ctx.signal.removeEventListener("abort", onAbort);
  }
  response = await ctx.hooks.onToolResult(call.name, response, call.arguments);
  return finish(ctx, call, response, true, capture);
}

/** Cuts for the model, emits tool_call_end with the complete envelope (up to the event limit), builds the result message. */
async function finish(
  ctx: ToolExecutionContext,
  call: ToolCallPart,
  full: ToolResponse,
  started: boolean,
  capture?: OutputCapture,
): Promise<ExecutedCall> {
  const entry = ctx.toolset.entry(call.name);
  const tool = entry?.tool;
  if (!started) emitStart(ctx, call, tool);
  const untouched: Observed = {
    forModel: full,
    forEvent: full,
    truncated: false,
    complete: true,
    fullOutputPath: null,
  };
  const seen = await ctx.observer
    .observe(call.name, full, {
      direction: tool?.truncation,
      capture,
      limits: entry?.limits ?? {},
      subagentToolName: ctx.toolset.subagentToolName,
      pagingHint: ctx.toolset.pagingHint,
      shellToolName: ctx.toolset.shellToolName,
    })
    .catch(() => untouched);
  const isError = full.status === "error";
  const described = describeCall(tool, call.arguments);
  ctx.emit("tool_call_end", {
    call_id: call.id,
    tool_name: call.name,
    output: seen.forEvent,
    is_error: isError,
    truncated: seen.truncated,
    output_complete: seen.complete,
    full_output_path: seen.fullOutputPath,
    ...described,
    result_summary: summarizeResult(tool, full),
  });
  const message = resultMessage(call, seen.forModel, isError);
  message.kind = described.kind;
  if (described.kind === "read" || described.kind === "modify") {
    const files = isError ? [] : filesOf(tool, full);
    if (files.length > 0) message.files = files;
  }
  return { call, response: seen.forEvent, message };
}

function resultMessage(call: ToolCallPart, seen: ToolResponse, isError: boolean): ToolResultMessage {
  const images = Array.isArray(seen.data?.images) ? (seen.data.images as ImageData[]) : [];
  const text = typeof seen.text === "string" ? seen.text : String(seen.text);
  const content: string | UserPart[] =
    images.length === 0
      ? text
      : [
          { type: "text", text },
          ...images.map((img) => ({ type: "image" as const, mimeType: img.mimeType, data: img.data })),
        ];
  return { role: "tool", toolCallId: call.id, toolName: call.name, content, isError, timestamp: Date.now() };
}

export function cutOffMessage(call: ToolCallPart): string {
  if (call.nonObjectArguments) {
    // Complete, but the wrong shape: nothing was cut, so "smaller" would be the wrong advice.
    return (
      `Tool call '${call.name}' was not run: its arguments are a complete JSON ${call.nonObjectArguments}, not an object. ` +
      `Send the arguments as one JSON object naming each parameter, e.g. {"name": value, …}, as the tool's schema lists them.`
    );
  }
  return (
    `Tool call '${call.name}' was not run because it was cut off: ${call.invalidArguments}. ` +
    "Send it again, smaller: split long content over several calls (write the first part, then add the rest with edits)."
  );
}

function refusal(call: ToolCallPart, code: ErrorCode, message: string): ToolResponse {
  return startReply(call.arguments).fail(code, message);
}
