/**
 * Anthropic Messages adapter on @anthropic-ai/sdk: cache breakpoints on the system prompt, the last
 * tool and the last user message; thinking with signatures (redacted thinking kept); tool arguments
 * streamed as partial JSON; cache-aware usage.
 */
import Anthropic, { type APIPromise } from "@anthropic-ai/sdk";
import { supportsAdaptiveThinking } from "../catalog.ts";
import { classifyError } from "../classify.ts";
import { MessageBuilder } from "../message-builder.ts";
import { StreamedArguments, toolCallPart } from "../partial-json.ts";
import type {
  AssistantMessage,
  FinishReason,
  Message,
  ModelInfo,
  ReasoningEffort,
  Request,
  Response,
  ServerToolPart,
  StreamEvent,
  UserPart,
} from "../types.ts";
import { usageWithCost } from "../usage.ts";
import { WebSearchCollector } from "../web-search.ts";
import type { Adapter, AdapterContext } from "./types.ts";
import { eventStreamFetch } from "./event-stream-fetch.ts";
import { SDK_LOG_LEVEL, SDK_TIMEOUT_MS, sdkCache } from "./sdk-cache.ts";
import { readEvents } from "./server-sent-events.ts";

type Params = Anthropic.Messages.MessageCreateParamsNonStreaming;
type Block = Anthropic.Messages.ContentBlockParam;

const BUDGETS: Record<ReasoningEffort, number> = { low: 2048, medium: 8192, high: 24_576, xhigh: 32_000 };
const CACHE = { type: "ephemeral" } as const;

const STOP: Record<string, FinishReason> = {
  end_turn: "end_turn",
  stop_sequence: "end_turn",
  pause_turn: "pause_turn",
  max_tokens: "max_tokens",
  model_context_window_exceeded: "max_tokens",
  tool_use: "tool_use",
  refusal: "refusal",
};

/** A stop reason this adapter does not know yet ends the turn as unfinished, named, never as a success. */
const stopOf = (reason: string): FinishReason => STOP[reason] ?? "incomplete";

/** Anthropic's explanation of a refusal (`stop_details`), when it gives one. */
function stopDetail(delta: object): string | undefined {
  const details = (delta as { stop_details?: { explanation?: unknown } }).stop_details;
  return typeof details?.explanation === "string" ? details.explanation : undefined;
}

const sdk = sdkCache(({ baseUrl, apiKey, headers = {} }) => {
  // A bearer token (ANTHROPIC_AUTH_TOKEN) arrives as an authorization header.
  const { authorization, ...rest } = headers;
  const credential = authorization ? { authToken: authorization.replace(/^Bearer\s+/i, "") } : { apiKey: apiKey ?? "" };
  return new Anthropic({
    ...credential,
    baseURL: baseUrl,
    maxRetries: 0,
    timeout: SDK_TIMEOUT_MS,
    defaultHeaders: rest,
    logLevel: SDK_LOG_LEVEL,
    fetch: eventStreamFetch,
  });
});

