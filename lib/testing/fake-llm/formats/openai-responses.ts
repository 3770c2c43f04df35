/**
 * OpenAI Responses API (POST /v1/responses): SSE with `event:` lines and sequence numbers, and the
 * JSON form. A scripted call to a tool the request declared as custom (freeform) comes back as a
 * custom_tool_call whose raw `input` is the script's `input` argument.
 */
import { argumentText, pieces, scriptedCallId, sse, turnFinish, turnUsage } from "../frames.ts";
import type { RecordedRequest, ScriptTurn, WireFormat } from "../types.ts";

const ERROR_TYPES: Record<number, { type: string; code: string | null }> = {
  400: { type: "invalid_request_error", code: null },
  401: { type: "invalid_request_error", code: "invalid_api_key" },
  403: { type: "invalid_request_error", code: "unsupported_country_region_territory" },
  404: { type: "invalid_request_error", code: "model_not_found" },
  429: { type: "requests", code: "rate_limit_exceeded" },
};

const OVERFLOW_MESSAGE = "Your input exceeds the context window of this model. Please adjust your input and try again.";

type Item =
  | { id: string; type: "reasoning"; summary: { type: "summary_text"; text: string }[]; encrypted_content?: string }
  | {
      id: string;
      type: "message";
      status: string;
      role: "assistant";
      content: { type: "output_text"; annotations: []; logprobs: []; text: string }[];
    }
  | { id: string; type: "function_call"; status: string; arguments: string; call_id: string; name: string }
  | { id: string; type: "custom_tool_call"; status: string; input: string; call_id: string; name: string };

const pad = (n: number) => String(n).padStart(6, "0");
const responseId = (request: RecordedRequest) => `resp_fake${pad(request.index)}`;

/** The output items a turn produces, in the order the real API emits them. */
function items(turn: ScriptTurn, request: RecordedRequest): Item[] {
  const out: Item[] = [];
  if (turn.thinking !== undefined || turn.thinkingSignature !== undefined) {
    const wantsEncrypted =
      Array.isArray(request.body?.include) && request.body.include.includes("reasoning.encrypted_content");
    out.push({
      id: `rs_fake${pad(request.index)}`,
      type: "reasoning",
      summary: turn.thinking ? [{ type: "summary_text", text: turn.thinking }] : [],
      ...(wantsEncrypted && turn.thinkingSignature !== undefined ? { encrypted_content: turn.thinkingSignature } : {}),
    });
  }
  if (turn.text !== undefined) {
    out.push({
      id: `msg_fake${pad(request.index)}`,
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", annotations: [], logprobs: [], text: turn.text }],
    });
  }
  const custom = customToolNames(request);
  (turn.toolCalls ?? []).forEach((c, i) => {
    const common = {
      status: "completed",
      call_id: c.id ?? scriptedCallId("call_fake", request.index, i),
      name: c.name,
    };
    // The model answers a custom (freeform) tool with raw text: the script's `input` argument.
    if (custom.has(c.name)) {
      const input = typeof c.arguments.input === "string" ? c.arguments.input : "";
      out.push({ id: scriptedCallId("ctc_fake", request.index, i), type: "custom_tool_call", input, ...common });
    } else
      out.push({
        id: scriptedCallId("fc_fake", request.index, i),
        type: "function_call",
        arguments: argumentText(c),
        ...common,
      });
  });
  return out;
}

/** Names of the tools the request declared as custom (freeform) tools. */
function customToolNames(request: RecordedRequest): Set<string> {
  const tools: unknown[] = Array.isArray(request.body?.tools) ? request.body.tools : [];
  return new Set(
    tools
      .filter((t): t is { type: string; name: string } => (t as { type?: string })?.type === "custom")
      .map((t) => t.name),
  );
}

function usage(turn: ScriptTurn) {
  const u = turnUsage(turn);
  return {
    input_tokens: u.input + u.cacheRead,
    input_tokens_details: { cached_tokens: u.cacheRead },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning },
    total_tokens: u.input + u.cacheRead + u.output,
  };
}

/** The response object; `output` and `usage` are filled only once it is finished. */
function responseObject(turn: ScriptTurn, request: RecordedRequest, finished: boolean) {
  const body = request.body ?? {};
  // A response cut by the output limit or stopped by the content filter ends "incomplete", saying which.
  const finish = turnFinish(turn);
  const incomplete =
    finish === "max_tokens"
      ? "max_output_tokens"
      : finish === "content_filter" || finish === "refusal"
        ? "content_filter"
        : undefined;
  const status = !finished ? "in_progress" : incomplete ? "incomplete" : "completed";
  return {
    id: responseId(request),
    object: "response",
    created_at: 1_700_000_000 + request.index,
    status,
    background: false,
    error: null,
    incomplete_details: finished && incomplete ? { reason: incomplete } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: body.model ?? "gpt-fake",
    output: finished ? items(turn, request) : [],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: body.reasoning?.effort ?? null, summary: body.reasoning?.summary ?? null },
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: { format: { type: "text" }, verbosity: "medium" },
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    top_p: 1,
    truncation: "disabled",
    usage: finished ? usage(turn) : null,
    user: null,
    metadata: {},
  };
}

