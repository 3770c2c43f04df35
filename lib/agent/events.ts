/**
 * The session's event stream: one emitter whose `emit` the loop and its steps call directly. Each
 * event goes first to the recorder, synchronously (a message is in the session file before anyone
 * else hears of it, so a crash loses at most the entry being written), then to every subscriber in
 * the order they subscribed. Hosts listen with `subscribe(fn)` or iterate `events()`; each iterator
 * sees every event from its creation on and is removed when the consumer stops, so an abandoned
 * `for await` leaks nothing. The kinds and their payloads are the vocabulary's (vocabulary.ts).
 */
import type { Emit, EventKind, EventListener, EventMap, SessionEvent } from "./vocabulary.ts";

export class EventStream {
  private readonly listeners = new Set<EventListener>();
  private closed = false;

  /**
   * `sessionId` stamps each event (the session sets the new one when a fork gives it another);
   * `first` hears every event before the subscribers: the session file's recorder.
   */
  constructor(
    public sessionId: string,
    private readonly first?: EventListener,
  ) {}

  /** Emits one event; a value of its own, so it is handed on as it is (`emit` is what the loop is given). */
  readonly emit: Emit = <K extends EventKind>(kind: K, data: EventMap[K]) => {
    this.deliver({ kind, timestamp: Date.now(), session_id: this.sessionId, data } as SessionEvent);
  };

  /** Delivers an event that happened elsewhere (a child agent's) to this stream's listeners as it is. */
  readonly forward = (event: SessionEvent): void => {
    if (!this.closed) this.deliver(event);
  };

  private deliver(event: SessionEvent): void {
    if (this.first) tell(this.first, event);
    for (const listener of this.listeners) tell(listener, event);
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
    const listener = Object.assign(
      (event: SessionEvent) => {
        queue.push(event);
        wake?.();
      },
      {
        end: () => {
          done = true;
          wake?.();
        },
      },
    );
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

/** A broken listener must not break the agent or the other listeners. */
function tell(listener: EventListener, event: SessionEvent): void {
  try {
    listener(event);
  } catch {
    // Ignored: see above.
  }
}

function isCloser(listener: EventListener): listener is EventListener & { end(): void } {
  return typeof (listener as { end?: unknown }).end === "function";
}
