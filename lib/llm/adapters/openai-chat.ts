/**
 * Chat Completions adapter on the `openai` SDK, for OpenAI and every OpenAI-compatible server
 * (Ollama, LM Studio, vLLM, OpenRouter, Groq, DeepSeek, xAI, Mistral, Together, Cerebras).
 * Tool-call deltas are accumulated by index; reasoning comes from whichever field the server uses.
 */
import OpenAI from "openai";
import type { ChatCompletionChunk, ChatCompletionContentPart, ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { classifyError } from "../classify.ts";
import { LlmError } from "../errors.ts";
import { MessageBuilder } from "../message-builder.ts";
import { finalArguments, StreamedArguments, toolCallPart } from "../partial-json.ts";
import { quirksFor, type ProviderQuirks } from "../providers.ts";
import type { FinishReason, Message, ModelInfo, Request, Response, UserPart } from "../types.ts";
import { usageWithCost } from "../usage.ts";
import type { Adapter, AdapterContext } from "./types.ts";
import { eventStreamFetch } from "./event-stream-fetch.ts";
import { SDK_LOG_LEVEL, SDK_TIMEOUT_MS, sdkCache } from "./sdk-cache.ts";

const FINISH: Record<string, FinishReason> = {
  stop: "stop",
  length: "length",
  tool_calls: "tool_calls",
  function_call: "tool_calls",
  content_filter: "content_filter",
};

const sdk = sdkCache(({ baseUrl, apiKey, headers }) =>
  // Local servers take no key, but the SDK insists on one.
  new OpenAI({ apiKey: apiKey ?? "no-key", baseURL: baseUrl, maxRetries: 0, timeout: SDK_TIMEOUT_MS, defaultHeaders: headers, logLevel: SDK_LOG_LEVEL, fetch: eventStreamFetch }),
);

const client = (ctx: AdapterContext) => sdk({ baseUrl: ctx.baseUrl, apiKey: ctx.apiKey, headers: ctx.headers });

interface PendingCall {
  id: string;
  name: string;
  args: StreamedArguments;
}

export const openaiChatAdapter: Adapter = {
  api: "openai-chat",

  async *stream(request, ctx) {
    const quirks = quirksFor(ctx.model.provider);
    const builder = new MessageBuilder(ctx.model.ref);
    const calls = new Map<number, PendingCall>();
    let finish: string | null = null;
    let usage: ChatCompletionChunk["usage"] | undefined;
    let id: string | undefined;
    try {
      const chunks = await client(ctx).chat.completions.create(
        { ...params(request, ctx.model, quirks), stream: true, stream_options: { include_usage: true } },
        { signal: ctx.signal },
      );
      for await (const chunk of chunks) {
        if (id === undefined) {
          id = chunk.id;
          yield { type: "start", model: ctx.model.ref };
        }
        if (chunk.usage) usage = chunk.usage;
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const delta = (choice.delta ?? {}) as Record<string, unknown> & ChatCompletionChunk.Choice.Delta;
        const reasoning = quirks.reasoningFields.map((f) => delta[f]).find((v): v is string => typeof v === "string" && v.length > 0);
        if (reasoning) {
          builder.thinking(reasoning);
          yield { type: "thinking_delta", delta: reasoning };
        }
        if (delta.content) {
          builder.text(delta.content);
          yield { type: "text_delta", delta: delta.content };
        }
        for (const tc of delta.tool_calls ?? []) {
          const index = tc.index ?? 0;
          let call = calls.get(index);
          if (!call) {
            call = { id: tc.id || `call_${index}_${Date.now().toString(36)}`, name: tc.function?.name ?? "", args: new StreamedArguments() };
            calls.set(index, call);
            yield { type: "tool_call_start", index, id: call.id, name: call.name };
          } else if (tc.function?.name && !call.name) call.name = tc.function.name;
          const piece = tc.function?.arguments ?? "";
          if (piece) {
            const partialArguments = call.args.push(piece);
            yield { type: "tool_call_delta", index, id: call.id, delta: piece, ...(partialArguments ? { partialArguments } : {}) };
          }
        }
        if (choice.finish_reason) finish = choice.finish_reason;
      }
    } catch (err) {
      throw failure(err, ctx);
    }
    if (finish === null) throw failure(new LlmError("network", `${ctx.model.provider}: the stream ended before a finish_reason`), ctx);
    for (const [index, call] of [...calls].sort(([a], [b]) => a - b)) {
      const part = toolCallPart(call.id, call.name, call.args.final());
      builder.toolCall(part);
      yield { type: "tool_call_end", index, call: part };
    }
    yield { type: "finish", response: builder.response({ id, usage: readUsage(usage, ctx.model), finishReason: finishReason(finish, calls.size > 0) }) };
  },

  async complete(request, ctx): Promise<Response> {
    const quirks = quirksFor(ctx.model.provider);
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await client(ctx).chat.completions.create(params(request, ctx.model, quirks), { signal: ctx.signal });
    } catch (err) {
      throw failure(err, ctx);
    }
    const choice = completion.choices?.[0];
    if (!choice) throw new LlmError("server", `${ctx.model.provider}: the response has no choices`, { provider: ctx.model.provider });
    const message = choice.message as typeof choice.message & Record<string, unknown>;
    const builder = new MessageBuilder(ctx.model.ref);
    const reasoning = quirks.reasoningFields.map((f) => message[f]).find((v): v is string => typeof v === "string" && v.length > 0);
    if (reasoning) builder.thinking(reasoning);
    if (typeof message.content === "string" && message.content) builder.text(message.content);
    for (const tc of message.tool_calls ?? []) {
      if (tc.type !== "function") continue;
      builder.toolCall(toolCallPart(tc.id, tc.function.name, finalArguments(tc.function.arguments)));
    }
    const hasCalls = (message.tool_calls?.length ?? 0) > 0;
    return builder.response({ id: completion.id, usage: readUsage(completion.usage, ctx.model), finishReason: finishReason(choice.finish_reason, hasCalls) });
  },
};

