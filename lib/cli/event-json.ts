/**
 * A session event as one JSON line (stream-json output, RPC events). In-process listeners get the
 * live placeholder message with every `message_update`; written out, that would repeat the whole
 * answer so far on every piece and grow with the square of its length. The line keeps the piece
 * (`delta`) and leaves the message to `message_start` / `message_end`.
 */
import type { SessionEvent } from "../agent/index.ts";

export function eventJson(event: SessionEvent): object {
  if (event.kind !== "message_update") return event;
  const { message: _message, ...rest } = event.data;
  return { ...event, data: rest };
}
