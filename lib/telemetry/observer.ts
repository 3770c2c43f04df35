/**
 * A session's events as OpenTelemetry signals, named by the GenAI semantic conventions: a span
 * per input (`invoke_agent gong`), per model call (`chat {model}`, with its usage and finish
 * reason) and per tool call (`execute_tool {tool}`); metrics for tokens, cost, tool calls, errors
 * and durations; log events for prompts, model calls, tool results and errors. It listens to the
 * session's public event stream and never reaches into the loop. Prompt text, tool arguments and
 * tool output go out only when the config allows them. A child agent's events (tagged with its
 * agent id) make spans under the tool call that spawned it.
 */
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from "@opentelemetry/api";
import type { SessionEvent } from "../agent/vocabulary.ts";
import type { AssistantMessage, Usage } from "../llm/types.ts";
import { VERSION } from "../version.ts";
import type { TelemetryConfig } from "./config.ts";
import type { Instruments } from "./sdk.ts";

/** Tool arguments and output put on spans and events are cut at this many characters. */
const CONTENT_LIMIT = 8_192;

/** gong's provider ids → the semantic conventions' `gen_ai.provider.name` values. */
const PROVIDER_NAMES: Record<string, string> = {
  anthropic: "anthropic",
  openai: "openai",
  gemini: "gcp.gemini",
  groq: "groq",
  deepseek: "deepseek",
  xai: "x_ai",
  mistral: "mistral_ai",
};

interface AgentState {
  model: string;
  input?: Span;
  chat?: { span?: Span; started: number };
  tools: Map<string, { span?: Span; started: number; arguments: unknown }>;
}

export type Observer = (event: SessionEvent) => void;

