/**
 * The LLM client: picks the adapter for a model's wire API, finds its key and base URL, transforms
 * the messages, and applies the one retry policy and the stream idle watchdog. `stream()` never
 * throws: it ends with one `finish` or one `error` event.
 */
import process from "node:process";
import type { Adapter, AdapterContext } from "./adapters/types.ts";
import { getModel, listModels, type ModelFilter } from "./catalog.ts";
import { classifyError } from "./classify.ts";
import { LlmError } from "./errors.ts";
import { MessageBuilder } from "./message-builder.ts";
import { providerRegistry, type CustomProvider, type ProviderPreset } from "./providers.ts";
import { abortedError, DEFAULT_RETRY, retryStep, sleep, withRetry, type RetryPolicy } from "./retry.ts";
import { transformMessages } from "./transform.ts";
import type {
  CallOptions,
  ClientStreamEvent,
  LlmClient,
  ModelInfo,
  Request,
  Response,
  StreamEvent,
  WireApi,
} from "./types.ts";

export interface ClientOptions {
  /** Keys by provider id; they win over the environment. */
  apiKeys?: Record<string, string>;
  /** Base URLs by provider id; they win over the environment and the presets. */
  baseUrls?: Record<string, string>;
  /** Where keys and base URLs are looked up (default process.env). */
  env?: Record<string, string | undefined>;
  retry?: Partial<RetryPolicy>;
  /** A stream that delivers nothing for this long is abandoned with a timeout error (default 60 s). */
  streamIdleTimeoutMs?: number;
  /** Extra providers (OpenAI-compatible unless `api` says otherwise). */
  providers?: CustomProvider[];
  /**
   * How the caller's users give a key besides the environment, for the missing-key message
   * (the CLI names its flag); default: the `apiKeys` option.
   */
  keyHint?: (provider: string) => string;
  /**
   * The adapter every call goes to, whatever the model's wire API: an in-process model (the
   * scripted client of lib/testing). No key is needed then; messages, retries, the idle watchdog
   * and the accumulation of the answer are the client's as for any provider.
   */
  adapter?: Adapter;
  /**
   * Models to try, in order, when a call's model is overloaded or not found once its retries are
   * spent (Claude Code's --fallback-model). Each call starts again with the model it asked for.
   */
  fallbackModels?: string[];
}

export interface Client extends LlmClient {
  listModels(filter?: ModelFilter): ModelInfo[];
}

/** Each adapter (and so its SDK) loads on first use: a run pays only for the provider it talks to. */
const ADAPTERS: Record<WireApi, () => Promise<Adapter>> = {
  "anthropic-messages": () => import("./adapters/anthropic.ts").then((m) => m.anthropicAdapter),
  "openai-responses": () => import("./adapters/openai-responses.ts").then((m) => m.openaiResponsesAdapter),
  "openai-chat": () => import("./adapters/openai-chat.ts").then((m) => m.openaiChatAdapter),
  gemini: () => import("./adapters/gemini.ts").then((m) => m.geminiAdapter),
};

interface PreparedCall {
  model: ModelInfo;
  adapter: Adapter;
  request: Request;
  context: Omit<AdapterContext, "signal">;
}

