/** OpenAI Chat Completions (POST …/chat/completions), the format of every OpenAI-compatible server. */
import { argumentText, pieces, scriptedCallId, sse, turnFinish, turnUsage } from "../frames.ts";
import type { ScriptFinish, RecordedRequest, ScriptTurn, WireFormat } from "../types.ts";

const CHAT_FINISH: Record<ScriptFinish, string> = {
  end_turn: "stop",
  tool_use: "tool_calls",
  max_tokens: "length",
  refusal: "content_filter",
  content_filter: "content_filter",
  malformed_call: "stop",
  incomplete: "stop",
  pause_turn: "stop",
};

const ERROR_TYPES: Record<number, { type: string; code: string | null }> = {
  400: { type: "invalid_request_error", code: null },
  401: { type: "invalid_request_error", code: "invalid_api_key" },
  403: { type: "invalid_request_error", code: "unsupported_country_region_territory" },
  429: { type: "requests", code: "rate_limit_exceeded" },
};

function usage(turn: ScriptTurn) {
  const u = turnUsage(turn);
  return {
    prompt_tokens: u.input + u.cacheRead,
    completion_tokens: u.output,
    total_tokens: u.input + u.cacheRead + u.output,
    prompt_tokens_details: { cached_tokens: u.cacheRead },
    completion_tokens_details: { reasoning_tokens: u.reasoning },
  };
}

function calls(turn: ScriptTurn, request: RecordedRequest) {
  return (turn.toolCalls ?? []).map((c, i) => ({
    id: c.id ?? scriptedCallId("call_", request.index, i),
    name: c.name,
    arguments: argumentText(c),
  }));
}

const base = (request: RecordedRequest) => ({
  id: `chatcmpl-fake${String(request.index).padStart(6, "0")}`,
  created: 1_700_000_000 + request.index,
  model: request.body?.model ?? "gpt-fake",
  system_fingerprint: null,
});

export const openaiChatFormat: WireFormat = {
  name: "openai-chat",
  matches: (method, path) => method === "POST" && /\/chat\/completions$/.test(path),
  isStreaming: (_path, body) => body?.stream === true,

  complete(turn, request) {
    const toolCalls = calls(turn, request);
    return {
      ...base(request),
      object: "chat.completion",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: turn.text ?? null,
            refusal: null,
            ...(turn.thinking !== undefined ? { reasoning_content: turn.thinking } : {}),
            ...(toolCalls.length
              ? {
                  tool_calls: toolCalls.map((c) => ({
                    id: c.id,
                    type: "function",
                    function: { name: c.name, arguments: c.arguments },
                  })),
                }
              : {}),
          },
          logprobs: null,
          finish_reason: CHAT_FINISH[turnFinish(turn)],
        },
      ],
      usage: usage(turn),
    };
  },

  stream(turn, request) {
    const size = turn.chunkSize ?? 8;
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      sse({
        ...base(request),
        object: "chat.completion.chunk",
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      });
    const frames = [chunk({ role: "assistant", content: "" })];
    if (turn.thinking !== undefined)
      for (const p of pieces(turn.thinking, size)) frames.push(chunk({ reasoning_content: p }));
    if (turn.text !== undefined) for (const p of pieces(turn.text, size)) frames.push(chunk({ content: p }));
    calls(turn, request).forEach((c, index) => {
      frames.push(
        chunk({ tool_calls: [{ index, id: c.id, type: "function", function: { name: c.name, arguments: "" } }] }),
      );
      for (const p of pieces(c.arguments, size))
        frames.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
    });
    frames.push(chunk({}, CHAT_FINISH[turnFinish(turn)]));
    if (request.body?.stream_options?.include_usage) {
      frames.push(sse({ ...base(request), object: "chat.completion.chunk", choices: [], usage: usage(turn) }));
    }
    frames.push(sse("[DONE]"));
    return frames;
  },

  streamError: (message) => sse({ error: { message, type: "server_error", param: null, code: null } }),

  httpError(kind, status, message) {
    if (kind === "overflow") {
      return {
        status: 400,
        body: errorBody(
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
          "invalid_request_error",
          "context_length_exceeded",
        ),
      };
    }
    if (kind === "invalid_request") return { status: 400, body: errorBody(message, "invalid_request_error", null) };
    const t = ERROR_TYPES[status] ?? { type: status >= 500 ? "server_error" : "invalid_request_error", code: null };
    return { status, body: errorBody(message, t.type, t.code) };
  },
};

function errorBody(message: string, type: string, code: string | null) {
  return { error: { message, type, param: null, code } };
}
