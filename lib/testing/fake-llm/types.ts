/**
 * The fake LLM server's script and wire-format contracts. A script is a list of turns (or a function
 * of the recorded request); each wire format turns one scripted turn into the exact bytes the real
 * API would send, so the official SDKs cannot tell the difference.
 */
import type { Request, WireApi } from "../../llm/types.ts";

export interface ScriptToolCall {
  name: string;
  arguments: Record<string, unknown>;
  /** Generated when absent. */
  id?: string;
  /**
   * The exact argument text to stream instead of the JSON of `arguments` (not Gemini, which sends
   * objects): e.g. JSON cut off mid-string, as a response stopped by the output limit sends it.
   */
  argumentText?: string;
}

/** Faults a turn can inject instead of (or in the middle of) its normal answer. */
export type Fault =
  /** Plain HTTP error with this API's real error body. */
  | { type: "http"; status: number; message?: string; retryAfterSeconds?: number; retryAfterMs?: number }
  /** Context overflow in this provider's real wording (400/413 as the provider sends it). */
  | { type: "overflow"; emptyBody?: boolean }
  /** A thinking-block ordering error: an invalid request that must not be taken for overflow. */
  | { type: "invalid_request"; message?: string }
  /** 200 and a few chunks, then an error event in the stream. */
  | { type: "error_event"; afterChunks?: number; message?: string }
  /** The socket is destroyed after this many chunks. */
  | { type: "drop"; afterChunks: number }
  /** Stop sending (connection kept open) after this many chunks. */
  | { type: "stall"; afterChunks: number }
  /** A body / SSE data line that is not valid JSON. */
  | { type: "malformed" };

export interface ScriptTurn {
  text?: string;
  thinking?: string;
  /** Signature for the thinking (Anthropic signature / OpenAI encrypted_content / Gemini thoughtSignature). */
  thinkingSignature?: string;
  toolCalls?: ScriptToolCall[];
  usage?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number; reasoning?: number };
  /**
   * How the turn ends, in gong's stop vocabulary (or Chat's `stop` / `length` / `tool_calls`), sent as
   * each API's own word: `max_tokens` (Anthropic max_tokens, Chat length, Responses incomplete for
   * max_output_tokens, Gemini MAX_TOKENS); `refusal` (Anthropic refusal, elsewhere the filter);
   * `content_filter` (Anthropic refusal, Chat content_filter, Responses incomplete for content_filter,
   * Gemini SAFETY); `malformed_call` (Gemini MALFORMED_FUNCTION_CALL); `incomplete` (Gemini OTHER);
   * `pause_turn` (Anthropic pause_turn). An ending an API lacks is sent as its normal end.
   */
  finishReason?: ScriptFinish | "stop" | "length" | "tool_calls";
  fault?: Fault;
  /** Characters per streamed text / argument piece (default 8): arguments arrive in several pieces. */
  chunkSize?: number;
  /** Milliseconds between streamed chunks (default 0). */
  chunkDelayMs?: number;
}

/** The endings a scripted turn can have (gong's stop vocabulary); each format sends its API's own word for it. */
export type ScriptFinish =
  | "end_turn"
  | "tool_use"
  | "max_tokens"
  | "refusal"
  | "content_filter"
  | "malformed_call"
  | "incomplete"
  | "pause_turn";

export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. "/v1/messages" or "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse". */
  path: string;
  headers: Record<string, string>;
  body: any;
  format: WireApi;
  /** 0-based index of this request among all requests the server received. */
  index: number;
}

/**
 * A request the scripted in-process client received (lib/testing/scripted-client.ts): gong's own
 * request as an adapter gets it, after the client's transforms — no wire format.
 */
export interface ScriptedRequest {
  /** The unified request: `system`, `messages` (user / assistant / tool), `tools` (name, description, parameters). */
  body: Request;
  /** The wire API the model's calls would take ("anthropic-messages" for anthropic/…). */
  api: WireApi;
  /** False for a call made with complete() (a summary, a fetch prompt). */
  streaming: boolean;
  /** 0-based index of this request among all requests the client received. */
  index: number;
}

/** A list of turns played in order, or a function of the request (the fake server's or the scripted client's). */
export type Script<R = RecordedRequest> = ScriptTurn[] | ((request: R) => ScriptTurn | Promise<ScriptTurn>);

/** One wire API's fake: recognises its requests and renders scripted turns in its exact format. */
export interface WireFormat {
  name: WireApi;
  /** True when this format serves `method path` (path without the query string). */
  matches(method: string, path: string): boolean;
  /** True when the request asks for a stream (body.stream, or the Gemini streaming endpoint). */
  isStreaming(path: string, body: any): boolean;
  /** The JSON body of a non-streaming answer. */
  complete(turn: ScriptTurn, request: RecordedRequest): unknown;
  /** The SSE frames of a streaming answer, each complete ("event: …\ndata: …\n\n" or "data: …\n\n"). */
  stream(turn: ScriptTurn, request: RecordedRequest): string[];
  /** An SSE frame carrying an in-stream error, in this API's wording. */
  streamError(message: string): string;
  /**
   * Status, headers and JSON body of an HTTP error in this API's real wording. `retryAfterMs` is the
   * fault's retry delay, for APIs that carry it in the body (Gemini's RetryInfo) rather than a header.
   */
  httpError(
    kind: "overflow" | "invalid_request" | "http",
    status: number,
    message: string,
    retryAfterMs?: number,
  ): { status: number; body: unknown };
}
