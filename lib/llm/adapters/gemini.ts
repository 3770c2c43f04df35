/**
 * Gemini API adapter on the official `@google/genai` SDK. Gemini gives function calls no ids (or
 * only sometimes): calls get generated ids, and results go back by function name in call order.
 * Thought signatures ride on the part that carried them (a thought, a text or a function call) and
 * go back on the same part on the next request to the same model.
 */
import {
  ApiError,
  FunctionCallingConfigMode,
  GoogleGenAI,
  ThinkingLevel,
  type Content,
  type FunctionCallingConfig,
  type GenerateContentConfig,
  type GenerateContentParameters,
  type GenerateContentResponse,
  type GenerateContentResponseUsageMetadata,
  type Part,
  type ThinkingConfig,
} from "@google/genai";
import type { LlmError } from "../errors.ts";
import { MessageBuilder } from "../message-builder.ts";
import type {
  AssistantMessage,
  AssistantPart,
  FinishReason,
  Message,
  ModelInfo,
  ReasoningEffort,
  Request,
  StreamEvent,
  ToolCallPart,
  ToolChoice,
  UserPart,
} from "../types.ts";
import { usageWithCost } from "../usage.ts";
import { WebSearchCollector } from "../web-search.ts";
import { adapterError, fromSameModel, relayStream, truncatedStream } from "./common.ts";
import { applyPartialArg } from "./gemini-partial-args.ts";
import { sdkCache } from "./sdk-cache.ts";
import type { Adapter, AdapterContext } from "./types.ts";

/** Google's documented stand-in for a function call that has no signature of its own (Gemini 3). */
const SKIP_SIGNATURE = "skip_thought_signature_validator";

const CONTENT_FILTER = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
  "IMAGE_PROHIBITED_CONTENT",
  "IMAGE_RECITATION",
  "PROMPT_BLOCKED",
]);
const MALFORMED_CALL = new Set(["MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS"]);

// The client owns retries: one attempt per call. No SDK timeout either: it would bound a whole
// stream, and the client's idle watchdog catches stalls.
const sdk = sdkCache(
  ({ baseUrl, apiKey, headers }) =>
    new GoogleGenAI({
      vertexai: false,
      apiKey: apiKey ?? "no-key",
      httpOptions: { baseUrl, headers, retryOptions: { attempts: 1 } },
    }),
);

const client = (ctx: AdapterContext) => sdk({ baseUrl: ctx.baseUrl, apiKey: ctx.apiKey, headers: ctx.headers });

export const geminiAdapter: Adapter = {
  api: "gemini",

  async *stream(request, ctx) {
    const turn = new Turn(ctx);
    yield* relayStream(
      ctx,
      () => client(ctx).models.generateContentStream(params(request, ctx)),
      (chunk) => turn.chunk(chunk),
      (err) => geminiError(err, ctx),
    );
    // Gemini's last chunk always carries a finish reason: without one the stream was cut.
    if (!turn.finish || ctx.signal.aborted) throw truncatedStream(ctx);
    yield [{ type: "finish", response: turn.response() }];
  },

  async complete(request, ctx) {
    let result: GenerateContentResponse;
    try {
      result = await client(ctx).models.generateContent(params(request, ctx));
    } catch (err) {
      throw geminiError(err, ctx);
    }
    const turn = new Turn(ctx);
    for (const _ of turn.chunk(result));
    return turn.response();
  },
};

function params(request: Request, ctx: AdapterContext): GenerateContentParameters {
  const { model } = ctx;
  const config: GenerateContentConfig = {
    abortSignal: ctx.signal,
    // Tools run in the agent, and a cut stream is the client's to retry, not the SDK's to resume.
    automaticFunctionCalling: { disable: true },
    automaticContinuation: false,
  };
  if (request.system) config.systemInstruction = request.system;
  if (request.tools?.length) {
    config.tools = [
      {
        functionDeclarations: request.tools.map((t) => ({
          name: t.name,
          description: t.description,
          parametersJsonSchema: jsonSchema(t.parameters),
        })),
      },
    ];
  }
  // Grounding with Google Search: Gemini searches by itself and returns groundingMetadata with the answer.
  if (request.webSearch) config.tools = [...(config.tools ?? []), { googleSearch: {} }];
  if (request.toolChoice) config.toolConfig = { functionCallingConfig: functionCalling(request.toolChoice) };
  if (request.maxTokens) config.maxOutputTokens = request.maxTokens;
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (model.reasoning) config.thinkingConfig = thinking(model, request.reasoningEffort);
  // A response schema with function declarations is refused by some Gemini models: it goes on tool-less requests.
  if (request.outputSchema && !config.tools) {
    config.responseMimeType = "application/json";
    config.responseJsonSchema = jsonSchema(request.outputSchema);
  }
  return {
    model: model.id,
    contents: toContents(request.messages, model),
    config: { ...config, ...request.providerOptions?.[model.provider] },
  };
}