/** Item as announced by output_item.added: same identity, nothing generated yet. */
function started(item: Item): Item {
  if (item.type === "reasoning") return { id: item.id, type: "reasoning", summary: [] };
  if (item.type === "message") return { ...item, status: "in_progress", content: [] };
  if (item.type === "custom_tool_call") return { ...item, status: "in_progress", input: "" };
  return { ...item, status: "in_progress", arguments: "" };
}

export const openaiResponsesFormat: WireFormat = {
  name: "openai-responses",
  matches: (method, path) => method === "POST" && /(^|\/)responses$/.test(path),
  isStreaming: (_path, body) => body?.stream === true,

  complete: (turn, request) => responseObject(turn, request, true),

  stream(turn, request) {
    const size = turn.chunkSize ?? 8;
    let sequence = 0;
    const frames: string[] = [];
    const emit = (type: string, fields: Record<string, unknown>) =>
      frames.push(sse({ type, ...fields, sequence_number: sequence++ }, type));

    emit("response.created", { response: responseObject(turn, request, false) });
    emit("response.in_progress", { response: responseObject(turn, request, false) });
    items(turn, request).forEach((item, output_index) => {
      const at = { item_id: item.id, output_index };
      emit("response.output_item.added", { output_index, item: started(item) });
      if (item.type === "reasoning") {
        item.summary.forEach((part, summary_index) => {
          emit("response.reasoning_summary_part.added", {
            ...at,
            summary_index,
            part: { type: "summary_text", text: "" },
          });
          for (const delta of pieces(part.text, size))
            emit("response.reasoning_summary_text.delta", { ...at, summary_index, delta });
          emit("response.reasoning_summary_text.done", { ...at, summary_index, text: part.text });
          emit("response.reasoning_summary_part.done", { ...at, summary_index, part });
        });
      } else if (item.type === "message") {
        const part = item.content[0];
        const atPart = { ...at, content_index: 0 };
        emit("response.content_part.added", { ...atPart, part: { ...part, text: "" } });
        for (const delta of pieces(part.text, size))
          emit("response.output_text.delta", { ...atPart, delta, logprobs: [] });
        emit("response.output_text.done", { ...atPart, text: part.text, logprobs: [] });
        emit("response.content_part.done", { ...atPart, part });
      } else if (item.type === "custom_tool_call") {
        for (const delta of pieces(item.input, size)) emit("response.custom_tool_call_input.delta", { ...at, delta });
        emit("response.custom_tool_call_input.done", { ...at, input: item.input });
      } else {
        for (const delta of pieces(item.arguments, size))
          emit("response.function_call_arguments.delta", { ...at, delta });
        emit("response.function_call_arguments.done", { ...at, name: item.name, arguments: item.arguments });
      }
      emit("response.output_item.done", { output_index, item });
    });
    const final = responseObject(turn, request, true);
    emit(final.status === "incomplete" ? "response.incomplete" : "response.completed", { response: final });
    return frames;
  },

  streamError(message) {
    // The API ends a stream that fails after it started with response.failed, the error inside the response.
    const response = {
      id: "resp_fake_failed",
      object: "response",
      created_at: 1_700_000_000,
      status: "failed",
      error: { code: "server_error", message },
      incomplete_details: null,
      output: [],
      usage: null,
      metadata: {},
    };
    return sse({ type: "response.failed", response, sequence_number: 9_999 }, "response.failed");
  },

  httpError(kind, status, message) {
    if (kind === "overflow") {
      return {
        status: 400,
        body: {
          error: {
            message: OVERFLOW_MESSAGE,
            type: "invalid_request_error",
            param: "input",
            code: "context_length_exceeded",
          },
        },
      };
    }
    if (kind === "invalid_request")
      return { status: 400, body: { error: { message, type: "invalid_request_error", param: null, code: null } } };
    const known =
      ERROR_TYPES[status] ??
      (status >= 500 ? { type: "server_error", code: null } : { type: "invalid_request_error", code: null });
    return { status, body: { error: { message, type: known.type, param: null, code: known.code } } };
  },
};
