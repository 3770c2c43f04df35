/**
 * Chat Completions adapter on the `openai` SDK, for OpenAI and every OpenAI-compatible server
 * (Ollama, LM Studio, vLLM, OpenRouter, Groq, DeepSeek, xAI, Mistral, Together, Cerebras).
 * Tool-call deltas are accumulated by index; reasoning comes from whichever field the server uses.
 */
import type OpenAI from "openai";
import type {
  ChatCompletionChunk,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { classifyError } from "../classify.ts";
import { LlmError } from "../errors.ts";
import { MessageBuilder } from "../message-builder.ts";
import { finalArguments, StreamedArguments, toolCallPart } from "../partial-json.ts";
import { quirksFor, type ProviderQuirks } from "../providers.ts";
import type { FinishReason, Message, ModelInfo, Request, Response, StreamEvent, UserPart } from "../types.ts";
import { usageWithCost } from "../usage.ts";
import type { Adapter, AdapterContext } from "./types.ts";
import { openaiClient, openaiEvents, type StreamEnd } from "./openai-client.ts";

const FINISH: Record<string, FinishReason> = {
  stop: "end_turn",
  eos: "end_turn",
  end_turn: "end_turn",
  length: "max_tokens",
  model_length: "max_tokens",
  tool_calls: "tool_use",
  function_call: "tool_use",
  content_filter: "content_filter",
  refusal: "refusal",
};

const client = openaiClient;

interface PendingCall {
  id: string;
  name: string;
  args: StreamedArguments;
}

export const openaiChatAdapter: Adapter = {
  api: "openai-chat",

  async *stream(request, ctx) {
    const turn = new ChatTurn(ctx, quirksFor(ctx.model.provider));
    const ended: StreamEnd = { done: false };
    try {
      const response = await client(ctx)
        .chat.completions.create(
          { ...params(request, ctx.model, turn.quirks), stream: true, stream_options: { include_usage: true } },
          { signal: ctx.signal },
        )
        .asResponse();
      for await (const chunks of openaiEvents<ChatCompletionChunk>(response, ended)) {
        const events = chunks.flatMap((chunk) => [...turn.chunk(chunk)]);
        if (events.length > 0) yield events;
      }
    } catch (err) {
      throw failure(err, ctx);
    }
    yield [...turn.finish(ended.done)];
  },

  async complete(request, ctx): Promise<Response> {
    const quirks = quirksFor(ctx.model.provider);
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await client(ctx).chat.completions.create(params(request, ctx.model, quirks), {
        signal: ctx.signal,
      });
    } catch (err) {
      throw failure(err, ctx);
    }
    const choice = completion.choices?.[0];
    if (!choice)
      throw new LlmError("server", `${ctx.model.provider}: the response has no choices`, {
        provider: ctx.model.provider,
      });
    const message = choice.message as typeof choice.message & Record<string, unknown>;
    const builder = new MessageBuilder(ctx.model.ref);
    const reasoning = quirks.reasoningFields
      .map((f) => message[f])
      .find((v): v is string => typeof v === "string" && v.length > 0);
    if (reasoning) builder.thinking(reasoning);
    if (typeof message.content === "string" && message.content) builder.text(message.content);
    if (typeof message.refusal === "string" && message.refusal) builder.text(message.refusal);
    for (const tc of message.tool_calls ?? []) {
      if (tc.type !== "function") continue;
      builder.toolCall(toolCallPart(tc.id, tc.function.name, finalArguments(tc.function.arguments)));
    }
    const hasCalls = (message.tool_calls?.length ?? 0) > 0;
    const reason = message.refusal && choice.finish_reason === "stop" ? "refusal" : choice.finish_reason;
    return builder.response({
      id: completion.id,
      usage: readUsage(completion.usage, ctx.model),
      finishReason: finishReason(reason, hasCalls),
    });
  },
};

/** One streamed turn: chunks in, unified events out. */
class ChatTurn {
  private readonly builder: MessageBuilder;
  /** Calls by the index the server gave them (or the order they came in, for servers that give none). */
  private readonly calls = new Map<number, PendingCall>();
  private finishReason: string | null = null;
  private usage: ChatCompletionChunk["usage"] | undefined;
  private id: string | undefined;
  private started = false;
  private refused = false;

  constructor(
    private readonly ctx: AdapterContext,
    readonly quirks: ProviderQuirks,
  ) {
    this.builder = new MessageBuilder(ctx.model.ref);
  }

