/**
 * The session's event stream (004 §2.9, 003 §2.5): every step of the agent is an event
 * `{ kind, timestamp, session_id, data }`. Hosts listen with `subscribe(fn)` or iterate
 * `events()`; each iterator sees every event from its creation on and is removed when the
 * consumer stops, so an abandoned `for await` leaks nothing.
 */

export const EVENT_KINDS = [
  "session_start",
  "session_end",
  "agent_start",
  "agent_end",
  "user_input",
  "turn_start",
  "turn_end",
  "message_start",
  "message_update",
  "message_end",
  "assistant_text_start",
  "assistant_text_delta",
  "assistant_text_end",
  "assistant_thinking_delta",
  "tool_call_update",
  "tool_call_start",
  "tool_call_output_delta",
  "tool_call_progress",
  "tool_call_end",
  "steering_injected",
  "turn_limit",
  "loop_detection",
  "warning",
  "retry",
  "compaction_start",
  "compaction_end",
  "model_change",
  "hook_error",
  "mcp_server",
  "error",
] as const;

export type EventKind = (typeof EVENT_KINDS)[number];

export interface SessionEvent {
  kind: EventKind;
  /** Milliseconds since the epoch. */
  timestamp: number;
  session_id: string;
  data: Record<string, unknown>;
}

export type EventListener = (event: SessionEvent) => void;

export class EventBus {
  private readonly listeners = new Set<EventListener>();
  private closed = false;

  constructor(private readonly sessionId: string) {}

  emit(kind: EventKind, data: Record<string, unknown> = {}): SessionEvent {
    const event: SessionEvent = { kind, timestamp: Date.now(), session_id: this.sessionId, data };
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A broken listener must not break the agent or the other listeners.
      }
    }
    return event;
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Ends every iterator once it has delivered what it already holds. */
  close(): void {
    this.closed = true;
    for (const listener of [...this.listeners]) if (isCloser(listener)) listener.end();
  }

  events(): AsyncIterableIterator<SessionEvent> {
    const queue: SessionEvent[] = [];
    let wake: (() => void) | null = null;
    let done = this.closed;
    const listener = Object.assign((event: SessionEvent) => {
      queue.push(event);
      wake?.();
    }, {
      end: () => {
        done = true;
        wake?.();
      },
    });
    const stop = () => {
      done = true;
      queue.length = 0;
      this.listeners.delete(listener);
    };
    if (!done) this.listeners.add(listener);

    const iterator: AsyncIterableIterator<SessionEvent> = {
      async next(): Promise<IteratorResult<SessionEvent>> {
        while (queue.length === 0 && !done) await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
        if (queue.length > 0) return { value: queue.shift()!, done: false };
        stop();
        return { value: undefined, done: true };
      },
      async return(): Promise<IteratorResult<SessionEvent>> {
        stop();
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]() {
        return iterator;
      },
    };
    return iterator;
  }

  /** Number of live listeners and iterators (for leak checks). */
  get listenerCount(): number {
    return this.listeners.size;
  }
}

function isCloser(listener: EventListener): listener is EventListener & { end(): void } {
  return typeof (listener as { end?: unknown }).end === "function";
}
