/**
 * OpenAI Responses API adapter (the default API of provider openai), on the official `openai` SDK.
 * Requests are stateless (`store: false`): encrypted reasoning comes back on every reasoning item and
 * is sent again on the next request to the same model, so the model keeps its chain of thought.
 * Tool-call ids are composites "call_id|item_id": the call id pairs a call with its output, the item
 * id pairs a call with the reasoning item that preceded it. Tools with a freeform format are sent
 * as custom tools; the model's custom_tool_call (raw text) arrives as a call with `{ input }`.
 */
import type OpenAI from "openai";
import { classifyError } from "../classify.ts";
import type { LlmError } from "../errors.ts";
import { MessageBuilder } from "../message-builder.ts";
import { finalArguments, StreamedArguments, toolCallPart } from "../partial-json.ts";
import { normalizeToolCallId } from "../transform.ts";
import { textOf } from "../types.ts";
import type {
  AssistantMessage,
  AssistantPart,
  FinishReason,
  Message,
  ModelInfo,
  Request,
  StreamEvent,
  ThinkingPart,
  ToolCallPart,
  UserPart,
} from "../types.ts";
import { usageWithCost } from "../usage.ts";
import { WebSearchCollector } from "../web-search.ts";
import { adapterError, fromSameModel, relayStream, truncatedStream } from "./common.ts";
import { openaiClient, openaiEvents } from "./openai-client.ts";
import type { Adapter, AdapterContext } from "./types.ts";

type Params = Omit<OpenAI.Responses.ResponseCreateParamsNonStreaming, "stream">;
type InputItem = OpenAI.Responses.ResponseInputItem;
type OutputItem = OpenAI.Responses.ResponseOutputItem;
type ApiResponse = OpenAI.Responses.Response;

/** The longest item id or call id the API takes. */
const MAX_ID = 64;

export const openaiResponsesAdapter: Adapter = {
  api: "openai-responses",

  async *stream(request, ctx) {
    const turn = new Turn(ctx);
    yield* relayStream(
      ctx,
      async () =>
        openaiEvents<OpenAI.Responses.ResponseStreamEvent>(
          await client(ctx)
            .responses.create({ ...params(request, ctx), stream: true }, { signal: ctx.signal })
            .asResponse(),
          undefined,
          REPEATS,
        ),
      function* (events) {
        for (const event of events) yield* turn.handle(event);
      },
    );
    // The SDK ends the iteration quietly on abort; a missing response.completed is a lost stream.
    if (!turn.final || ctx.signal.aborted) throw truncatedStream(ctx);
    yield [{ type: "finish", response: turn.response(turn.final) }];
  },

  async complete(request, ctx) {
    let result: ApiResponse;
    try {
      result = await client(ctx).responses.create({ ...params(request, ctx), stream: false }, { signal: ctx.signal });
    } catch (err) {
      throw adapterError(err, ctx);
    }
    if (result.status === "failed") throw failure(result.error, ctx);
    const turn = new Turn(ctx);
    result.output.forEach((item, index) => {
      for (const _ of turn.added(index, item));
      for (const _ of turn.itemDone(index, item));
    });
    return turn.response(result);
  },
};

const client = openaiClient;

