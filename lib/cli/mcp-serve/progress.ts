/**
 * What a running task tells its MCP client: one line per step a person watching would want to see
 * (the model's turn, each tool call as it starts, a wait for a rate limit, a child agent, a
 * compaction), sent as `notifications/progress` when the client gave a progress token. Streamed
 * text and output deltas are left out: a progress line is a step, not a transcript.
 */
import type { SessionEvent } from "../../agent/index.ts";

/** The progress line for an event, or undefined for events a client need not hear of. */
export function progressLine(event: SessionEvent): string | undefined {
  // A child agent's steps are its own: its start and end are said by the parent's events.
  if (event.agent_id !== undefined) return undefined;
  switch (event.kind) {
    case "turn_start":
      return `turn ${event.data.turn_index + 1}: waiting for the model`;
    case "tool_call_start":
      return `${event.data.tool_name}: ${event.data.call_summary}`;
    case "tool_call_progress":
      return event.data.message ? `${event.data.tool_name}: ${event.data.message}` : undefined;
    case "retry":
      return `the model call failed (${event.data.error.message}); retrying in ${Math.ceil(event.data.delay_ms / 1000)} s`;
    case "subagent_start":
      return `child agent ${event.data.name} started: ${event.data.task}`;
    case "subagent_end":
      return `child agent ${event.data.name} ${event.data.status}`;
    case "compaction_start":
      return "compacting the conversation";
    default:
      return undefined;
  }
}

/** Sends a task's progress lines with a counter that only grows, as the protocol asks. */
export class ProgressReporter {
  private count = 0;

  constructor(
    private readonly token: string | number | undefined,
    private readonly send: (params: {
      progressToken: string | number;
      progress: number;
      message: string;
    }) => Promise<void>,
  ) {}

  /** Tells the client one line (nothing when it gave no token); a failed send never stops the task. */
  report(message: string): void {
    if (this.token === undefined) return;
    this.count++;
    void this.send({ progressToken: this.token, progress: this.count, message }).catch(() => {});
  }

  /** The listener a session subscribes for the task's run. */
  listener = (event: SessionEvent): void => {
    const line = progressLine(event);
    if (line !== undefined) this.report(line);
  };
}
