/**
 * Claude Code's control protocol on the stream-json lines, both ways: gong's own requests to the
 * program (`can_use_tool`, `hook_callback`, `mcp_message`) each wait for the `control_response`
 * that carries their `request_id`, and gong answers the program's requests with one
 * `control_response` each — `success` with its payload, or `error` with a sentence.
 */

export type ControlPayload = Record<string, unknown>;

/** The program answered a request of gong's with `error`, or can no longer answer. */
export class ControlRequestFailed extends Error {}

export class ControlChannel {
  private count = 0;
  private readonly pending = new Map<string, { resolve(r: ControlPayload): void; reject(e: Error): void }>();
  private closedBecause: string | undefined;

  constructor(private readonly write: (line: object) => void) {}

  /** Sends a request and waits for its answer's payload (an abort or the end of stdin rejects it). */
  request(request: ControlPayload, signal?: AbortSignal): Promise<ControlPayload> {
    if (this.closedBecause !== undefined) return Promise.reject(new ControlRequestFailed(this.closedBecause));
    const id = `gong-${++this.count}`;
    return new Promise<ControlPayload>((resolve, reject) => {
      const abort = () => {
        this.pending.delete(id);
        this.write({ type: "control_cancel_request", request_id: id });
        reject(new ControlRequestFailed(`the ${String(request.subtype)} request was cancelled`));
      };
      if (signal?.aborted) return abort();
      signal?.addEventListener("abort", abort, { once: true });
      const done = () => signal?.removeEventListener("abort", abort);
      this.pending.set(id, {
        resolve: (r) => (done(), resolve(r)),
        reject: (e) => (done(), reject(e)),
      });
      this.write({ type: "control_request", request_id: id, request });
    });
  }

  /** A `control_response` line: settles the request it answers (false when gong asked nothing by that id). */
  settle(line: ControlPayload): boolean {
    const response = (line.response ?? {}) as ControlPayload;
    const id = String(response.request_id ?? "");
    const waiting = this.pending.get(id);
    if (!waiting) return false;
    this.pending.delete(id);
    if (response.subtype === "error") waiting.reject(new ControlRequestFailed(String(response.error ?? "error")));
    else waiting.resolve((response.response ?? {}) as ControlPayload);
    return true;
  }

  /** The program can answer nothing more (stdin ended): what waits fails with `why`. */
  close(why: string): void {
    this.closedBecause = why;
    for (const waiting of this.pending.values()) waiting.reject(new ControlRequestFailed(why));
    this.pending.clear();
  }

  success(requestId: string, response: ControlPayload = {}): void {
    this.write({ type: "control_response", response: { subtype: "success", request_id: requestId, response } });
  }

  error(requestId: string, error: string): void {
    this.write({ type: "control_response", response: { subtype: "error", request_id: requestId, error } });
  }
}
