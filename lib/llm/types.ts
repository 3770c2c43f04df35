/**
 * The unified LLM types (docs/conformance.md: 003 §4, 004 §1.5): one message, request, response and
 * stream-event shape for every provider. Adapters translate to and from each wire API; nothing
 * above lib/llm sees a provider's own format.
 */

/** The wire APIs gong speaks (one adapter each; the fake server plays all four). */
export const WIRE_APIS = ["anthropic-messages", "openai-responses", "openai-chat", "gemini"] as const;
export type WireApi = (typeof WIRE_APIS)[number];

export interface TextPart {
  type: "text";
  text: string;
}

export interface ImagePart {
  type: "image";
  mimeType: string;
  /** base64 */
  data: string;
}

export interface ThinkingPart {
  type: "thinking";
  text: string;
  /** Provider signature (Anthropic signature, OpenAI encrypted reasoning, Gemini thoughtSignature). */
  signature?: string;
  /** Anthropic redacted_thinking: `signature` holds the opaque data, `text` is empty. */
  redacted?: boolean;
}

export interface ToolCallPart {
  type: "tool_call";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /** Provider-specific data that must round-trip (OpenAI Responses item id, Gemini thoughtSignature). */
  providerData?: Record<string, unknown>;
  /**
   * Why the call cannot run: its streamed arguments did not parse as a JSON object (a call cut off
   * by the output limit). `arguments` then holds only the lenient display parse; the agent never runs it.
   */
  invalidArguments?: string;
  /** Set when the arguments were complete JSON of another kind than an object (`["echo","hi"]`): what they were. */
  nonObjectArguments?: "array" | "string" | "number" | "boolean" | "null";
}

/**
 * A tool the provider ran itself (Anthropic `server_tool_use`, `web_search_tool_result`, MCP and
 * code-execution blocks): kept in the history as the provider sent it so the conversation can go on
 * (a paused turn is resumed with it), sent back only to the API it came from, never run by gong.
 */
export interface ServerToolPart {
  type: "server_tool";
  api: WireApi;
  /** The block as the provider sent it (its streamed input filled in). */
  block: Record<string, unknown>;
}

export type UserPart = TextPart | ImagePart;
export type AssistantPart = TextPart | ThinkingPart | ToolCallPart | ServerToolPart;

export interface UserMessage {
  role: "user";
  /** A plain string is accepted everywhere a part list is. */
  content: string | UserPart[];
  timestamp?: number;
}

/** A page a provider's web search found or cited. */
export interface WebSource {
  url: string;
  title?: string;
}

/**
 * What the provider's own web search did during one assistant turn (Anthropic web_search,
 * OpenAI web_search_call items, Gemini grounding): the queries it ran, the results it got and the
 * sources the answer cites. Kept with the message in the history; adapters never send it back.
 */
export interface WebSearchActivity {
  queries: string[];
  results: WebSource[];
  citations: WebSource[];
  /** Searches billed for this turn. */
  searches: number;
}

export interface AssistantMessage {
  role: "assistant";
  /**
   * Tolerated as string or null when it comes from outside (docs/conformance.md: J.9 4.5); adapters
   * always produce a list.
   */
  content: AssistantPart[];
  /** "provider/model-id" that produced it: thinking signatures are valid only for the same model. */
  model?: string;
  usage?: Usage;
  finishReason?: FinishReason;
  /** What the provider said about the ending (Gemini finishMessage, Responses incomplete reason, Anthropic stop details). */
  finishDetail?: string;
  responseId?: string;
  /** Set when the turn ended with an error or an abort; the partial content is kept. */
  errorMessage?: string;
  timestamp?: number;
  /** The provider's web search in this turn, when it searched. */
  webSearch?: WebSearchActivity;
}

export interface ToolResultMessage {
  role: "tool";
  toolCallId: string;
  toolName: string;
  content: string | UserPart[];
  isError: boolean;
  timestamp?: number;
  /** What the tool declared itself to be ("read", "modify", "shell"…); kept for compaction, never sent to the model. */
  kind?: string;
  /** Project-relative files a read or modify call touched, as its result named them; kept for compaction. */
  files?: string[];
}

export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/**
 * The text of a message's content: the string itself, or its text parts joined by `separator`
 * (images, thinking and calls left out). Content from outside (null, a part without text) gives "".
 */
export function textOf(content: unknown, separator = ""): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((p): p is TextPart => p?.type === "text" && typeof p.text === "string")
    .map((p) => p.text)
    .join(separator);
}

/** A grammar constraining a freeform tool's raw-text input (OpenAI Responses "custom" tools). */
export interface FreeformFormat {
  type: "grammar";
  syntax: "lark" | "regex";
  definition: string;
}

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema with root type "object". */
  parameters: Record<string, unknown>;
  /**
   * Makes the tool freeform where the wire API supports it: the model writes raw text matching
   * the grammar, delivered as the call's `{ input }` argument. Elsewhere `parameters` (an object
   * with one string `input`) is used as usual.
   */
  format?: FreeformFormat;
}

export type ToolChoice = "auto" | "none" | "required" | { name: string };
/** Reasoning efforts, lowest first; each adapter maps them onto its provider's scale. */
export const REASONING_EFFORTS = ["low", "medium", "high", "xhigh"] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