function params(request: Request, ctx: AdapterContext): Params {
  const { model } = ctx;
  const freeform = new Set((request.tools ?? []).filter((t) => t.format).map((t) => t.name));
  const body: Params = { model: model.id, input: toInput(request.messages, model, freeform), store: false };
  if (request.system) body.instructions = request.system;
  if (request.tools?.length) {
    // A tool with a freeform format goes as a custom tool: the model writes raw text for it.
    body.tools = request.tools.map((t) =>
      t.format
        ? {
            type: "custom",
            name: t.name,
            description: t.description,
            format: { type: "grammar", syntax: t.format.syntax, definition: t.format.definition },
          }
        : { type: "function", name: t.name, description: t.description, parameters: t.parameters, strict: false },
    );
  }
  // The hosted web search: the API runs it and returns web_search_call items and url_citation annotations.
  if (request.webSearch) body.tools = [...(body.tools ?? []), { type: "web_search" }];
  if (request.toolChoice) {
    const choice = request.toolChoice;
    const custom = typeof choice !== "string" && request.tools?.some((t) => t.name === choice.name && t.format);
    body.tool_choice =
      typeof choice === "string" ? choice : { type: custom ? "custom" : "function", name: choice.name };
  }
  if (request.maxTokens) body.max_output_tokens = request.maxTokens;
  // Structured output, not strict: strict mode accepts only schemas that list every property as required.
  if (request.outputSchema)
    body.text = { format: { type: "json_schema", name: "answer", schema: request.outputSchema, strict: false } };
  if (model.reasoning) {
    body.reasoning = { summary: "auto", ...(request.reasoningEffort ? { effort: request.reasoningEffort } : {}) };
    body.include = ["reasoning.encrypted_content"];
  } else if (request.temperature !== undefined) {
    // Reasoning models reject a temperature.
    body.temperature = request.temperature;
  }
  return { ...body, ...request.providerOptions?.[model.provider] };
}

/**
 * The conversation as input items. A call the model made to a freeform tool (marked on the part,
 * or to a tool that is freeform now) goes back as a custom_tool_call, and its result as a
 * custom_tool_call_output: the API pairs each output with a call of its own kind.
 */
function toInput(messages: Message[], model: ModelInfo, freeform: ReadonlySet<string>): InputItem[] {
  const input: InputItem[] = [];
  const customCalls = new Set<string>();
  messages.forEach((m, i) => {
    // Content from outside may be null (docs/conformance.md: J.9 4.5): it counts as empty text.
    if (m.role === "user")
      input.push({ role: "user", content: Array.isArray(m.content) ? m.content.map(inputPart) : (m.content ?? "") });
    else if (m.role === "tool") {
      const callId = splitCallId(m.toolCallId).callId;
      if (customCalls.has(callId))
        input.push({ type: "custom_tool_call_output", call_id: callId, output: textOf(m.content, "\n") });
      else input.push({ type: "function_call_output", call_id: callId, output: toolOutput(m.content ?? "") });
    } else input.push(...assistantItems(m, i, model, freeform, customCalls));
  });
  return input;
}

function isFreeformCall(part: ToolCallPart, freeform: ReadonlySet<string>): boolean {
  return part.providerData?.freeform === true || freeform.has(part.name);
}

function inputPart(part: UserPart): OpenAI.Responses.ResponseInputContent {
  return part.type === "text"
    ? { type: "input_text", text: part.text }
    : { type: "input_image", image_url: `data:${part.mimeType};base64,${part.data}`, detail: "auto" };
}

function toolOutput(content: string | UserPart[]): string | OpenAI.Responses.ResponseFunctionCallOutputItemList {
  if (typeof content === "string") return content;
  if (!content.some((p) => p.type === "image")) return content.map((p) => (p.type === "text" ? p.text : "")).join("\n");
  return content.map(inputPart) as OpenAI.Responses.ResponseFunctionCallOutputItemList;
}

function assistantItems(
  message: AssistantMessage,
  index: number,
  model: ModelInfo,
  freeform: ReadonlySet<string>,
  customCalls: Set<string>,
): InputItem[] {
  // A turn that searched had its reasoning items between web_search_call items, which are not sent
  // back: its reasoning stays out too, as a reasoning item must be followed by the item it led to.
  const same = fromSameModel(message, model) && !message.webSearch;
  const raw = message.content as AssistantMessage["content"] | string | null;
  const content: AssistantPart[] = Array.isArray(raw) ? raw : raw ? [{ type: "text", text: raw }] : [];
  const items: InputItem[] = [];
  content.forEach((part, j) => {
    if (part.type === "text") {
      // A replayed reasoning item must be followed by an output item: text goes back as one, with an id.
      if (part.text)
        items.push({
          type: "message",
          role: "assistant",
          id: `msg_${index}_${j}`,
          status: "completed",
          content: [{ type: "output_text", text: part.text, annotations: [] }],
        });
    } else if (part.type === "thinking") {
      const reasoning = same ? reasoningItem(part) : undefined;
      if (reasoning) items.push(reasoning);
    } else if (part.type === "tool_call") {
      const { callId, itemId } = splitCallId(part.id);
      const id = same && itemId ? { id: itemId } : {};
      if (isFreeformCall(part, freeform)) {
        customCalls.add(callId);
        const raw = part.arguments?.input;
        items.push({
          type: "custom_tool_call",
          call_id: callId,
          name: part.name,
          input: typeof raw === "string" ? raw : "",
          ...id,
        });
      } else
        items.push({
          type: "function_call",
          call_id: callId,
          name: part.name,
          arguments: JSON.stringify(part.arguments ?? {}),
          ...id,
        });
    }
  });
  return items;
}