export const anthropicAdapter: Adapter = {
  api: "anthropic-messages",

  async *stream(request, ctx) {
    const builder = new MessageBuilder(ctx.model.ref);
    const tools = new Map<number, { ordinal: number; id: string; name: string; json: StreamedArguments }>();
    /** Blocks of tools Anthropic runs itself, by block index, with their streamed input. */
    const serverBlocks = new Map<number, { block: Record<string, unknown>; json: string }>();
    // The provider's own web search: its server_tool_use blocks (the query streams in) and what it found and cited.
    const searches = new Map<number, StreamedArguments>();
    const web = new WebSearchCollector();
    let id: string | undefined;
    let stop: string | null = null;
    let detail: string | undefined;
    let counts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
    let batches: AsyncIterable<Anthropic.Messages.RawMessageStreamEvent[]>;
    try {
      const response = await postMessages<unknown>({ ...params(request, ctx.model), stream: true }, request, ctx)
        // The SDK's request (auth, headers, status errors); the body is read here (anthropicEvents).
        .asResponse();
      batches = anthropicEvents(response);
    } catch (err) {
      throw classifyError(err, ctx.model.provider);
    }
    try {
      for await (const events of batches) {
        // One chunk's events go on together; what came before a failure in it goes on first.
        const batch: StreamEvent[] = [];
        try {
          for (const event of events) {
            switch (event.type) {
              case "message_start": {
                id = event.message.id;
                counts = readUsage(event.message.usage, counts);
                batch.push({ type: "start", model: ctx.model.ref });
                break;
              }
              case "content_block_start": {
                const block = event.content_block;
                if (block.type === "redacted_thinking") builder.redacted(block.data);
                else if (block.type === "tool_use") {
                  const call = { ordinal: tools.size, id: block.id, name: block.name, json: new StreamedArguments() };
                  tools.set(event.index, call);
                  batch.push({ type: "tool_call_start", index: call.ordinal, id: call.id, name: call.name });
                } else if (block.type !== "text" && block.type !== "thinking") {
                  serverBlocks.set(event.index, { block: { ...(block as object) }, json: "" });
                  if (block.type === "server_tool_use") searches.set(event.index, new StreamedArguments());
                  else readSearchBlock(block, web);
                }
                break;
              }
              case "content_block_delta": {
                const delta = event.delta;
                if (delta.type === "text_delta") {
                  builder.text(delta.text);
                  batch.push({ type: "text_delta", delta: delta.text });
                } else if (delta.type === "thinking_delta") {
                  builder.thinking(delta.thinking);
                  batch.push({ type: "thinking_delta", delta: delta.thinking });
                } else if (delta.type === "signature_delta") builder.signature(delta.signature);
                else if (delta.type === "citations_delta") readCitation(delta.citation, web);
                else if (delta.type === "input_json_delta") {
                  const server = serverBlocks.get(event.index);
                  if (server) server.json += delta.partial_json;
                  searches.get(event.index)?.push(delta.partial_json);
                  const call = tools.get(event.index);
                  if (!call) break;
                  const partialArguments = call.json.push(delta.partial_json);
                  batch.push({
                    type: "tool_call_delta",
                    index: call.ordinal,
                    id: call.id,
                    delta: delta.partial_json,
                    ...(partialArguments ? { partialArguments } : {}),
                  });
                }
                break;
              }
              case "content_block_stop": {
                const server = serverBlocks.get(event.index);
                if (server) builder.serverTool(serverToolPart(server.block, server.json));
                const search = searches.get(event.index);
                if (search) web.searched(queryOf(search.final().arguments));
                const call = tools.get(event.index);
                if (!call) break;
                const part = toolCallPart(call.id, call.name, call.json.final());
                builder.toolCall(part);
                batch.push({ type: "tool_call_end", index: call.ordinal, call: part });
                break;
              }
              case "message_delta": {
                stop = event.delta.stop_reason ?? stop;
                detail = stopDetail(event.delta) ?? detail;
                counts = readUsage(event.usage, counts);
                web.billed(searchRequests(event.usage));
                break;
              }
              case "message_stop":
                break;
              default:
                // An error event inside the 200 (overloaded mid-stream) is thrown before it gets here;
                // anything else (event types newer than this adapter) carries no content.
                if ((event as { type: string }).type === "error") throw (event as unknown as { error: unknown }).error;
            }
          }
        } catch (err) {
          if (batch.length > 0) yield batch;
          throw err;
        }
        if (batch.length > 0) yield batch;
      }
    } catch (err) {
      throw classifyError(err, ctx.model.provider);
    }
    if (stop === null)
      throw classifyError(new Error("terminated: the stream ended before message_delta"), ctx.model.provider);
    const usage = web.priced(usageWithCost(counts, ctx.model), "anthropic-messages");
    yield [
      {
        type: "finish",
        response: builder.response({
          id,
          usage,
          finishReason: stopOf(stop),
          finishDetail: detail,
          webSearch: web.activity(),
        }),
      },
    ];
  },

  async complete(request, ctx): Promise<Response> {
    let message: Anthropic.Messages.Message;
    try {
      message = await postMessages<Anthropic.Messages.Message>(params(request, ctx.model), request, ctx);
    } catch (err) {
      throw classifyError(err, ctx.model.provider);
    }
    const builder = new MessageBuilder(ctx.model.ref);
    const web = new WebSearchCollector();
    for (const block of message.content) {
      if (block.type === "server_tool_use") web.searched(queryOf(block.input));
      else readSearchBlock(block, web);
      if (block.type === "text") builder.text(block.text);
      else if (block.type === "thinking") {
        builder.thinking(block.thinking);
        builder.signature(block.signature);
      } else if (block.type === "redacted_thinking") builder.redacted(block.data);
      else if (block.type === "tool_use")
        builder.toolCall({
          type: "tool_call",
          id: block.id,
          name: block.name,
          arguments: (block.input ?? {}) as Record<string, unknown>,
        });
      else builder.serverTool(serverToolPart({ ...(block as object) }, ""));
    }
    web.billed(searchRequests(message.usage));
    const usage = web.priced(
      usageWithCost(readUsage(message.usage, { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }), ctx.model),
      "anthropic-messages",
    );
    return builder.response({
      id: message.id,
      usage,
      finishReason: stopOf(message.stop_reason ?? "end_turn"),
      finishDetail: stopDetail(message),
      webSearch: web.activity(),
    });
  },
};