export interface Request {
  /** "provider/model-id", e.g. "anthropic/claude-sonnet-4-6". */
  model: string;
  system?: string;
  messages: Message[];
  tools?: ToolSpec[];
  toolChoice?: ToolChoice;
  reasoningEffort?: ReasoningEffort | null;
  maxTokens?: number;
  temperature?: number;
  /** Per-provider extras, keyed by provider id (e.g. { anthropic: { betaHeaders: [...] } }). */
  providerOptions?: Record<string, Record<string, unknown>>;
  /**
   * Offer the provider's own web search, run on its servers: Anthropic's web_search server tool,
   * OpenAI Responses' web_search tool, Gemini's googleSearch grounding (not on Chat Completions).
   */
  webSearch?: boolean;
  /**
   * A JSON Schema (root type object) the text answer must follow, with the provider's structured
   * output: Anthropic `output_config.format`, OpenAI Responses `text.format`, Chat Completions
   * `response_format` (not strict: any schema is accepted), Gemini `responseJsonSchema` when the
   * request carries no tools (Gemini does not combine the two on every model).
   */
  outputSchema?: Record<string, unknown>;
}

/**
 * How a model turn ended: one vocabulary from every adapter to the run's result
 * (docs/conformance.md: 004 §2.8). `end_turn` the answer is complete; `tool_use` it asks for tool
 * calls; `max_tokens` it was cut at the output limit; `refusal` the model declined;
 * `content_filter` a safety system stopped it (safety, recitation, blocklist, prohibited content,
 * SPII); `malformed_call` the model produced a tool call the provider could not parse; `incomplete`
 * the provider ended it unfinished for another reason (said in `finishDetail`); `pause_turn` a long
 * server-side turn paused and must be resumed; `error` / `aborted` the call failed or was stopped.
 * New reasons extend this list.
 */
export const FINISH_REASONS = [
  "end_turn",
  "tool_use",
  "max_tokens",
  "refusal",
  "content_filter",
  "malformed_call",
  "incomplete",
  "pause_turn",
  "error",
  "aborted",
] as const;
export type FinishReason = (typeof FINISH_REASONS)[number];

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
  /** USD, from the model catalog's prices (0 when unknown), with the provider's web searches. */
  cost: number;
  /** Searches the provider's own web search ran (present once there were any). */
  webSearches?: number;
}

export interface Response {
  id?: string;
  model: string;
  message: AssistantMessage;
  text: string;
  toolCalls: ToolCallPart[];
  reasoning?: string;
  usage: Usage;
  finishReason: FinishReason;
  finishDetail?: string;
}

export type LlmErrorKind =
  | "auth"
  | "rate_limit"
  | "overloaded"
  | "context_overflow"
  | "invalid_request"
  | "network"
  | "timeout"
  | "aborted"
  | "server"
  | "unknown";

export type StreamEvent =
  | { type: "start"; model: string }
  | { type: "text_delta"; delta: string }
  | { type: "thinking_delta"; delta: string }
  | { type: "tool_call_start"; index: number; id: string; name: string }
  /** `partialArguments`: a lenient parse of the arguments so far, present on the first piece and then at most a few times a second. */
  | { type: "tool_call_delta"; index: number; id: string; delta: string; partialArguments?: Record<string, unknown> }
  | { type: "tool_call_end"; index: number; call: ToolCallPart }
  /** `error.retryAfterMs`: the wait the server asked for (retry-after), when it asked. */
  | {
      type: "retry";
      attempt: number;
      delayMs: number;
      error: { kind: LlmErrorKind; message: string; status?: number; retryAfterMs?: number };
    }
  | { type: "finish"; response: Response }
  /** `stack`: where the error came from, with its causes (the SDK's own error), for --verbose. */
  | {
      type: "error";
      error: { kind: LlmErrorKind; message: string; status?: number };
      partial: AssistantMessage;
      stack?: string;
    };

/**
 * What `LlmClient.stream` yields: the adapter's events, each carrying `partial`, the answer as
 * accumulated so far — one live object for the whole call, the only accumulation of the stream
 * (show it, never change it) — plus `retry` events and at most one `error`, whose `partial` is a
 * copy of what had arrived.
 */
export type ClientStreamEvent =
  | (Exclude<StreamEvent, { type: "retry" | "error" }> & { partial: AssistantMessage })
  | Extract<StreamEvent, { type: "retry" | "error" }>;

export interface CallOptions {
  signal?: AbortSignal;
}

export interface ModelInfo {
  /** "provider/model-id" */
  ref: string;
  provider: string;
  id: string;
  api: WireApi;
  name: string;
  contextWindow: number;
  maxOutput: number;
  /** USD per million tokens. */
  price: { input: number; output: number; cacheRead: number; cacheWrite: number };
  reasoning: boolean;
  images: boolean;
  knowledgeCutoff?: string;
}

/** What the agent needs from the LLM layer. */
export interface LlmClient {
  complete(request: Request, options?: CallOptions): Promise<Response>;
  stream(request: Request, options?: CallOptions): AsyncIterable<ClientStreamEvent>;
  model(ref: string): ModelInfo;
}