  *chunk(chunk: ChatCompletionChunk): Generator<StreamEvent> {
    if (!this.started) {
      this.started = true;
      yield { type: "start", model: this.ctx.model.ref };
    }
    // Azure's first chunk has no id and no choices; usage may come alone, with empty choices.
    this.id ||= chunk.id || undefined;
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = (choice.delta ?? {}) as Record<string, unknown> & ChatCompletionChunk.Choice.Delta;
    const reasoning = this.quirks.reasoningFields
      .map((f) => delta[f])
      .find((v): v is string => typeof v === "string" && v.length > 0);
    if (reasoning) yield* this.thinking(reasoning);
    yield* this.content(delta.content as unknown);
    if (typeof delta.refusal === "string" && delta.refusal) {
      this.refused = true;
      yield* this.text(delta.refusal);
    }
    for (const tc of delta.tool_calls ?? []) yield* this.toolCall(tc);
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  /**
   * The final event. A stream that said `[DONE]` with no finish_reason (OpenRouter) finished all
   * the same: its calls make it `tool_use`. One that just stopped was cut.
   */
  *finish(sawDone: boolean): Generator<StreamEvent> {
    const { provider } = this.ctx.model;
    if (this.finishReason === null && !sawDone)
      throw new LlmError(
        "network",
        `${provider}: the stream ended before the response was complete (no finish_reason and no [DONE])`,
        { provider },
      );
    // OpenRouter ends a stream its upstream failed with finish_reason "error" (sometimes with no error object).
    if (this.finishReason === "error")
      throw new LlmError("server", `${provider}: the upstream provider failed mid-answer (finish_reason "error")`, {
        provider,
      });
    for (const [index, call] of [...this.calls].sort(([a], [b]) => a - b)) {
      const part = toolCallPart(call.id, call.name, call.args.final());
      this.builder.toolCall(part);
      yield { type: "tool_call_end", index, call: part };
    }
    const reason = this.refused && (this.finishReason ?? "stop") === "stop" ? "refusal" : this.finishReason;
    yield {
      type: "finish",
      response: this.builder.response({
        id: this.id,
        usage: readUsage(this.usage, this.ctx.model),
        finishReason: finishReason(reason, this.calls.size > 0),
      }),
    };
  }

  /** `content` is a string, or (Mistral) a list of text / thinking / refusal parts. */
  private *content(content: unknown): Generator<StreamEvent> {
    if (typeof content === "string") {
      if (content) yield* this.text(content);
      return;
    }
    if (!Array.isArray(content)) return;
    for (const part of content as Record<string, unknown>[]) {
      if (part?.type === "text" && typeof part.text === "string" && part.text) yield* this.text(part.text);
      else if (part?.type === "refusal" && typeof part.refusal === "string" && part.refusal) {
        this.refused = true;
        yield* this.text(part.refusal);
      } else if (part?.type === "thinking") {
        const pieces = Array.isArray(part.thinking)
          ? (part.thinking as Record<string, unknown>[])
          : [{ text: part.thinking }];
        const text = pieces.map((p) => (typeof p?.text === "string" ? p.text : "")).join("");
        if (text) yield* this.thinking(text);
      }
    }
  }

  private *text(delta: string): Generator<StreamEvent> {
    this.builder.text(delta);
    yield { type: "text_delta", delta };
  }

  private *thinking(delta: string): Generator<StreamEvent> {
    this.builder.thinking(delta);
    yield { type: "thinking_delta", delta };
  }

  /**
   * A call arrives in pieces keyed by index, or whole in one chunk. Some servers give no index
   * (a new id then starts a new call) or repeat the id, or change it, on every piece of one call.
   */
  private *toolCall(tc: ChatCompletionChunk.Choice.Delta.ToolCall): Generator<StreamEvent> {
    let index = typeof tc.index === "number" ? tc.index : undefined;
    if (index === undefined) {
      const known = tc.id ? [...this.calls].find(([, c]) => c.id === tc.id)?.[0] : undefined;
      const last = this.calls.size ? Math.max(...this.calls.keys()) : -1;
      index = known ?? (tc.id || last < 0 ? last + 1 : last);
    }
    let call = this.calls.get(index);
    if (!call) {
      // Two calls must never share an id: their results would be paired with the wrong call.
      const taken = tc.id && [...this.calls.values()].some((c) => c.id === tc.id);
      const id = tc.id && !taken ? tc.id : `${tc.id || "call"}_${index}_${Date.now().toString(36)}`;
      call = { id, name: tc.function?.name ?? "", args: new StreamedArguments() };
      this.calls.set(index, call);
      yield { type: "tool_call_start", index, id: call.id, name: call.name };
    } else if (tc.function?.name && !call.name) call.name = tc.function.name;
    const piece = tc.function?.arguments ?? "";
    if (!piece) return;
    const partialArguments = call.args.push(piece);
    yield {
      type: "tool_call_delta",
      index,
      id: call.id,
      delta: piece,
      ...(partialArguments ? { partialArguments } : {}),
    };
  }
}

function failure(err: unknown, ctx: AdapterContext): LlmError {
  if (ctx.signal.aborted)
    return new LlmError("aborted", "Request aborted", { provider: ctx.model.provider, cause: err });
  return classifyError(err, ctx.model.provider);
}

/** Some servers (Ollama) end a tool-calling turn with "stop"; a reason this adapter does not know is named as unfinished. */
function finishReason(reason: string | null | undefined, hasCalls: boolean): FinishReason {
  const mapped = FINISH[reason ?? "stop"] ?? "incomplete";
  return hasCalls && mapped === "end_turn" ? "tool_use" : mapped;
}

function readUsage(u: OpenAI.Completions.CompletionUsage | null | undefined, model: ModelInfo) {
  const cached = u?.prompt_tokens_details?.cached_tokens ?? 0;
  return usageWithCost(
    {
      input: Math.max(0, (u?.prompt_tokens ?? 0) - cached),
      output: u?.completion_tokens ?? 0,
      cacheRead: cached,
      reasoning: u?.completion_tokens_details?.reasoning_tokens ?? 0,
    },
    model,
  );
}

/** The SDK parameters for a unified request. */
export function params(
  request: Request,
  model: ModelInfo,
  quirks: ProviderQuirks,
): ChatCompletionCreateParamsNonStreaming {
  const out: ChatCompletionMessageParam[] = [];
  if (request.system)
    out.push({ role: quirks.developerRole && model.reasoning ? "developer" : "system", content: request.system });
  out.push(...messages(request.messages, model));
  const p: ChatCompletionCreateParamsNonStreaming = { model: model.id, messages: out };
  if (request.tools?.length) {
    p.tools = request.tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
    const choice = request.toolChoice;
    if (choice)
      p.tool_choice = typeof choice === "object" ? { type: "function", function: { name: choice.name } } : choice;
  }
  if (request.maxTokens !== undefined) {
    if (model.provider === "openai") p.max_completion_tokens = request.maxTokens;
    else p.max_tokens = request.maxTokens;
  }
  if (request.temperature !== undefined) p.temperature = request.temperature;
  if (request.outputSchema)
    p.response_format = {
      type: "json_schema",
      json_schema: { name: "answer", schema: request.outputSchema, strict: false },
    };
  if (request.reasoningEffort && model.reasoning && quirks.reasoningEffort) {
    p.reasoning_effort = (
      request.reasoningEffort === "xhigh" && model.provider !== "openai" ? "high" : request.reasoningEffort
    ) as "high";
  }
  return p;
}

function messages(list: Message[], model: ModelInfo): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  // Tool messages carry text only: images from tool results follow them in a user message.
  let toolImages: ChatCompletionContentPart[] = [];
  const flushImages = () => {
    if (toolImages.length)
      out.push({
        role: "user",
        content: [{ type: "text", text: "Images from the tool results above:" }, ...toolImages],
      });
    toolImages = [];
  };
  for (const m of list) {
    if (m.role !== "tool") flushImages();
    if (m.role === "user") {
      const content = typeof m.content === "string" ? m.content : m.content.map(userPart);
      if (content.length) out.push({ role: "user", content });
    } else if (m.role === "tool") {
      const parts = typeof m.content === "string" ? [{ type: "text" as const, text: m.content }] : m.content;
      const text = parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
      if (model.images) toolImages.push(...parts.filter((p) => p.type === "image").map(userPart));
      out.push({
        role: "tool",
        tool_call_id: m.toolCallId,
        content: text || (parts.length ? "(see the images below)" : ""),
      });
    } else {
      const text = m.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
      const calls = m.content.flatMap((p) =>
        p.type === "tool_call"
          ? [
              {
                id: p.id,
                type: "function" as const,
                function: { name: p.name, arguments: JSON.stringify(p.arguments ?? {}) },
              },
            ]
          : [],
      );
      if (!text && !calls.length) continue;
      out.push({ role: "assistant", content: text || null, ...(calls.length ? { tool_calls: calls } : {}) });
    }
  }
  flushImages();
  return out;
}

function userPart(p: UserPart): ChatCompletionContentPart {
  return p.type === "text"
    ? { type: "text", text: p.text }
    : { type: "image_url", image_url: { url: `data:${p.mimeType};base64,${p.data}` } };
}
