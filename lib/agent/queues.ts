/**
 * The two ways to talk to a running session (docs/conformance.md: 003 §2.2, 004 §2.6): steering
 * messages are injected between tool calls (and interrupt the tools still pending); follow-ups
 * start a new cycle once the model has answered with text only.
 */

export class InputQueues {
  private steering: string[] = [];
  private followUps: string[] = [];

  constructor(private readonly onSteer: () => void) {}

  /** `interrupt` false: the running tool call finishes; the message waits for the next boundary. */
  steer(text: string, interrupt = true): void {
    this.steering.push(checkText(text, "steer"));
    if (interrupt) this.onSteer();
  }

  followUp(text: string): void {
    this.followUps.push(checkText(text, "followUp"));
  }

  get hasSteering(): boolean {
    return this.steering.length > 0;
  }

  /** Drops everything queued (the input was interrupted). */
  clear(): void {
    this.steering = [];
    this.followUps = [];
  }

  /** All queued steering messages, oldest first; the queue is left empty. */
  drainSteering(): string[] {
    const drained = this.steering;
    this.steering = [];
    return drained;
  }

  /** Every queued message, steering first, each oldest first; the queues are left empty. */
  takeAll(): string[] {
    const all = [...this.steering, ...this.followUps];
    this.clear();
    return all;
  }

  nextFollowUp(): string | undefined {
    return this.followUps.shift();
  }
}

function checkText(text: unknown, method: string): string {
  if (typeof text !== "string" || text.trim() === "") throw new Error(`${method}() needs a non-empty message string.`);
  return text;
}