/** Gemini takes JSON Schema as `parametersJsonSchema`, but not the `$schema` version marker. */
function jsonSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _version, ...rest } = schema;
  return rest;
}

function functionCalling(choice: ToolChoice): FunctionCallingConfig {
  if (choice === "auto") return { mode: FunctionCallingConfigMode.AUTO };
  if (choice === "none") return { mode: FunctionCallingConfigMode.NONE };
  if (choice === "required") return { mode: FunctionCallingConfigMode.ANY };
  return { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: [choice.name] };
}

/** Gemini 3 takes a thinking level, Gemini 2.5 a token budget; thoughts are always asked for. */
function thinking(model: ModelInfo, effort: ReasoningEffort | null | undefined): ThinkingConfig {
  if (!effort) return { includeThoughts: true };
  const pro = model.id.includes("pro");
  if (generation(model) >= 3) {
    // Gemini 3 Pro knows only LOW and HIGH.
    const level =
      effort === "low" ? ThinkingLevel.LOW : effort === "medium" && !pro ? ThinkingLevel.MEDIUM : ThinkingLevel.HIGH;
    return { includeThoughts: true, thinkingLevel: level };
  }
  const most = pro ? 32_768 : 24_576;
  const budget = { low: 2048, medium: 8192, high: most, xhigh: most }[effort];
  return { includeThoughts: true, thinkingBudget: budget };
}

/** 2 for gemini-2.5-pro, 3 for gemini-3-flash-preview; 0 when the id does not say. */
function generation(model: ModelInfo): number {
  return Number(/^gemini-(\d+)/.exec(model.id)?.[1] ?? 0);
}

function toContents(messages: Message[], model: ModelInfo): Content[] {
  const contents: Content[] = [];
  // Our call id → the id Gemini gave the call, when it gave one (results must then echo it).
  const geminiIds = new Map<string, string>();
  for (const m of messages) {
    // Content from outside may be null (docs/conformance.md: J.9 4.5): it counts as empty text.
    const content = m.content ?? "";
    if (m.role === "user") {
      const parts =
        typeof content === "string" ? (content ? [{ text: content }] : []) : (content as UserPart[]).map(userPart);
      if (parts.length) contents.push({ role: "user", parts });
    } else if (m.role === "assistant") {
      for (const p of assistantParts(m))
        if (p.type === "tool_call" && typeof p.providerData?.geminiId === "string")
          geminiIds.set(p.id, p.providerData.geminiId);
      const parts = modelParts(m, model);
      if (parts.length) contents.push({ role: "model", parts });
    } else {
      const parts = typeof content === "string" ? [{ type: "text" as const, text: content }] : (content as UserPart[]);
      const text = parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
      const id = geminiIds.get(m.toolCallId);
      const response: Part = {
        functionResponse: {
          name: m.toolName,
          response: m.isError ? { error: text } : { output: text },
          ...(id ? { id } : {}),
        },
      };
      const images = parts.filter((p) => p.type === "image").map(userPart);
      // All results of one turn go back together, in one user content.
      const last = contents.at(-1);
      if (last?.role === "user" && last.parts?.some((p) => p.functionResponse)) last.parts.push(response, ...images);
      else contents.push({ role: "user", parts: [response, ...images] });
    }
  }
  return contents;
}

function userPart(part: UserPart): Part {
  return part.type === "text" ? { text: part.text } : { inlineData: { mimeType: part.mimeType, data: part.data } };
}

function assistantParts(message: AssistantMessage): AssistantPart[] {
  const raw = message.content as AssistantPart[] | string | null;
  return Array.isArray(raw) ? raw : raw ? [{ type: "text", text: raw }] : [];
}

