/**
 * The status line under the input while the shell waits for it: the model and profile, the approval mode,
 * how much of the model's context window the conversation fills, and the session's cost. It lives
 * on the row below the prompt (reserved when the prompt is drawn, redrawn after each key, since
 * the line editor clears below itself) and is cleared when the input is sent. Hidden on narrow
 * terminals and off a terminal.
 */
import type { SessionEvent } from "../agent/index.ts";
import type { Message, Usage } from "../llm/types.ts";
import { getModel } from "../llm/catalog.ts";
import type { LiveSurface } from "./live-line.ts";
import type { Style } from "./render.ts";
import { cutToWidth } from "./text-width.ts";

/** Narrower than this, the status line is left out. */
export const STATUS_MIN_COLUMNS = 60;

export interface StatusInfo {
  model: string;
  profile: string;
  approval: string;
  cost: number;
  /** In plan mode (/plan): only reading tools until the plan is accepted. */
  plan?: boolean;
}

export class StatusLine {
  /** Tokens the last model call carried (its input and output): the conversation's size. */
  private contextTokens = 0;
  private shown = false;
  /** Rows the input takes below the cursor (a multi-line input, a completion list): the status row is under them. */
  rowsBelow: () => number = () => 0;

  constructor(
    private readonly surface: LiveSurface & { readonly isTTY: boolean },
    private readonly style: Style,
    private readonly info: () => StatusInfo,
  ) {}

  get visible(): boolean {
    return this.surface.isTTY && this.surface.columns >= STATUS_MIN_COLUMNS;
  }

  observe(event: SessionEvent): void {
    if (event.agent_id !== undefined) return;
    // A compaction shrank the conversation: its size is now what the compaction left.
    if (event.kind === "compaction_end") {
      const { compacted, tokens_after } = (event as SessionEvent<"compaction_end">).data;
      if (compacted && tokens_after !== undefined) this.contextTokens = tokens_after;
      return;
    }
    if (event.kind !== "message_end") return;
    const { message } = event.data;
    // A failed call's usage says nothing of what the conversation holds.
    if (
      message.role !== "assistant" ||
      !message.usage ||
      message.finishReason === "error" ||
      message.finishReason === "aborted"
    )
      return;
    this.contextTokens = tokensOf(message.usage);
  }

  /** Another session is current (/new, /resume): its size is what its last answer carried. */
  reset(messages: readonly Message[]): void {
    const last = messages.findLast((m) => m.role === "assistant" && m.usage !== undefined);
    this.contextTokens = last?.role === "assistant" && last.usage ? tokensOf(last.usage) : 0;
  }

  text(): string {
    const { model, profile, approval, cost, plan } = this.info();
    let window = 0;
    try {
      window = getModel(model).contextWindow;
    } catch {
      // An unknown model: no percentage.
    }
    // Past the window (a prompt bigger than the model takes) is "full", never a share over 100 %.
    const percent = window > 0 ? Math.round((this.contextTokens / window) * 100) : 0;
    const context = window > 0 ? (percent > 100 ? " · context full" : ` · context ${percent}%`) : "";
    return `${model} (${profile}) · ${plan ? "plan mode (/plan accepts) · " : ""}approval: ${approval} (Shift+Tab)${context} · $${cost.toFixed(4)}`;
  }

  /** Before the prompt is drawn: makes room for the status row below it. */
  reserve(): void {
    if (!this.visible) return;
    this.surface.raw("\n\x1b[1A");
  }

  /** Draws (or redraws) the status row below the cursor's row, leaving the cursor where it was. */
  draw(): void {
    if (!this.visible) return;
    this.shown = true;
    const line = cutToWidth(this.text(), this.surface.columns - 1);
    this.surface.raw(`\x1b7\x1b[${1 + this.rowsBelow()}B\r${this.style.dim(line)}\x1b[K\x1b8`);
  }

  /** Empties the status row below the cursor, the cursor staying where it is. */
  hide(): void {
    if (!this.shown) return;
    this.shown = false;
    this.surface.raw(`\x1b7\x1b[${1 + this.rowsBelow()}B\r\x1b[K\x1b8`);
  }

  /** The input was sent: the cursor is on the status row now; it is emptied for the output. */
  clear(): void {
    if (!this.shown) return;
    this.shown = false;
    this.surface.raw("\r\x1b[K");
  }
}

function tokensOf(u: Usage): number {
  return u.input + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0) + u.output;
}