export function createClient(options: ClientOptions = {}): Client {
  const env = options.env ?? process.env;
  const registry = providerRegistry(options.providers);
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  const idleMs = options.streamIdleTimeoutMs ?? 60_000;

  // Every request asks for its model's info: it is looked up once per model.
  const models = new Map<string, ModelInfo>();
  const model = (ref: string): ModelInfo => {
    let info = models.get(ref);
    if (!info) models.set(ref, (info = getModel(ref, registry)));
    return info;
  };

  async function prepare(request: Request): Promise<PreparedCall> {
    const info = model(request.model);
    const preset = registry.get(info.provider) as ProviderPreset;
    const auth = options.adapter ? {} : credentials(preset, options.apiKeys, env, options.keyHint);
    const baseUrl =
      options.baseUrls?.[preset.id] ?? (preset.baseUrlEnv ? env[preset.baseUrlEnv] : undefined) ?? preset.baseUrl;
    return {
      model: info,
      adapter: options.adapter ?? (await ADAPTERS[info.api]()),
      request: {
        ...request,
        messages: transformMessages(request.messages, { model: info, toolCallIds: preset.quirks.toolCallIds }),
      },
      context: { model: info, baseUrl, ...auth },
    };
  }

  async function complete(request: Request, callOptions: CallOptions = {}): Promise<Response> {
    let call: PreparedCall;
    try {
      call = await prepare(request);
    } catch (err) {
      throw classifyError(err);
    }
    const signal = callOptions.signal ?? new AbortController().signal;
    return withRetry(
      () => call.adapter.complete(call.request, { ...call.context, signal }),
      (e) => unreachable(classifyError(e, call.model.provider), call.context.baseUrl),
      policy,
      {
        signal: callOptions.signal,
      },
    );
  }

  /** The call on its model, then on each fallback model while the one before was overloaded or not found. */
  async function* stream(request: Request, callOptions: CallOptions = {}): AsyncGenerator<ClientStreamEvent> {
    const models = [request.model, ...(options.fallbackModels ?? []).filter((m) => m !== request.model)];
    let started = false;
    for (const [i, model] of models.entries()) {
      const next = models[i + 1];
      let content = false;
      let fellBack = false;
      for await (const event of streamOn({ ...request, model }, callOptions)) {
        if (event.type === "error" && !content && next !== undefined && fallsBack(event.error)) {
          yield {
            type: "retry",
            attempt: i + 1,
            delayMs: 0,
            error: { ...event.error, message: `${event.error.message}; falling back to ${next}` },
          };
          fellBack = true;
          break;
        }
        if (event.type === "start") {
          if (started) continue;
          started = true;
        } else if (event.type !== "retry") content = true;
        yield event;
      }
      if (!fellBack) return;
    }
  }

  async function* streamOn(request: Request, callOptions: CallOptions): AsyncGenerator<ClientStreamEvent> {
    const user = callOptions.signal;
    let call: PreparedCall;
    try {
      call = await prepare(request);
    } catch (err) {
      yield errorEvent(classifyError(err), new MessageBuilder(request.model));
      return;
    }
    const partial = new MessageBuilder(call.model.ref);
    let started = false;
    for (let attempt = 1; ; attempt++) {
      const controller = new AbortController();
      const forwardAbort = () => controller.abort();
      user?.addEventListener("abort", forwardAbort, { once: true });
      if (user?.aborted) controller.abort();
      let contentSeen = false;
      let failure: LlmError;
      let events: AsyncIterator<StreamEvent[]> | undefined;
      let watched: WatchedEvents | undefined;
      try {
        events = call.adapter
          .stream(call.request, { ...call.context, signal: controller.signal })
          [Symbol.asyncIterator]();
        watched = new WatchedEvents(events, idleMs, controller, user, call.model);
        for (;;) {
          const next = await watched.next();
          if (next.done)
            throw new LlmError("server", `${call.model.provider}: the stream ended without a final message`);
          for (const event of next.value) {
            if (user?.aborted) throw abortedError();
            if (event.type === "start") {
              if (started) continue; // a retried attempt starts again: say it once
              started = true;
            } else if (event.type !== "finish") {
              contentSeen = true;
              partial.apply(event);
            }
            // The one accumulation of the answer rides along on every event (the adapter's own
            // object, made for this event alone: no copy per event).
            (event as { partial?: unknown }).partial = partial.draft;
            yield event as ClientStreamEvent;
            if (event.type === "finish") return;
          }
        }
      } catch (err) {
        failure = user?.aborted ? abortedError() : classifyError(err, call.model.provider);
        if (!contentSeen) failure = unreachable(failure, call.context.baseUrl);
      } finally {
        watched?.close();
        user?.removeEventListener("abort", forwardAbort);
        controller.abort(); // ends the HTTP request whatever happened (also when the consumer stops early)
        // Lets the adapter's own cleanup run now rather than whenever its generator is collected.
        events?.return?.().catch(() => {});
      }
      // Retrying after content was shown would repeat it: only a clean failure is retried.
      const step = contentSeen ? { giveUp: failure } : retryStep(failure, attempt, policy);
      if ("giveUp" in step) {
        yield errorEvent(step.giveUp, partial);
        return;
      }
      yield { type: "retry", attempt, delayMs: step.delayMs, error: describe(failure) };
      try {
        await sleep(step.delayMs, user);
      } catch (err) {
        yield errorEvent(classifyError(err), partial);
        return;
      }
    }
  }

  return { complete, stream, model, listModels };
}

/** A model that is overloaded or unknown to the server gives way to the next fallback model. */
function fallsBack(error: { kind: string; status?: number }): boolean {
  return error.kind === "overloaded" || error.status === 404;
}