/** An assistant message as model parts, each signature back on the part that carried it. */
function modelParts(message: AssistantMessage, model: ModelInfo): Part[] {
  const same = fromSameModel(message, model);
  const parts: Part[] = [];
  // A signature that came on its own (an empty part) belongs to the part before it, else the next one.
  let pending: string | undefined;
  const add = (part: Part) => {
    if (pending && !part.thoughtSignature) part.thoughtSignature = pending;
    pending = undefined;
    parts.push(part);
  };
  for (const part of assistantParts(message)) {
    if (part.type === "text") {
      if (part.text) add({ text: part.text });
    } else if (part.type === "thinking") {
      if (!same || part.redacted) continue;
      if (part.text)
        add({ text: part.text, thought: true, ...(part.signature ? { thoughtSignature: part.signature } : {}) });
      else if (part.signature) {
        const previous = parts.at(-1);
        if (previous && !previous.thoughtSignature) previous.thoughtSignature = part.signature;
        else pending = part.signature;
      }
    } else if (part.type === "tool_call") {
      const data = part.providerData ?? {};
      const signature = same && typeof data.thoughtSignature === "string" ? data.thoughtSignature : undefined;
      const id = typeof data.geminiId === "string" ? data.geminiId : undefined;
      add({
        functionCall: { name: part.name, args: part.arguments ?? {}, ...(id ? { id } : {}) },
        ...(signature ? { thoughtSignature: signature } : {}),
      });
    }
  }
  // Gemini 3 rejects a step whose function calls carry no signature at all (calls from another model).
  const firstCall = parts.find((p) => p.functionCall);
  if (generation(model) >= 3 && firstCall && !parts.some((p) => p.thoughtSignature))
    firstCall.thoughtSignature = SKIP_SIGNATURE;
  return parts;
}

/** One turn's parts from streamed chunks (or the one chunk of a complete answer). */
class Turn {
  finish?: string;
  /** Gemini's own words on the ending (finishMessage, or the prompt's block reason message). */
  private finishMessage?: string;
  private readonly builder: MessageBuilder;
  private usage?: GenerateContentResponseUsageMetadata;
  private id?: string;
  private toolCount = 0;
  /** A call whose arguments are still streaming (Gemini 3 partialArgs). */
  private streaming?: { call: ToolCallPart; index: number };
  private readonly web = new WebSearchCollector();

  constructor(private readonly ctx: AdapterContext) {
    this.builder = new MessageBuilder(ctx.model.ref);
  }

  *chunk(chunk: GenerateContentResponse): Generator<StreamEvent> {
    if (chunk.usageMetadata) this.usage = chunk.usageMetadata;
    if (chunk.responseId) this.id = chunk.responseId;
    if (chunk.promptFeedback?.blockReason) {
      this.finish = "PROMPT_BLOCKED";
      this.finishMessage =
        chunk.promptFeedback.blockReasonMessage ?? `the prompt was blocked (${chunk.promptFeedback.blockReason})`;
    }
    // A chunk may come with no candidates at all (usage only): nothing to read in it.
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) yield* this.part(part);
    if (candidate?.groundingMetadata) readGrounding(candidate.groundingMetadata, this.web);
    if (candidate?.finishReason) this.finish = candidate.finishReason;
    if (candidate?.finishMessage) this.finishMessage = candidate.finishMessage;
  }

  response() {
    if (this.streaming) {
      // The stream finished with a call never closed: its arguments are all there will be.
      const { call } = this.streaming;
      this.streaming = undefined;
      this.builder.toolCall(call);
    }
    const hasCalls = this.builder.parts.some((p) => p.type === "tool_call");
    const reason = finishReason(this.finish, hasCalls);
    // Why an unfinished turn ended, in Gemini's words when it gave some, else its reason code.
    const detail = reason === "end_turn" || reason === "tool_use" ? undefined : (this.finishMessage ?? this.finish);
    const priced = this.web.priced(usage(this.usage, this.ctx.model), "gemini");
    return this.builder.response({
      usage: priced,
      finishReason: reason,
      finishDetail: detail,
      id: this.id,
      webSearch: this.web.activity(),
    });
  }

  private *part(part: Part): Generator<StreamEvent> {
    if (part.functionCall) {
      yield* this.call(part);
      return;
    }
    if (part.text) {
      if (part.thought) this.builder.thinking(part.text);
      else this.builder.text(part.text);
      yield part.thought ? { type: "thinking_delta", delta: part.text } : { type: "text_delta", delta: part.text };
    }
    if (part.thoughtSignature) this.signature(part.thoughtSignature);
  }

  /**
   * Gemini sends a call whole (start, one delta with all arguments, end), or — Gemini 3 streaming
   * its arguments — opened by name with `willContinue`, filled by `partialArgs`, closed by an empty call.
   */
  private *call(part: Part): Generator<StreamEvent> {
    const fc = part.functionCall!;
    const open = this.streaming;
    if (open && !fc.name) {
      for (const arg of fc.partialArgs ?? []) applyPartialArg(open.call.arguments, arg);
      if (fc.willContinue) return;
      this.streaming = undefined;
      yield* this.closeCall(open.call, open.index);
      return;
    }
    if (open) {
      // A new call before the last one closed: the last one is as complete as it will get.
      this.streaming = undefined;
      yield* this.closeCall(open.call, open.index);
    }
    const providerData: Record<string, unknown> = {};
    if (part.thoughtSignature) providerData.thoughtSignature = part.thoughtSignature;
    if (fc.id) providerData.geminiId = fc.id;
    const call: ToolCallPart = {
      type: "tool_call",
      id: fc.id || newCallId(),
      name: fc.name ?? "",
      arguments: { ...fc.args },
    };
    if (Object.keys(providerData).length) call.providerData = providerData;
    const index = this.toolCount++;
    yield { type: "tool_call_start", index, id: call.id, name: call.name };
    if (fc.willContinue) {
      for (const arg of fc.partialArgs ?? []) applyPartialArg(call.arguments, arg);
      this.streaming = { call, index };
      return;
    }
    yield* this.closeCall(call, index);
  }

  private *closeCall(call: ToolCallPart, index: number): Generator<StreamEvent> {
    yield {
      type: "tool_call_delta",
      index,
      id: call.id,
      delta: JSON.stringify(call.arguments),
      partialArguments: call.arguments,
    };
    this.builder.toolCall(call);
    yield { type: "tool_call_end", index, call };
  }

  /** On the thought part just streamed, or as an empty thinking part right after a text part. */
  private signature(signature: string): void {
    const last = this.builder.parts.at(-1);
    if (last?.type === "thinking" && last.signature === undefined) last.signature = signature;
    else this.builder.parts.push({ type: "thinking", text: "", signature });
  }
}