/** The reasoning item a thinking part came from; its signature holds `{ id, encrypted_content }`. */
function reasoningItem(part: ThinkingPart): OpenAI.Responses.ResponseReasoningItem | undefined {
  if (!part.signature) return undefined;
  try {
    const { id, encrypted_content } = JSON.parse(part.signature);
    if (typeof id !== "string" || typeof encrypted_content !== "string") return undefined;
    return {
      type: "reasoning",
      id,
      encrypted_content,
      summary: part.text ? [{ type: "summary_text", text: part.text }] : [],
    };
  } catch {
    return undefined;
  }
}

/** "call_id|item_id" → its halves, each fitted to what the API takes (an item id too long is dropped). */
function splitCallId(id: string): { callId: string; itemId?: string } {
  const bar = id.indexOf("|");
  const call = bar < 0 ? id : id.slice(0, bar);
  const item = bar < 0 ? undefined : id.slice(bar + 1);
  return {
    callId: normalizeToolCallId(call, "openai-responses"),
    itemId: item && item.length <= MAX_ID ? item : undefined,
  };
}

/**
 * Events that repeat, whole, what the deltas before them delivered (a call's arguments, a text):
 * Turn.handle does not read them, so they are not parsed (a 20 MB argument is 20 MB more JSON each).
 */
const REPEATS: ReadonlySet<string> = new Set<OpenAI.Responses.ResponseStreamEvent["type"]>([
  "response.function_call_arguments.done",
  "response.custom_tool_call_input.done",
  "response.output_text.done",
  "response.refusal.done",
  "response.content_part.done",
  "response.reasoning_summary_text.done",
  "response.reasoning_summary_part.done",
  "response.reasoning_text.done",
]);

/** One turn's parts, built from stream events or from the items of a complete response. */
class Turn {
  final?: ApiResponse;
  private readonly parts: AssistantPart[] = [];
  private readonly byOutput = new Map<
    number,
    { part: AssistantPart; toolIndex: number; args: StreamedArguments; done: boolean }
  >();
  private toolCount = 0;
  private refused = false;
  private readonly web = new WebSearchCollector();

  constructor(private readonly ctx: AdapterContext) {}

  /** True once stream events arrived (their items were read as they finished). */
  private streamed = false;

  *handle(event: OpenAI.Responses.ResponseStreamEvent): Generator<StreamEvent> {
    this.streamed = true;
    switch (event.type) {
      case "response.output_item.added":
        yield* this.added(event.output_index, event.item);
        break;
      case "response.reasoning_summary_part.added":
        // Summary parts are paragraphs of one thought.
        if (event.summary_index > 0) yield* this.thinking(event.output_index, "\n\n");
        break;
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        yield* this.thinking(event.output_index, event.delta);
        break;
      case "response.output_text.delta":
        yield* this.text(event.output_index, event.delta);
        break;
      case "response.refusal.delta":
        this.refused = true;
        yield* this.text(event.output_index, event.delta);
        break;
      case "response.function_call_arguments.delta":
      case "response.custom_tool_call_input.delta":
        yield* this.args(event.output_index, event.delta);
        break;
      case "response.output_item.done":
        readWebSearch(event.item, this.web);
        yield* this.itemDone(event.output_index, event.item);
        break;
      case "response.output_text.annotation.added":
        readAnnotation(event.annotation, this.web);
        break;
      case "response.completed":
      case "response.incomplete":
        this.final = event.response;
        break;
      case "response.failed":
        throw failure(event.response.error, this.ctx);
      case "error":
        throw failure({ code: event.code ?? "", message: event.message }, this.ctx);
    }
  }

