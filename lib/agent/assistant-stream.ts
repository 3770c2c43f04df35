/**
 * One model call, streamed (docs/conformance.md: 003 §2.4): the client's message so far —
 * accumulated once, by the client, and carried on its events — sits at the end of the history while
 * the answer arrives (message_start → message_update … → message_end, each carrying that one
 * message) and is replaced by the final message. If the stream breaks or is aborted, a partial
 * message with text is kept; an empty one is dropped. A call the provider had begun answering was
 * billed even if it broke off: its usage, estimated, goes on the outcome (and on the kept message),
 * so an interrupted answer is counted in the totals and the context.
 */
import type { CallDescription } from "../../tools/metadata.ts";
import { getModel } from "../llm/catalog.ts";
import { LlmError } from "../llm/errors.ts";
import {
  textOf,
  type AssistantMessage,
  type AssistantPart,
  type LlmClient,
  type Message,
  type Request,
  type Response,
  type Usage,
} from "../llm/types.ts";
import { usageWithCost } from "../llm/usage.ts";
import { estimateTokens, textTokens } from "./compaction/tokens.ts";
import type { Emit, StreamError } from "./vocabulary.ts";

export interface StreamOutcome {
  /** The final message, the kept partial one, or null when nothing worth keeping arrived. */
  message: AssistantMessage | null;
  response?: Response;
  error?: StreamError;
  /** A call that broke off after the provider began answering: what it is estimated to have used. */
  usage?: Usage;
  /** Where the error came from, for --verbose (kept out of `error`, which events and results carry). */
  stack?: string;
}

/** What describes a call as it streams in: the Toolset the request was built from. */
export interface CallDescriber {
  /** The kind and one-line summary of a call, from the tool's own metadata. */
  describe(name: string, args: unknown): CallDescription;
}

export async function streamAssistant(
  client: LlmClient,
  request: Request,
  signal: AbortSignal,
  emit: Emit,
  history: Message[],
  tools: CallDescriber,
): Promise<StreamOutcome> {
  /** The client's message so far (carried on its events), in the history while the answer arrives. */
  let shown: AssistantMessage | null = null;
  let textStarted = false;
  /** Tool names of the calls being streamed: the argument deltas do not repeat them. */
  const callNames = new Map<string, string>();
  const show = (message: AssistantMessage) => {
    if (shown) return;
    shown = message;
    history.push(message);
    emit("message_start", { message });
  };
  /** Puts `message` where the shown one was (or removes that when null). */
  const settle = (message: AssistantMessage | null) => {
    const at = shown ? history.lastIndexOf(shown) : -1;
    if (at >= 0) {
      if (message) history[at] = message;
      else history.splice(at, 1);
    } else if (message) history.push(message);
    if (message) emit("message_end", { message });
    return message;
  };
  const fail = (error: StreamError, partial?: AssistantMessage, stack?: string): StreamOutcome => {
    const streamed = partial ?? shown;
    // Before the provider's first event nothing was answered (the connection failed, the key was refused).
    const usage = shown ? brokenOffUsage(request, history, shown, streamed!) : undefined;
    const kept = keepPartial(
      streamed ?? { role: "assistant", content: [], model: request.model, timestamp: Date.now() },
      error,
      request.model,
    );
    if (kept && usage) kept.usage = usage;
    if (kept) show(kept);
    return { message: settle(kept), error, ...(usage ? { usage } : {}), ...(stack ? { stack } : {}) };
  };

  try {
    for await (const event of client.stream(request, { signal })) {
      switch (event.type) {
        case "start":
          show(event.partial);
          break;
        case "text_delta":
          show(event.partial);
          if (!textStarted) {
            textStarted = true;
            emit("assistant_text_start", {});
          }
          emit("message_update", { message: event.partial, kind: "text", delta: event.delta });
          emit("assistant_text_delta", { delta: event.delta });
          break;
        case "thinking_delta":
          show(event.partial);
          emit("message_update", { message: event.partial, kind: "thinking", delta: event.delta });
          emit("assistant_thinking_delta", { delta: event.delta });
          break;
        // A call's arguments stream as deltas; `arguments` (a lenient parse, for display) comes with
        // the first piece and then at most a few times a second, so the events stay proportional
        // to what the model sent.
        case "tool_call_start":
          show(event.partial);
          callNames.set(event.id, event.name);
          emit("tool_call_update", {
            call_id: event.id,
            tool_name: event.name,
            delta: "",
            arguments: {},
            ...tools.describe(event.name, {}),
          });
          break;
        case "tool_call_delta": {
          const name = callNames.get(event.id) ?? "";
          const snapshot = event.partialArguments
            ? { arguments: event.partialArguments, ...tools.describe(name, event.partialArguments) }
            : {};
          emit("tool_call_update", { call_id: event.id, tool_name: name, delta: event.delta, ...snapshot });
          break;
        }
        case "tool_call_end": {
          const invalid = event.call.invalidArguments ? { invalid_arguments: event.call.invalidArguments } : {};
          emit("tool_call_update", {
            call_id: event.call.id,
            tool_name: event.call.name,
            delta: "",
            arguments: event.call.arguments,
            complete: true,
            ...tools.describe(event.call.name, event.call.arguments),
            ...invalid,
          });
          break;
        }
        case "retry":
          emit("retry", { attempt: event.attempt, delay_ms: event.delayMs, error: event.error });
          break;
        case "finish": {
          show(event.partial);
          const message = markCutOffCalls(normalizeAssistant(event.response.message, request.model));
          const text = textOf(message.content);
          if (textStarted || text !== "") {
            if (!textStarted) emit("assistant_text_start", {});
            emit("assistant_text_end", { text, reasoning: event.response.reasoning ?? null });
          }
          return { message: settle(message), response: event.response };
        }
        case "error":
          return fail(event.error, event.partial, event.stack);
      }
    }
    return fail({
      kind: signal.aborted ? "aborted" : "network",
      message: "The model's stream ended without a final message.",
    });
  } catch (e) {
    if (signal.aborted) return fail({ kind: "aborted", message: "Aborted by the user." });
    if (e instanceof LlmError) return fail({ kind: e.kind, message: e.message, status: e.status }, undefined, e.stack);
    return fail(
      { kind: "unknown", message: e instanceof Error ? e.message : String(e) },
      undefined,
      e instanceof Error ? e.stack : undefined,
    );
  }
}

