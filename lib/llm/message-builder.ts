/**
 * Builds an assistant message from streamed pieces: adapters use it to assemble their final
 * response, the client to accumulate the answer as it streams (its `draft` travels on the
 * client's events) and to keep the partial message of a stream that failed.
 */
import type {
  AssistantMessage,
  AssistantPart,
  FinishReason,
  Response,
  ServerToolPart,
  StreamEvent,
  ThinkingPart,
  ToolCallPart,
  Usage,
  WebSearchActivity,
} from "./types.ts";
import { zeroUsage } from "./usage.ts";

export class MessageBuilder {
  readonly parts: AssistantPart[] = [];
  /** The message so far: one live object whose content is `parts`, shown while the answer streams. */
  readonly draft: AssistantMessage;

  constructor(readonly model: string) {
    this.draft = { role: "assistant", content: this.parts, model, timestamp: Date.now() };
  }

  text(delta: string): void {
    const last = this.parts.at(-1);
    if (last?.type === "text") last.text += delta;
    else this.parts.push({ type: "text", text: delta });
  }

  thinking(delta: string): void {
    const last = this.parts.at(-1);
    if (last?.type === "thinking" && !last.redacted && last.signature === undefined) last.text += delta;
    else this.parts.push({ type: "thinking", text: delta });
  }

  /** Attaches a signature to the thinking part being streamed (creating an empty one if needed). */
  signature(signature: string): void {
    const last = this.parts.at(-1);
    if (last?.type === "thinking" && !last.redacted) last.signature = (last.signature ?? "") + signature;
    else this.parts.push({ type: "thinking", text: "", signature });
  }

  redacted(data: string): void {
    this.parts.push({ type: "thinking", text: "", signature: data, redacted: true });
  }

  toolCall(call: ToolCallPart): void {
    this.parts.push(call);
  }

  serverTool(part: ServerToolPart): void {
    this.parts.push(part);
  }

  /** Folds one unified stream event in; events carrying no content are ignored. */
  apply(event: StreamEvent): void {
    if (event.type === "text_delta") this.text(event.delta);
    else if (event.type === "thinking_delta") this.thinking(event.delta);
    else if (event.type === "tool_call_end") this.toolCall(event.call);
  }

  message(extra: Partial<AssistantMessage> = {}): AssistantMessage {
    return {
      role: "assistant",
      content: this.parts.map((p) => ({ ...p })),
      model: this.model,
      timestamp: Date.now(),
      ...extra,
    };
  }

  response(options: {
    usage?: Usage;
    finishReason: FinishReason;
    finishDetail?: string;
    id?: string;
    webSearch?: WebSearchActivity;
  }): Response {
    const usage = options.usage ?? zeroUsage();
    const detail = options.finishDetail ? { finishDetail: options.finishDetail } : {};
    const message = this.message({
      usage,
      finishReason: options.finishReason,
      ...detail,
      responseId: options.id,
      ...(options.webSearch ? { webSearch: options.webSearch } : {}),
    });
    const thinking = this.parts
      .filter((p): p is ThinkingPart => p.type === "thinking" && !p.redacted)
      .map((p) => p.text);
    return {
      id: options.id,
      model: this.model,
      message,
      text: this.parts.map((p) => (p.type === "text" ? p.text : "")).join(""),
      toolCalls: message.content.filter((p): p is ToolCallPart => p.type === "tool_call"),
      reasoning: thinking.length ? thinking.join("\n") : undefined,
      usage,
      finishReason: options.finishReason,
      ...detail,
    };
  }
}