export function telemetryObserver(instruments: Instruments, config: TelemetryConfig): Observer {
  const { tracer, meter, logger } = instruments;
  const metrics = meter && {
    tokens: meter.createHistogram("gen_ai.client.token.usage", {
      unit: "{token}",
      description: "Tokens used per model call.",
    }),
    duration: meter.createHistogram("gen_ai.client.operation.duration", {
      unit: "s",
      description: "Duration of a model call or tool call.",
    }),
    tokenCount: meter.createCounter("gong.token.usage", { unit: "{token}", description: "Tokens, by type." }),
    cost: meter.createCounter("gong.cost.usage", { unit: "USD", description: "Cost of the model calls." }),
    toolCalls: meter.createCounter("gong.tool.calls", {
      unit: "{call}",
      description: "Tool calls, by tool and outcome.",
    }),
    errors: meter.createCounter("gong.errors", { unit: "{error}", description: "Failed model calls, by kind." }),
    inputDuration: meter.createHistogram("gong.input.duration", {
      unit: "s",
      description: "Time from an input to its answer.",
    }),
    sessions: meter.createCounter("gong.session.count", { unit: "{session}", description: "Sessions started." }),
  };
  const agents = new Map<string, AgentState>();
  /** Tool spans by call id, so a child agent's spans hang under the call that spawned it. */
  const spawnedBy = new Map<string, Span>();

  const stateOf = (event: SessionEvent): AgentState => {
    const key = event.agent_id ?? "";
    let state = agents.get(key);
    if (!state) {
      state = { model: "", tools: new Map() };
      agents.set(key, state);
    }
    return state;
  };
  const emitLog = (name: string, event: SessionEvent, attributes: Attributes, body?: string) =>
    logger?.emit({
      eventName: name,
      timestamp: event.timestamp,
      attributes: { "event.name": name, "session.id": event.session_id, ...agentOf(event), ...attributes },
      ...(body !== undefined ? { body } : {}),
    });

  return (event) => {
    const state = stateOf(event);
    const common = { "gen_ai.conversation.id": event.session_id, ...agentOf(event) };
    switch (event.kind) {
      case "session_start":
        state.model = event.data.model;
        if (!event.agent_id) metrics?.sessions.add(1, { ...modelAttributes(state.model) });
        break;
      case "model_change":
        state.model = event.data.model;
        break;
      case "subagent_start": {
        const child = agents.get(event.data.agent_id) ?? { model: event.data.model ?? state.model, tools: new Map() };
        agents.set(event.data.agent_id, child);
        const parent = event.data.call_id ? state.tools.get(event.data.call_id)?.span : undefined;
        if (parent) spawnedBy.set(event.data.agent_id, parent);
        break;
      }
      case "agent_start": {
        const parent = event.agent_id ? spawnedBy.get(event.agent_id) : undefined;
        state.input = tracer?.startSpan(
          "invoke_agent gong",
          {
            kind: SpanKind.INTERNAL,
            startTime: event.timestamp,
            attributes: {
              "gen_ai.operation.name": "invoke_agent",
              "gen_ai.agent.name": "gong",
              "gen_ai.agent.version": VERSION,
              ...modelAttributes(state.model),
              ...common,
            },
          },
          parent ? trace.setSpan(context.active(), parent) : undefined,
        );
        break;
      }
      case "user_input": {
        const prompt = event.data.content;
        emitLog(
          "gong.user_prompt",
          event,
          { prompt_length: prompt.length, images: event.data.images },
          config.logUserPrompts ? prompt : undefined,
        );
        if (config.logUserPrompts)
          state.input?.setAttribute(
            "gen_ai.input.messages",
            JSON.stringify([{ role: "user", parts: [{ type: "text", content: prompt }] }]),
          );
        break;
      }
      case "turn_start": {
        const model = modelAttributes(state.model);
        const span = tracer?.startSpan(
          `chat ${model["gen_ai.request.model"] ?? ""}`.trim(),
          {
            kind: SpanKind.CLIENT,
            startTime: event.timestamp,
            attributes: { "gen_ai.operation.name": "chat", ...model, ...common },
          },
          state.input ? trace.setSpan(context.active(), state.input) : undefined,
        );
        state.chat = { span, started: event.timestamp };
        break;
      }
      case "message_end": {
        const message = event.data.message;
        if (message.role !== "assistant" || !state.chat) break;
        finishChat(event, state, message);
        break;
      }
      case "error": {
        metrics?.errors.add(1, { "error.type": event.data.kind, ...modelAttributes(state.model) });
        emitLog("gong.api_error", event, {
          "error.type": event.data.kind,
          error: event.data.message,
          ...(event.data.status ? { status_code: event.data.status } : {}),
          ...modelAttributes(state.model),
        });
        break;
      }
      case "turn_end": {
        const error = event.data.error;
        if (!error || !state.chat) break;
        const seconds = (event.timestamp - state.chat.started) / 1000;
        state.chat.span?.setAttribute("error.type", error.kind);
        state.chat.span?.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
        state.chat.span?.end(event.timestamp);
        metrics?.duration.record(seconds, {
          "gen_ai.operation.name": "chat",
          "error.type": error.kind,
          ...modelAttributes(state.model),
        });
        state.chat = undefined;
        break;
      }
      case "tool_call_start": {
        const { call_id, tool_name, kind } = event.data;
        const span = tracer?.startSpan(
          `execute_tool ${tool_name}`,
          {
            kind: SpanKind.INTERNAL,
            startTime: event.timestamp,
            attributes: {
              "gen_ai.operation.name": "execute_tool",
              "gen_ai.tool.name": tool_name,
              "gen_ai.tool.call.id": call_id,
              "gen_ai.tool.type": "function",
              "gong.tool.kind": kind,
              ...(config.logToolDetails
                ? { "gen_ai.tool.call.arguments": cut(JSON.stringify(event.data.arguments)) }
                : {}),
              ...common,
            },
          },
          state.input ? trace.setSpan(context.active(), state.input) : undefined,
        );
        state.tools.set(call_id, { span, started: event.timestamp, arguments: event.data.arguments });
        break;
      }
      case "tool_call_end": {
        const { call_id, tool_name, is_error, output } = event.data;
        const open = state.tools.get(call_id);
        const started = open?.started ?? event.timestamp;
        const success = !is_error;
        if (open) {
          if (config.logToolContent) open.span?.setAttribute("gen_ai.tool.call.result", cut(output.text ?? ""));
          if (!success) {
            open.span?.setAttribute("error.type", output.error?.code ?? "tool_error");
            open.span?.setStatus({ code: SpanStatusCode.ERROR, message: output.error?.message });
          }
          open.span?.end(event.timestamp);
          state.tools.delete(call_id);
        }
        const toolAttributes = { "gen_ai.tool.name": tool_name, success };
        metrics?.toolCalls.add(1, toolAttributes);
        metrics?.duration.record((event.timestamp - started) / 1000, {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": tool_name,
          ...(success ? {} : { "error.type": output.error?.code ?? "tool_error" }),
        });
        emitLog(
          "gong.tool_result",
          event,
          {
            tool_name,
            success,
            duration_ms: event.timestamp - started,
            ...(success ? {} : { error: output.error?.code ?? "tool_error" }),
            ...(config.logToolDetails ? { tool_parameters: cut(JSON.stringify(open?.arguments ?? {})) } : {}),
          },
          config.logToolContent ? cut(output.text ?? "") : undefined,
        );
        break;
      }
      case "agent_end": {
        const { stop_reason, steps, usage, duration_ms } = event.data;
        if (state.input) {
          state.input.setAttributes({
            "gong.stop_reason": stop_reason,
            "gong.steps": steps,
            ...usageAttributes(usage),
          });
          if (stop_reason === "error") state.input.setStatus({ code: SpanStatusCode.ERROR });
          state.input.end(event.timestamp);
          state.input = undefined;
        }
        metrics?.inputDuration.record(duration_ms / 1000, { "gong.stop_reason": stop_reason });
        break;
      }
      case "session_end":
        // A session closed mid-input: what is still open ends here.
        for (const [key, open] of agents) {
          if (event.agent_id && key !== event.agent_id) continue;
          for (const tool of open.tools.values()) tool.span?.end(event.timestamp);
          open.tools.clear();
          open.chat?.span?.end(event.timestamp);
          open.input?.end(event.timestamp);
          open.chat = undefined;
          open.input = undefined;
        }
        break;
    }
  };

  function finishChat(event: SessionEvent, state: AgentState, message: AssistantMessage): void {
    const chat = state.chat!;
    const model = modelAttributes(message.model ?? state.model);
    const usage = message.usage;
    chat.span?.setAttributes({
      ...(message.model ? { "gen_ai.response.model": model["gen_ai.request.model"] } : {}),
      ...(message.responseId ? { "gen_ai.response.id": message.responseId } : {}),
      ...(message.finishReason ? { "gen_ai.response.finish_reasons": [message.finishReason] } : {}),
      ...(usage ? usageAttributes(usage) : {}),
    });
    chat.span?.end(event.timestamp);
    state.chat = undefined;
    const seconds = (event.timestamp - chat.started) / 1000;
    metrics?.duration.record(seconds, { "gen_ai.operation.name": "chat", ...model });
    if (!usage) return;
    const input = usage.input + usage.cacheRead + usage.cacheWrite;
    metrics?.tokens.record(input, { "gen_ai.operation.name": "chat", "gen_ai.token.type": "input", ...model });
    metrics?.tokens.record(usage.output, { "gen_ai.operation.name": "chat", "gen_ai.token.type": "output", ...model });
    for (const [type, count] of [
      ["input", usage.input],
      ["output", usage.output],
      ["cacheRead", usage.cacheRead],
      ["cacheCreation", usage.cacheWrite],
    ] as const)
      if (count > 0) metrics?.tokenCount.add(count, { type, ...model });
    if (usage.cost > 0) metrics?.cost.add(usage.cost, model);
    emitLog("gong.api_request", event, {
      ...model,
      duration_ms: event.timestamp - chat.started,
      input_tokens: usage.input,
      output_tokens: usage.output,
      cache_read_tokens: usage.cacheRead,
      cache_creation_tokens: usage.cacheWrite,
      cost_usd: usage.cost,
      ...(message.finishReason ? { finish_reason: message.finishReason } : {}),
    });
  }
}