/**
 * Content may come as a string or null from outside (docs/conformance.md: J.9 4.5): always a part
 * list afterwards.
 */
export function normalizeAssistant(message: AssistantMessage, model: string): AssistantMessage {
  const raw = message.content as unknown;
  const content: AssistantPart[] =
    typeof raw === "string"
      ? raw === ""
        ? []
        : [{ type: "text", text: raw }]
      : Array.isArray(raw)
        ? (raw as AssistantPart[])
        : [];
  return { ...message, content, model: message.model ?? model, timestamp: message.timestamp ?? Date.now() };
}

/**
 * A response that stopped at the output limit was cut off: none of its calls is trusted to be
 * what the model meant (the last one is incomplete for sure), so each is marked and never runs.
 */
function markCutOffCalls(message: AssistantMessage): AssistantMessage {
  if (message.finishReason !== "max_tokens") return message;
  for (const part of message.content) {
    if (part.type !== "tool_call") continue;
    const limit = "the response stopped at the output token limit (max_tokens) before it was complete";
    part.invalidArguments = part.invalidArguments ? `${limit}; ${part.invalidArguments}` : limit;
    delete part.nonObjectArguments; // cut off first of all
  }
  return message;
}

export function toolCallsOf(message: AssistantMessage) {
  return message.content.filter((p): p is Extract<AssistantPart, { type: "tool_call" }> => p.type === "tool_call");
}

/** The partial answer's text and thinking, or null when it holds nothing; tool calls that never ran are dropped. */
function keepPartial(partial: AssistantMessage, error: StreamError, model: string): AssistantMessage | null {
  const normalized = normalizeAssistant(partial, model);
  const content = normalized.content.filter(
    (p) => (p.type === "text" || p.type === "thinking") && p.text.trim() !== "",
  );
  if (content.length === 0) return null;
  return {
    ...normalized,
    content,
    finishReason: error.kind === "aborted" ? "aborted" : "error",
    errorMessage: error.message,
  };
}

/**
 * What a call that broke off used, estimated (no tokenizer: the estimate compaction uses): the
 * conversation up to the last answer as that answer's usage counted it (read from the cache when
 * that one was), what came after it, and what streamed out; priced from the catalog.
 */
function brokenOffUsage(
  request: Request,
  history: Message[],
  shown: AssistantMessage,
  streamed: AssistantMessage,
): Usage {
  const at = history.findLastIndex((m) => m !== shown && m.role === "assistant" && m.usage !== undefined);
  const last = at >= 0 ? (history[at] as AssistantMessage).usage! : undefined;
  const added = history.slice(at + 1).filter((m) => m !== shown);
  const since = estimateTokens(added);
  const whole = Math.ceil(
    estimateTokens(request.messages) +
      textTokens(request.system ?? "") +
      textTokens(JSON.stringify(request.tools ?? [])),
  );
  const prefix = last ? last.input + last.cacheRead + last.cacheWrite + last.output : 0;
  const cached = last !== undefined && last.cacheRead + last.cacheWrite > 0;
  const counts = {
    input: last ? (cached ? since : prefix + since) : whole,
    cacheRead: cached ? prefix : 0,
    output: estimateTokens([streamed]),
  };
  try {
    return usageWithCost(counts, getModel(request.model));
  } catch {
    // A model the catalog cannot name: the tokens without a price.
    return { ...counts, cacheWrite: 0, reasoning: 0, cost: 0 };
  }
}