function failure(err: unknown, ctx: AdapterContext): LlmError {
  if (ctx.signal.aborted) return new LlmError("aborted", "Request aborted", { provider: ctx.model.provider, cause: err });
  return classifyError(err, ctx.model.provider);
}

/** Some servers (Ollama) end a tool-calling turn with "stop". */
function finishReason(reason: string | null | undefined, hasCalls: boolean): FinishReason {
  const mapped = FINISH[reason ?? "stop"] ?? "stop";
  return hasCalls && mapped === "stop" ? "tool_calls" : mapped;
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
export function params(request: Request, model: ModelInfo, quirks: ProviderQuirks): ChatCompletionCreateParamsNonStreaming {
  const out: ChatCompletionMessageParam[] = [];
  if (request.system) out.push({ role: quirks.developerRole && model.reasoning ? "developer" : "system", content: request.system });
  out.push(...messages(request.messages, model));
  const p: ChatCompletionCreateParamsNonStreaming = { model: model.id, messages: out };
  if (request.tools?.length) {
    p.tools = request.tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.parameters } }));
    const choice = request.toolChoice;
    if (choice) p.tool_choice = typeof choice === "object" ? { type: "function", function: { name: choice.name } } : choice;
  }
  if (request.maxTokens !== undefined) {
    if (model.provider === "openai") p.max_completion_tokens = request.maxTokens;
    else p.max_tokens = request.maxTokens;
  }
  if (request.temperature !== undefined) p.temperature = request.temperature;
  if (request.reasoningEffort && model.reasoning && quirks.reasoningEffort) {
    p.reasoning_effort = (request.reasoningEffort === "xhigh" && model.provider !== "openai" ? "high" : request.reasoningEffort) as "high";
  }
  return p;
}

function messages(list: Message[], model: ModelInfo): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  // Tool messages carry text only: images from tool results follow them in a user message.
  let toolImages: ChatCompletionContentPart[] = [];
  const flushImages = () => {
    if (toolImages.length) out.push({ role: "user", content: [{ type: "text", text: "Images from the tool results above:" }, ...toolImages] });
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
      out.push({ role: "tool", tool_call_id: m.toolCallId, content: text || (parts.length ? "(see the images below)" : "") });
    } else {
      const text = m.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
      const calls = m.content.flatMap((p) =>
        p.type === "tool_call" ? [{ id: p.id, type: "function" as const, function: { name: p.name, arguments: JSON.stringify(p.arguments ?? {}) } }] : [],
      );
      if (!text && !calls.length) continue;
      out.push({ role: "assistant", content: text || null, ...(calls.length ? { tool_calls: calls } : {}) });
    }
  }
  flushImages();
  return out;
}

function userPart(p: UserPart): ChatCompletionContentPart {
  return p.type === "text" ? { type: "text", text: p.text } : { type: "image_url", image_url: { url: `data:${p.mimeType};base64,${p.data}` } };
}