  *added(index: number, item: OutputItem): Generator<StreamEvent> {
    if (item.type === "reasoning") this.open(index, { type: "thinking", text: "" });
    else if (item.type === "message") this.open(index, { type: "text", text: "" });
    else if (item.type === "function_call") {
      const call: ToolCallPart = {
        type: "tool_call",
        id: `${item.call_id}|${item.id}`,
        name: item.name,
        arguments: {},
      };
      const toolIndex = this.toolCount++;
      this.open(index, call, toolIndex);
      yield { type: "tool_call_start", index: toolIndex, id: call.id, name: call.name };
    } else if (item.type === "custom_tool_call") {
      // A freeform call: its raw text becomes the `input` argument; the mark sends it back as one.
      const call: ToolCallPart = {
        type: "tool_call",
        id: `${item.call_id}|${item.id ?? ""}`,
        name: item.name,
        arguments: { input: "" },
        providerData: { freeform: true },
      };
      const toolIndex = this.toolCount++;
      this.open(index, call, toolIndex, "raw");
      yield { type: "tool_call_start", index: toolIndex, id: call.id, name: call.name };
    }
  }

  *itemDone(index: number, item: OutputItem): Generator<StreamEvent> {
    const state = this.byOutput.get(index);
    if (!state) return;
    const { part } = state;
    if (item.type === "reasoning" && part.type === "thinking") {
      if (!part.text) part.text = [...item.summary, ...(item.content ?? [])].map((s) => s.text).join("\n\n");
      if (item.encrypted_content)
        part.signature = JSON.stringify({ id: item.id, encrypted_content: item.encrypted_content });
    } else if (item.type === "message" && part.type === "text") {
      if (item.content.some((c) => c.type === "refusal")) this.refused = true;
      if (!part.text)
        part.text =
          this.paragraph(part) + item.content.map((c) => (c.type === "output_text" ? c.text : c.refusal)).join("");
    } else if (item.type === "function_call" && part.type === "tool_call") {
      state.done = true;
      Object.assign(
        part,
        toolCallPart(`${item.call_id}|${item.id}`, part.name, finalArguments(item.arguments || state.args.text)),
      );
      yield { type: "tool_call_end", index: state.toolIndex, call: part };
    } else if (item.type === "custom_tool_call" && part.type === "tool_call") {
      part.id = `${item.call_id}|${item.id ?? ""}`;
      state.done = true;
      part.arguments = { input: item.input ?? state.args.text };
      yield { type: "tool_call_end", index: state.toolIndex, call: part };
    }
  }

  response(result: ApiResponse) {
    // A call whose item never finished (the response stopped at the output limit) cannot run.
    for (const state of this.byOutput.values()) {
      if (state.part.type !== "tool_call" || state.done) continue;
      Object.assign(state.part, toolCallPart(state.part.id, state.part.name, state.args.final()));
      state.part.invalidArguments ??= "the call was not finished";
    }
    const builder = new MessageBuilder(this.ctx.model.ref);
    // Items that produced nothing (an empty summary without encrypted content) leave no part.
    builder.parts.push(
      ...this.parts.filter((p) =>
        p.type === "text" ? p.text !== "" : p.type === "thinking" ? p.text !== "" || p.signature : true,
      ),
    );
    // A complete (non-streamed) response brings its items only here.
    if (!this.streamed) for (const item of result.output ?? []) readWebSearch(item, this.web);
    const reason = finishReason(result, builder.parts, this.refused);
    const detail = result.status === "incomplete" ? (result.incomplete_details?.reason ?? undefined) : undefined;
    const priced = this.web.priced(usage(result.usage, this.ctx.model), "openai-responses");
    return builder.response({
      usage: priced,
      finishReason: reason,
      finishDetail: detail,
      id: result.id,
      webSearch: this.web.activity(),
    });
  }

