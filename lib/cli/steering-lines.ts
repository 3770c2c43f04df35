/**
 * The steering lines a user sends while the agent works, from Enter to the moment the model reads
 * them: shown under the live status until then, and once in the conversation, where the model
 * read them (the renderer's `› …`). A line is handed to the session only at a point where it
 * cannot skip work the user did not ask to skip: while the model is still writing its answer, or a
 * call it wrote has not started (it may be waiting for its approval), the line is held, and sent
 * once every such call has started (it then reaches the model after them, as a line sent while a
 * command runs does). A question that comes up meanwhile is not answered by a held line: the shell
 * sets the line aside, says so, and gives it back in the input once the question is answered.
 */
import type { SessionEvent } from "../agent/index.ts";
import type { ApprovalGate } from "../gate/approval.ts";

export class SteeringLines {
  /** Handed to the session, not yet read by the model. */
  private sent: string[] = [];
  /** Waiting for the model to finish writing and for its calls to start. */
  private held: string[] = [];
  /** The model is writing an answer (its calls may follow). */
  private writing = false;
  /** Calls written and not yet started (or ended). */
  private readonly waiting = new Set<string>();
  /** Each call's id by its arguments object: what the approval gate is given. */
  private readonly calls = new WeakMap<object, string>();

  constructor(
    /** Hands a line to the session (`now`: the running tool is stopped for it). */
    private readonly deliver: (text: string, now: boolean) => void,
    /** The lines waiting for the model changed: the live status shows them. */
    private readonly show: (lines: readonly string[]) => void,
  ) {}

  /** The lines sent or held, not yet read by the model. */
  get waitingLines(): readonly string[] {
    return [...this.sent, ...this.held];
  }

  observe(event: SessionEvent): void {
    if (event.agent_id !== undefined) return;
    switch (event.kind) {
      case "turn_start":
        this.writing = true;
        break;
      case "message_end":
        if (event.data.message.role === "assistant") {
          this.writing = false;
          this.release();
        }
        break;
      case "tool_call_update":
        this.waiting.add(event.data.call_id);
        break;
      case "tool_call_start":
        this.waiting.add(event.data.call_id);
        this.calls.set(event.data.arguments, event.data.call_id);
        break;
      case "tool_call_end":
        this.waiting.delete(event.data.call_id);
        this.release();
        break;
      case "steering_injected": {
        const at = this.sent.indexOf(event.data.content);
        this.sent.splice(Math.max(at, 0), 1);
        this.show(this.waitingLines);
        break;
      }
    }
  }

  /** `gate` telling these lines when it lets a call start: it is the last hook before a call runs (held lines may go then). */
  afterGate(gate: ApprovalGate): ApprovalGate {
    const before = gate.hooks.beforeToolCall!;
    // Everything the session passes (the call itself too: the gate reads its tool and environment) goes on.
    const beforeToolCall: typeof before = async (tool, args, ...rest) => {
      try {
        return await before(tool, args, ...rest);
      } finally {
        this.started(args);
      }
    };
    return { ...gate, hooks: { ...gate.hooks, beforeToolCall } };
  }

  /** The approval gate let the call with these arguments start. */
  started(args: object): void {
    const id = this.calls.get(args);
    if (id === undefined) return;
    this.waiting.delete(id);
    this.release();
  }

  /** Enter on a steering line: sent now when nothing is pending, else held. */
  send(text: string): void {
    if (this.writing || this.waiting.size > 0) this.held.push(text);
    else this.hand(text, false);
    this.show(this.waitingLines);
  }

  /** Ctrl-X: sent now, the running tool stopped for it. */
  sendNow(text: string): void {
    this.hand(text, true);
    this.show(this.waitingLines);
  }

  /** A question comes up: the held lines are not its answer; they are taken back (to come back in the input). */
  setAside(): string[] {
    const held = this.held;
    this.held = [];
    this.show(this.waitingLines);
    return held;
  }

  /**
   * Up while the agent works: the lines the session gave back (`taken`, no longer queued there)
   * and the held ones come back to the user; none reaches the model now.
   */
  takeBack(taken: readonly string[]): string[] {
    for (const text of taken) {
      const at = this.sent.indexOf(text);
      if (at >= 0) this.sent.splice(at, 1);
    }
    const back = [...taken, ...this.held];
    this.held = [];
    this.show(this.waitingLines);
    return back;
  }

  /**
   * The input ended: the lines the model will not read now are taken back — the held ones, and
   * the sent ones too when the input was interrupted (the session dropped them).
   */
  end(interrupted: boolean): string[] {
    const back = [...(interrupted ? this.sent : []), ...this.held];
    this.sent = [];
    this.held = [];
    this.writing = false;
    this.waiting.clear();
    this.show([]);
    return back;
  }

  private hand(text: string, now: boolean): void {
    this.sent.push(text);
    try {
      this.deliver(text, now);
    } catch (e) {
      this.sent.pop();
      throw e;
    }
  }

  private release(): void {
    if (this.writing || this.waiting.size > 0 || this.held.length === 0) return;
    const held = this.held;
    this.held = [];
    for (const text of held) this.hand(text, false);
    this.show(this.waitingLines);
  }
}