/** Grounding metadata: the queries Google Search ran, the pages it found, and those the answer's segments rest on (groundingSupports). */
function readGrounding(meta: unknown, web: WebSearchCollector): void {
  const m = meta as {
    webSearchQueries?: string[];
    groundingChunks?: { web?: { uri?: string; title?: string } }[];
    groundingSupports?: { groundingChunkIndices?: number[] }[];
  };
  for (const query of m.webSearchQueries ?? []) web.query(query);
  const chunks = m.groundingChunks ?? [];
  for (const chunk of chunks) web.result({ url: chunk.web?.uri, title: chunk.web?.title });
  for (const support of m.groundingSupports ?? []) {
    for (const i of support.groundingChunkIndices ?? [])
      web.citation({ url: chunks[i]?.web?.uri, title: chunks[i]?.web?.title });
  }
}

function newCallId(): string {
  return `call_${crypto.randomUUID().replace(/-/g, "").slice(0, 24)}`;
}

function usage(meta: GenerateContentResponseUsageMetadata | undefined, model: ModelInfo) {
  const cached = meta?.cachedContentTokenCount ?? 0;
  const thoughts = meta?.thoughtsTokenCount ?? 0;
  // Thoughts are billed as output; promptTokenCount includes the cached part.
  return usageWithCost(
    {
      input: (meta?.promptTokenCount ?? 0) - cached,
      cacheRead: cached,
      output: (meta?.candidatesTokenCount ?? 0) + thoughts,
      reasoning: thoughts,
    },
    model,
  );
}

/** STOP (or FINISH_REASON_UNSPECIFIED) is a finished turn; any other reason, known or new, is named as not finished. */
function finishReason(reason: string | undefined, hasCalls: boolean): FinishReason {
  if (reason === "MAX_TOKENS") return "max_tokens";
  if (reason && CONTENT_FILTER.has(reason)) return "content_filter";
  if (reason && MALFORMED_CALL.has(reason)) return "malformed_call";
  if (reason && reason !== "STOP" && reason !== "FINISH_REASON_UNSPECIFIED") return "incomplete";
  return hasCalls ? "tool_use" : "end_turn";
}

/** The SDK puts Google's JSON error body in the message text: lift it out so its wording and RetryInfo are read. */
function geminiError(err: unknown, ctx: AdapterContext): LlmError {
  if (err instanceof ApiError) {
    const start = err.message.indexOf("{");
    try {
      const body = JSON.parse(err.message.slice(start));
      if (start >= 0 && body?.error) {
        const message = String(
          body.error.message || `HTTP ${err.status} ${body.error.status ?? ""} with an empty body`.trim(),
        );
        return adapterError(
          { name: "ApiError", status: err.status, message, error: { ...body.error, message }, cause: err },
          ctx,
        );
      }
    } catch {
      // Not JSON: classify the SDK's error as it is.
    }
  }
  return adapterError(err, ctx);
}