/** A server tool's block as it will go back: its streamed input, when it had one, parsed in. */
function serverToolPart(block: Record<string, unknown>, json: string): ServerToolPart {
  if (json.trim()) {
    try {
      block.input = JSON.parse(json);
    } catch {
      // Cut off: the block keeps the input it started with.
    }
  }
  return { type: "server_tool", api: "anthropic-messages", block };
}

/**
 * The events of a Messages stream, a network chunk's worth at a time, read with the rules of the
 * SDK's own reader: `ping` and events without a name are skipped, an `error` event is thrown as the
 * SDK's APIError.
 */
function anthropicEvents(response: globalThis.Response): AsyncGenerator<Anthropic.Messages.RawMessageStreamEvent[]> {
  if (!response.body) throw new Anthropic.AnthropicError("The stream response has no body");
  return readEvents(response.body, ({ event, data }) => {
    if (event === null || event === "ping") return undefined;
    if (event !== "error") return data ? (JSON.parse(data) as Anthropic.Messages.RawMessageStreamEvent) : undefined;
    let body: unknown = data;
    try {
      body = JSON.parse(data);
    } catch {
      // Not JSON: the text is the error.
    }
    const type = (body as { error?: { type?: Anthropic.ErrorType } } | null)?.error?.type;
    throw new Anthropic.APIError(undefined, body as object, undefined, response.headers, type);
  });
}

function client(ctx: AdapterContext): Anthropic {
  return sdk({ baseUrl: ctx.baseUrl, apiKey: ctx.apiKey, headers: ctx.headers });
}

/**
 * POST /v1/messages through the SDK's own transport (auth, headers, SSE parsing, error types).
 * `messages.create` would also print deprecation notices straight to the console, which garbles
 * a terminal UI and the RPC host's stderr on every request.
 */
function postMessages<T>(
  body: Params | (Omit<Params, "stream"> & { stream: true }),
  request: Request,
  ctx: AdapterContext,
): APIPromise<T> {
  return client(ctx).post<T>("/v1/messages", {
    body,
    ...requestOptions(request, ctx),
    stream: body.stream === true,
    timeout: SDK_TIMEOUT_MS,
  });
}

function requestOptions(request: Request, ctx: AdapterContext) {
  const betas = request.providerOptions?.anthropic?.betaHeaders;
  const headers = Array.isArray(betas) && betas.length ? { "anthropic-beta": betas.join(",") } : undefined;
  return { signal: ctx.signal, headers };
}

type Counts = { input: number; output: number; cacheRead: number; cacheWrite: number };

/** message_start carries input counts, message_delta the final (cumulative) ones. */
function readUsage(usage: object | null | undefined, prev: Counts): Counts {
  const u = (usage ?? {}) as Record<string, unknown>;
  const num = (v: unknown, fallback: number) => (typeof v === "number" ? v : fallback);
  return {
    input: num(u.input_tokens, prev.input),
    output: num(u.output_tokens, prev.output),
    cacheRead: num(u.cache_read_input_tokens, prev.cacheRead),
    cacheWrite: num(u.cache_creation_input_tokens, prev.cacheWrite),
  };
}

/** The query of a web_search server_tool_use block's input. */
function queryOf(input: unknown): string | undefined {
  const query = (input as { query?: unknown } | null)?.query;
  return typeof query === "string" ? query : undefined;
}

/** usage.server_tool_use.web_search_requests: the searches Anthropic bills for this message. */
function searchRequests(usage: unknown): number {
  const n = (usage as { server_tool_use?: { web_search_requests?: unknown } } | null)?.server_tool_use
    ?.web_search_requests;
  return typeof n === "number" ? n : 0;
}

/** A web_search_tool_result block's results, and the web citations a text block starts with. */
function readSearchBlock(block: unknown, web: WebSearchCollector): void {
  const b = block as { type?: string; content?: unknown; citations?: unknown };
  if (b.type === "web_search_tool_result" && Array.isArray(b.content)) {
    for (const r of b.content as { type?: string; url?: string; title?: string }[])
      if (r.type === "web_search_result") web.result(r);
  } else if (b.type === "text" && Array.isArray(b.citations)) for (const c of b.citations) readCitation(c, web);
}