/** The key (or Anthropic bearer token) for a provider; a missing required key fails before any request. */
function credentials(
  preset: ProviderPreset,
  keys: Record<string, string> | undefined,
  env: Record<string, string | undefined>,
  keyHint: (provider: string) => string = (id) => `apiKeys.${id} in createClient`,
): Pick<AdapterContext, "apiKey" | "headers"> {
  const given = keys?.[preset.id];
  if (given) return { apiKey: given };
  for (const name of preset.apiKeyEnv) {
    const value = env[name];
    if (!value) continue;
    if (name === "ANTHROPIC_AUTH_TOKEN") return { headers: { authorization: `Bearer ${value}` } };
    return { apiKey: value };
  }
  if (!preset.needsKey) return {};
  const vars = preset.apiKeyEnv.join(" or ");
  throw new LlmError("auth", `No API key for ${preset.id}: set ${vars} (or pass one: ${keyHint(preset.id)}).`, {
    provider: preset.id,
  });
}

/** The ways a connection is refused or a host not found, as the runtimes and SDKs word them. */
const CONNECT_FAILURE =
  /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ECONNABORTED|ETIMEDOUT|ConnectionRefused)\b|Unable to connect|Connection error|fetch failed/i;

/**
 * A server that could not be reached at all says where it was looked for: "ollama: cannot reach
 * http://localhost:11434/v1 (ECONNREFUSED)", not the SDK's "Connection error.".
 */
function unreachable(err: LlmError, baseUrl: string | undefined): LlmError {
  if (err.kind !== "network" || !baseUrl || !CONNECT_FAILURE.test(err.message)) return err;
  const code = /\b(E[A-Z]{4,}|ConnectionRefused)\b/.exec(err.message)?.[1];
  const where = err.provider ? `${err.provider}: ` : "";
  return new LlmError(
    "network",
    `${where}cannot reach ${baseUrl} (${code ?? "no connection"}); is the server running and the base URL right?`,
    {
      provider: err.provider,
      status: err.status,
      cause: err.cause ?? err,
    },
  );
}

/** Checks for silence this many times per idle period: a stalled stream ends after 1 to 1.25 periods. */
const IDLE_TICKS = 4;

/**
 * One attempt's adapter event batches, each awaited against the idle watchdog and the caller's
 * abort. One timer and one abort listener serve the whole attempt — a 20 MB argument is 300,000
 * events, and a timer set and cleared per event cost more than reading them.
 */
class WatchedEvents {
  private reject: ((err: unknown) => void) | undefined;
  private failure: unknown;
  private quietTicks = 0;
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly onAbort = () => this.fail(abortedError());

  constructor(
    private readonly events: AsyncIterator<StreamEvent[]>,
    idleMs: number,
    controller: AbortController,
    private readonly user: AbortSignal | undefined,
    model: ModelInfo,
  ) {
    this.timer = setInterval(() => {
      if (++this.quietTicks <= IDLE_TICKS) return;
      controller.abort();
      this.fail(
        new LlmError("timeout", `${model.provider}: no data for ${idleMs} ms; the stream was abandoned`, {
          provider: model.provider,
        }),
      );
    }, idleMs / IDLE_TICKS);
    if (user?.aborted) this.failure = abortedError();
    else user?.addEventListener("abort", this.onAbort, { once: true });
  }

  /** The next batch, or the timeout or abort that came first. */
  next(): Promise<IteratorResult<StreamEvent[]>> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    // Only silence while waiting counts: time the caller spends between events is its own.
    this.quietTicks = 0;
    return new Promise((resolve, reject) => {
      this.reject = reject;
      this.events.next().then((result) => {
        this.quietTicks = 0;
        resolve(result);
      }, reject);
    });
  }

  close(): void {
    clearInterval(this.timer);
    this.user?.removeEventListener("abort", this.onAbort);
  }

  private fail(err: unknown): void {
    this.failure ??= err;
    this.close();
    this.reject?.(err);
  }
}

const describe = (err: LlmError) => ({
  kind: err.kind,
  message: err.message,
  ...(err.status !== undefined ? { status: err.status } : {}),
  ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}),
});

function errorEvent(err: LlmError, partial: MessageBuilder): ClientStreamEvent {
  return {
    type: "error",
    error: describe(err),
    partial: partial.message({ errorMessage: err.message, finishReason: err.kind === "aborted" ? "aborted" : "error" }),
    stack: stackOf(err),
  };
}

/** The error's stack followed by its causes' (the SDK's error the LlmError was made from). */
function stackOf(err: Error): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let depth = 0; e instanceof Error && depth < 5; depth++, e = e.cause)
    parts.push(`${depth > 0 ? "Caused by: " : ""}${e.stack ?? e.message}`);
  return parts.join("\n");
}
