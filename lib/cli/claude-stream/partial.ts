/**
 * `--include-partial-messages`: the model's answer while it streams, as Claude Code's
 * `stream_event` lines — each one Anthropic Messages streaming event (`message_start`,
 * `content_block_start`, `content_block_delta` with `text_delta` / `thinking_delta`,
 * `content_block_stop`, `message_delta`, `message_stop`), whatever the model's wire API. Tool
 * calls are not streamed: their `tool_use` blocks come whole in the `assistant` message.
 */
import type { SessionEvent } from "../../agent/index.ts";
import { anthropicUsage } from "./messages.ts";

export class PartialMessages {
  private index = -1;
  private open: "text" | "thinking" | undefined;
  private started = false;

  constructor(
    private readonly write: (line: object) => void,
    private readonly sessionId: () => string,
  ) {}

  observe(event: SessionEvent): void {
    if (event.agent_id !== undefined) return;
    if (event.kind === "message_update") {
      const { kind, delta, message } = event.data;
      if (!this.started) this.start(message.model);
      if (this.open !== kind) {
        this.closeBlock();
        this.index++;
        this.open = kind;
        this.emit({
          type: "content_block_start",
          index: this.index,
          content_block:
            kind === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "", signature: "" },
        });
      }
      this.emit({
        type: "content_block_delta",
        index: this.index,
        delta: kind === "text" ? { type: "text_delta", text: delta } : { type: "thinking_delta", thinking: delta },
      });
    } else if (event.kind === "message_end" && event.data.message.role === "assistant" && this.started) {
      const { message } = event.data;
      this.closeBlock();
      this.emit({
        type: "message_delta",
        delta: { stop_reason: message.finishReason ?? null, stop_sequence: null },
        usage: anthropicUsage(message.usage),
      });
      this.emit({ type: "message_stop" });
      this.started = false;
      this.index = -1;
    }
  }

  private start(model: string | undefined): void {
    this.started = true;
    this.emit({
      type: "message_start",
      message: {
        id: `msg_${crypto.randomUUID().replace(/-/g, "")}`,
        type: "message",
        role: "assistant",
        model: model?.slice(model.indexOf("/") + 1) ?? "",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: anthropicUsage(undefined),
      },
    });
  }

  private closeBlock(): void {
    if (this.open === undefined) return;
    this.emit({ type: "content_block_stop", index: this.index });
    this.open = undefined;
  }

  private emit(event: object): void {
    this.write({
      type: "stream_event",
      event,
      parent_tool_use_id: null,
      session_id: this.sessionId(),
      uuid: crypto.randomUUID(),
    });
  }
}