  private open(index: number, part: AssistantPart, toolIndex = -1, mode: "json" | "raw" = "json"): void {
    this.parts.push(part);
    this.byOutput.set(index, { part, toolIndex, args: new StreamedArguments(undefined, mode), done: false });
  }

  private *thinking(index: number, delta: string): Generator<StreamEvent> {
    const part = this.byOutput.get(index)?.part;
    if (part?.type !== "thinking" || !delta) return;
    part.text += delta;
    yield { type: "thinking_delta", delta };
  }

  private *text(index: number, delta: string): Generator<StreamEvent> {
    const part = this.byOutput.get(index)?.part;
    if (part?.type !== "text" || !delta) return;
    // A second message (the final answer after a commentary one) starts a new paragraph.
    if (!part.text) delta = this.paragraph(part) + delta;
    part.text += delta;
    yield { type: "text_delta", delta };
  }

  /** "\n\n" when a message before `part` already said something, so two messages never run together. */
  private paragraph(part: AssistantPart): string {
    const before = this.parts.slice(0, this.parts.indexOf(part));
    return before.some((p) => p.type === "text" && p.text.trim() !== "") ? "\n\n" : "";
  }

  private *args(index: number, delta: string): Generator<StreamEvent> {
    const state = this.byOutput.get(index);
    if (state?.part.type !== "tool_call") return;
    // A freeform call's snapshot (when one is due) is its raw text so far as `{ input }`.
    const partialArguments = state.args.push(delta);
    if (partialArguments) state.part.arguments = partialArguments;
    yield {
      type: "tool_call_delta",
      index: state.toolIndex,
      id: state.part.id,
      delta,
      ...(partialArguments ? { partialArguments } : {}),
    };
  }
}

/** A web_search_call item (one billed call: a search with its sources, or a page it opened) and a message's url_citation annotations. */
function readWebSearch(item: unknown, web: WebSearchCollector): void {
  const it = item as {
    type?: string;
    action?: { type?: string; query?: string; url?: string; sources?: { url?: string }[] };
    content?: { annotations?: unknown[] }[];
  };
  if (it.type === "web_search_call") {
    web.searched(it.action?.type === "search" ? it.action.query : undefined);
    for (const source of it.action?.sources ?? []) web.result(source);
    if (it.action?.url) web.result({ url: it.action.url });
  } else if (it.type === "message")
    for (const part of it.content ?? []) for (const a of part.annotations ?? []) readAnnotation(a, web);
}

function readAnnotation(annotation: unknown, web: WebSearchCollector): void {
  const a = annotation as { type?: string; url?: string; title?: string } | null;
  if (a?.type === "url_citation") web.citation(a);
}

function usage(u: OpenAI.Responses.ResponseUsage | null | undefined, model: ModelInfo) {
  const cached = u?.input_tokens_details?.cached_tokens ?? 0;
  return usageWithCost(
    {
      input: (u?.input_tokens ?? 0) - cached,
      output: u?.output_tokens ?? 0,
      cacheRead: cached,
      reasoning: u?.output_tokens_details?.reasoning_tokens ?? 0,
    },
    model,
  );
}

function finishReason(result: ApiResponse, parts: AssistantPart[], refused: boolean): FinishReason {
  if (result.status === "incomplete") {
    const reason = result.incomplete_details?.reason;
    return reason === "max_output_tokens"
      ? "max_tokens"
      : reason === "content_filter"
        ? "content_filter"
        : "incomplete";
  }
  if (result.status === "cancelled") return "aborted";
  if (parts.some((p) => p.type === "tool_call")) return "tool_use";
  return refused ? "refusal" : "end_turn";
}

/** A failure the API reported inside a 200 (response.failed, an error event), classified by its code. */
function failure(error: { code: string; message: string } | null | undefined, ctx: AdapterContext): LlmError {
  const code = error?.code ?? "server_error";
  const message = error?.message ?? "The response failed";
  return classifyError({ message, error: { type: code, code, message } }, ctx.model.provider);
}
