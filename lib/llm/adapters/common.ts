/** Small rules the Responses and Gemini adapters share: same-model replay, failure mapping, relaying a stream. */
import { classifyError } from "../classify.ts";
import { LlmError } from "../errors.ts";
import type { AssistantMessage, ModelInfo, StreamEvent } from "../types.ts";
import type { AdapterContext } from "./types.ts";

/** Signatures and provider item ids are valid only for the model that produced them. */
export function fromSameModel(message: AssistantMessage, model: ModelInfo): boolean {
  return message.model === undefined || message.model === model.ref;
}

/** Any failure as a classified LlmError; once the caller has aborted, it is "aborted" whatever the SDK threw. */
export function adapterError(err: unknown, ctx: AdapterContext): LlmError {
  if (ctx.signal.aborted && !(err instanceof LlmError && err.kind === "aborted")) {
    return new LlmError("aborted", "Request aborted", { provider: ctx.model.provider, cause: err });
  }
  return classifyError(err, ctx.model.provider);
}

/** A stream that closed before the provider said it was done: the connection was lost (or aborted). */
export function truncatedStream(ctx: AdapterContext): LlmError {
  if (ctx.signal.aborted) return new LlmError("aborted", "Request aborted", { provider: ctx.model.provider });
  return new LlmError("network", `${ctx.model.provider}: the stream ended before the response was complete`, {
    provider: ctx.model.provider,
  });
}

/**
 * Opens an SDK stream, says "start" once it is open and relays the events `handle` makes of each
 * chunk, a chunk's events together; any failure, opening or midway, is rethrown as `toError` maps it.
 */
export async function* relayStream<Chunk>(
  ctx: AdapterContext,
  open: () => Promise<AsyncIterable<Chunk>>,
  handle: (chunk: Chunk) => Iterable<StreamEvent>,
  toError: (err: unknown) => LlmError = (err) => adapterError(err, ctx),
): AsyncGenerator<StreamEvent[]> {
  let chunks: AsyncIterable<Chunk>;
  try {
    chunks = await open();
  } catch (err) {
    throw toError(err);
  }
  yield [{ type: "start", model: ctx.model.ref }];
  try {
    for await (const chunk of chunks) {
      const events = [...handle(chunk)];
      if (events.length > 0) yield events;
    }
  } catch (err) {
    throw toError(err);
  }
}
