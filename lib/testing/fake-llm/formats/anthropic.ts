/** Anthropic Messages API (POST /v1/messages): SSE with `event:` lines, and the JSON form. */
import { argumentText, pieces, scriptedCallId, sse, turnFinish, turnUsage } from "../frames.ts";
import type { ScriptFinish, RecordedRequest, ScriptTurn, WireFormat } from "../types.ts";

const STOP_REASONS: Record<ScriptFinish, string> = {
  end_turn: "end_turn",
  tool_use: "tool_use",
  max_tokens: "max_tokens",
  refusal: "refusal",
  content_filter: "refusal",
  malformed_call: "end_turn",
  incomplete: "end_turn",
  pause_turn: "pause_turn",
};

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

type Block =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown>; argumentText: string };

function blocks(turn: ScriptTurn, request: RecordedRequest): Block[] {
  const out: Block[] = [];
  if (turn.thinking !== undefined)
    out.push({ type: "thinking", thinking: turn.thinking, signature: turn.thinkingSignature ?? "sig_fake" });
  if (turn.text !== undefined) out.push({ type: "text", text: turn.text });
  (turn.toolCalls ?? []).forEach((c, i) => {
    out.push({
      type: "tool_use",
      id: c.id ?? scriptedCallId("toolu_", request.index, i),
      name: c.name,
      input: c.arguments,
      argumentText: argumentText(c),
    });
  });
  return out;
}

function usage(turn: ScriptTurn) {
  const u = turnUsage(turn);
  return {
    input_tokens: u.input,
    output_tokens: u.output,
    cache_creation_input_tokens: u.cacheWrite,
    cache_read_input_tokens: u.cacheRead,
  };
}

const messageId = (request: RecordedRequest) => `msg_fake${String(request.index).padStart(6, "0")}`;

export const anthropicFormat: WireFormat = {
  name: "anthropic-messages",
  matches: (method, path) => method === "POST" && /\/v1\/messages$/.test(path),
  isStreaming: (_path, body) => body?.stream === true,

  complete(turn, request) {
    return {
      id: messageId(request),
      type: "message",
      role: "assistant",
      model: request.body?.model ?? "claude-fake",
      content: blocks(turn, request).map((b) =>
        b.type === "tool_use" ? { type: b.type, id: b.id, name: b.name, input: b.input } : b,
      ),
      stop_reason: STOP_REASONS[turnFinish(turn)],
      stop_sequence: null,
      usage: usage(turn),
    };
  },

  stream(turn, request) {
    const size = turn.chunkSize ?? 8;
    const u = usage(turn);
    const frames = [
      sse(
        {
          type: "message_start",
          message: {
            id: messageId(request),
            type: "message",
            role: "assistant",
            model: request.body?.model ?? "claude-fake",
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { ...u, output_tokens: 1 },
          },
        },
        "message_start",
      ),
    ];
    blocks(turn, request).forEach((block, index) => {
      const start = (content_block: unknown) =>
        sse({ type: "content_block_start", index, content_block }, "content_block_start");
      const delta = (d: unknown) => sse({ type: "content_block_delta", index, delta: d }, "content_block_delta");
      if (block.type === "thinking") {
        frames.push(start({ type: "thinking", thinking: "", signature: "" }));
        for (const p of pieces(block.thinking, size)) frames.push(delta({ type: "thinking_delta", thinking: p }));
        frames.push(delta({ type: "signature_delta", signature: block.signature }));
      } else if (block.type === "text") {
        frames.push(start({ type: "text", text: "" }));
        for (const p of pieces(block.text, size)) frames.push(delta({ type: "text_delta", text: p }));
      } else {
        frames.push(start({ type: "tool_use", id: block.id, name: block.name, input: {} }));
        for (const p of pieces(block.argumentText, size))
          frames.push(delta({ type: "input_json_delta", partial_json: p }));
      }
      frames.push(sse({ type: "content_block_stop", index }, "content_block_stop"));
    });
    frames.push(
      sse(
        {
          type: "message_delta",
          delta: { stop_reason: STOP_REASONS[turnFinish(turn)], stop_sequence: null },
          usage: u,
        },
        "message_delta",
      ),
      sse({ type: "message_stop" }, "message_stop"),
    );
    return frames;
  },

  streamError: (message) => sse({ type: "error", error: { type: "overloaded_error", message } }, "error"),

  httpError(kind, status, message) {
    if (kind === "overflow") {
      return {
        status: 400,
        body: errorBody("invalid_request_error", "prompt is too long: 213462 tokens > 200000 maximum"),
      };
    }
    if (kind === "invalid_request") return { status: 400, body: errorBody("invalid_request_error", message) };
    return {
      status,
      body: errorBody(ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error"), message),
    };
  },
};

function errorBody(type: string, message: string) {
  return { type: "error", error: { type, message }, request_id: "req_fake" };
}