/** `provider/model-id` as the conventions name them: the provider, and the model as requested. */
function modelAttributes(model: string): Record<string, string> {
  const slash = model.indexOf("/");
  if (slash < 0) return model ? { "gen_ai.request.model": model } : {};
  const provider = model.slice(0, slash);
  return {
    "gen_ai.provider.name": PROVIDER_NAMES[provider] ?? provider,
    "gen_ai.request.model": model.slice(slash + 1),
  };
}

function usageAttributes(usage: Usage): Attributes {
  return {
    "gen_ai.usage.input_tokens": usage.input + usage.cacheRead + usage.cacheWrite,
    "gen_ai.usage.output_tokens": usage.output,
    "gen_ai.usage.cache_read.input_tokens": usage.cacheRead,
    "gen_ai.usage.cache_creation.input_tokens": usage.cacheWrite,
    ...(usage.reasoning ? { "gen_ai.usage.reasoning.output_tokens": usage.reasoning } : {}),
    "gong.cost_usd": usage.cost,
  };
}

function agentOf(event: SessionEvent): Attributes {
  return event.agent_id ? { "gen_ai.agent.id": event.agent_id } : {};
}

function cut(text: string): string {
  return text.length > CONTENT_LIMIT ? `${text.slice(0, CONTENT_LIMIT)}… (${text.length} characters)` : text;
}