function readCitation(citation: unknown, web: WebSearchCollector): void {
  const c = citation as { type?: string; url?: string; title?: string } | null;
  if (c?.type === "web_search_result_location") web.citation({ url: c.url, title: c.title ?? undefined });
}

/** Anthropic's web search server tool (the API runs the searches; results and citations come back in the answer). */
export const ANTHROPIC_WEB_SEARCH_TOOL = { type: "web_search_20250305", name: "web_search" } as const;

/** The SDK parameters for a unified request. */
export function params(request: Request, model: ModelInfo): Params {
  const effort = request.reasoningEffort && model.reasoning ? request.reasoningEffort : null;
  const budget = effort ? BUDGETS[effort] : 0;
  let maxTokens = request.maxTokens ?? model.maxOutput;
  if (effort && !supportsAdaptiveThinking(model) && maxTokens <= budget)
    maxTokens = budget + Math.min(8192, model.maxOutput);
  const p: Params = {
    model: model.id,
    max_tokens: maxTokens,
    messages: messages(request.messages),
  };
  if (request.system) p.system = [{ type: "text", text: request.system, cache_control: CACHE }];
  if (request.tools?.length) {
    p.tools = request.tools.map((t, i, all) => ({
      name: t.name,
      description: t.description,
      input_schema: t.parameters as Anthropic.Messages.Tool.InputSchema,
      ...(i === all.length - 1 ? { cache_control: CACHE } : {}),
    }));
  }
  if (request.webSearch)
    p.tools = [...(p.tools ?? []), ANTHROPIC_WEB_SEARCH_TOOL as unknown as Anthropic.Messages.Tool];
  const choice = request.toolChoice;
  if (choice && request.tools?.length) {
    p.tool_choice =
      typeof choice === "object"
        ? { type: "tool", name: choice.name }
        : choice === "required"
          ? { type: "any" }
          : { type: choice };
  }
  if (request.outputSchema)
    p.output_config = { format: { type: "json_schema", schema: request.outputSchema } } as Params["output_config"];
  // The Messages API of this SDK generation takes no temperature: request.temperature is not sent.
  if (effort)
    p.thinking = supportsAdaptiveThinking(model) ? { type: "adaptive" } : { type: "enabled", budget_tokens: budget };
  return p;
}

/** Unified messages to Anthropic's: tool results (and anything user-side after them) share one user turn. */
function messages(list: Message[]): Anthropic.Messages.MessageParam[] {
  const out: { role: "user" | "assistant"; content: Block[] }[] = [];
  const push = (role: "user" | "assistant", blocks: Block[]) => {
    if (!blocks.length) return;
    const last = out.at(-1);
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of list) {
    if (m.role === "user") push("user", userBlocks(m.content));
    else if (m.role === "tool") {
      const content =
        typeof m.content === "string"
          ? m.content
          : (userBlocks(m.content) as Anthropic.Messages.ToolResultBlockParam["content"]);
      push("user", [{ type: "tool_result", tool_use_id: m.toolCallId, content, is_error: m.isError }]);
    } else push("assistant", assistantBlocks(m));
  }
  // Cache breakpoint on the newest user content: the whole prefix before it is reused next turn.
  const lastUser = out.findLast((m) => m.role === "user");
  const lastBlock = lastUser?.content.at(-1) as { cache_control?: unknown } | undefined;
  if (lastBlock) lastBlock.cache_control = CACHE;
  return out;
}

function userBlocks(content: string | UserPart[]): Block[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  return content.flatMap((p): Block[] => {
    if (p.type === "text") return p.text ? [{ type: "text", text: p.text }] : [];
    return [{ type: "image", source: { type: "base64", media_type: p.mimeType as "image/png", data: p.data } }];
  });
}

function assistantBlocks(m: AssistantMessage): Block[] {
  return m.content.flatMap((p): Block[] => {
    if (p.type === "text") return p.text ? [{ type: "text", text: p.text }] : [];
    if (p.type === "tool_call") return [{ type: "tool_use", id: p.id, name: p.name, input: p.arguments }];
    // A tool Anthropic ran itself goes back as the block it sent; never to another API.
    if (p.type === "server_tool") return p.api === "anthropic-messages" ? [p.block as unknown as Block] : [];
    if (p.redacted) return p.signature ? [{ type: "redacted_thinking", data: p.signature }] : [];
    if (p.signature) return [{ type: "thinking", thinking: p.text, signature: p.signature }];
    // Unsigned thinking cannot be replayed as thinking; keep what it said.
    return p.text.trim() ? [{ type: "text", text: `<thinking>\n${p.text}\n</thinking>` }] : [];
  });
}
