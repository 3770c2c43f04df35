/**
 * Gemini API (POST /v1beta/models/{model}:generateContent and :streamGenerateContent?alt=sse):
 * `data:`-only SSE frames, each a whole GenerateContentResponse, and the JSON form.
 */
import { pieces, turnFinish, turnUsage } from "../frames.ts";
import type { ScriptFinish, RecordedRequest, ScriptTurn, WireFormat } from "../types.ts";

const FINISH_REASONS: Record<ScriptFinish, string> = {
  end_turn: "STOP",
  tool_use: "STOP",
  max_tokens: "MAX_TOKENS",
  refusal: "SAFETY",
  content_filter: "SAFETY",
  malformed_call: "MALFORMED_FUNCTION_CALL",
  incomplete: "OTHER",
  pause_turn: "STOP",
};

const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  408: "DEADLINE_EXCEEDED",
  409: "ABORTED",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  500: "INTERNAL",
  501: "NOT_IMPLEMENTED",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

const OVERFLOW_MESSAGE = "The input token count (1196266) exceeds the maximum number of tokens allowed (1048576).";

type Part =
  | { text: string; thought?: true; thoughtSignature?: string }
  | { functionCall: { name: string; args: Record<string, unknown>; id?: string }; thoughtSignature?: string };

const ENDPOINT = /\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

function modelOf(request: RecordedRequest): string {
  return ENDPOINT.exec(request.path.split("?")[0])?.[1] ?? "gemini-fake";
}

/**
 * The parts a turn produces, split into streamed pieces. The thought signature rides on the first
 * function call when there are calls (as Gemini 3 sends it), otherwise on the last thought or text piece.
 */
function partPieces(turn: ScriptTurn, size: number): Part[] {
  const thoughts: Part[] =
    turn.thinking !== undefined ? pieces(turn.thinking, size).map((text) => ({ text, thought: true as const })) : [];
  const texts: Part[] = turn.text !== undefined ? pieces(turn.text, size).map((text) => ({ text })) : [];
  const calls: Part[] = (turn.toolCalls ?? []).map((c) => ({
    functionCall: { name: c.name, args: c.arguments, ...(c.id ? { id: c.id } : {}) },
  }));
  const signature = turn.thinkingSignature;
  if (signature !== undefined) {
    const carrier = calls[0] ?? thoughts[thoughts.length - 1] ?? texts[texts.length - 1];
    if (carrier) carrier.thoughtSignature = signature;
    else texts.push({ text: "", thoughtSignature: signature });
  }
  return [...thoughts, ...texts, ...calls];
}

function usageMetadata(turn: ScriptTurn) {
  const u = turnUsage(turn);
  const prompt = u.input + u.cacheRead;
  const candidates = Math.max(0, u.output - u.reasoning);
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: candidates,
    totalTokenCount: prompt + candidates + u.reasoning,
    ...(u.cacheRead ? { cachedContentTokenCount: u.cacheRead } : {}),
    ...(u.reasoning ? { thoughtsTokenCount: u.reasoning } : {}),
    promptTokensDetails: [{ modality: "TEXT", tokenCount: prompt }],
  };
}

function chunk(parts: Part[], turn: ScriptTurn, request: RecordedRequest, last: boolean) {
  const prompt = usageMetadata(turn).promptTokenCount;
  return {
    candidates: [
      {
        content: { parts, role: "model" },
        ...(last ? { finishReason: FINISH_REASONS[turnFinish(turn)] } : {}),
        index: 0,
      },
    ],
    usageMetadata: last ? usageMetadata(turn) : { promptTokenCount: prompt, totalTokenCount: prompt },
    modelVersion: modelOf(request),
    responseId: `fake${String(request.index).padStart(6, "0")}`,
  };
}

function errorBody(status: number, message: string, details: unknown[] = []) {
  return {
    error: {
      code: status,
      message,
      status: STATUS_NAMES[status] ?? (status >= 500 ? "INTERNAL" : "UNKNOWN"),
      ...(details.length ? { details } : {}),
    },
  };
}

export const geminiFormat: WireFormat = {
  name: "gemini",
  matches: (method, path) => method === "POST" && ENDPOINT.test(path),
  isStreaming: (path) => path.split("?")[0].endsWith(":streamGenerateContent"),

  // The JSON answer holds each part whole.
  complete: (turn, request) => chunk(partPieces(turn, Number.POSITIVE_INFINITY), turn, request, true),

  stream(turn, request) {
    const parts = partPieces(turn, turn.chunkSize ?? 8);
    if (parts.length === 0) parts.push({ text: "" });
    return parts.map((part, i) => `data: ${JSON.stringify(chunk([part], turn, request, i === parts.length - 1))}\n\n`);
  },

  streamError: (message) => `data: ${JSON.stringify(errorBody(503, message))}\n\n`,

  httpError(kind, status, message, retryAfterMs) {
    if (kind === "overflow") return { status: 400, body: errorBody(400, OVERFLOW_MESSAGE) };
    if (kind === "invalid_request") return { status: 400, body: errorBody(400, message) };
    const details =
      retryAfterMs !== undefined
        ? [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${retryAfterMs / 1000}s` }]
        : [];
    return { status, body: errorBody(status, message, details) };
  },
};
