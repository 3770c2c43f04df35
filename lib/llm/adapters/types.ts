/**
 * One wire API's adapter. Adapters translate unified requests into SDK calls and SDK output into
 * unified events. They do no retries (the client owns the one retry policy) and throw `LlmError`
 * (lib/llm/errors.ts) for every failure, classified.
 */
import type { ModelInfo, Request, Response, StreamEvent, WireApi } from "../types.ts";

export interface AdapterContext {
  model: ModelInfo;
  apiKey?: string;
  baseUrl?: string;
  /** Extra HTTP headers (provider presets, beta headers). */
  headers?: Record<string, string>;
  signal: AbortSignal;
}

export interface Adapter {
  /** The wire API it speaks; an in-process model (the scripted client) speaks none. */
  api?: WireApi;
  /**
   * Stream one request: start, deltas and tool-call events, ending with exactly one `finish`
   * event, in batches (the events one network chunk made: one await per chunk, not per event).
   * Never `retry` or `error` events: failures are thrown as LlmError.
   */
  stream(request: Request, ctx: AdapterContext): AsyncIterable<StreamEvent[]>;
  /** One non-streaming request. */
  complete(request: Request, ctx: AdapterContext): Promise<Response>;
}
