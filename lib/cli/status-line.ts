/**
 * The status line under the input while the shell waits for it: the model and profile, the approval
 * mode, how much of the model's context window the conversation fills, and the session's cost. It
 * is the live region's last part (screen.ts), drawn while the prompt waits and gone while the agent
 * works. On a narrow terminal its parts shorten and leave whole (the cost and the model stay
 * longest); off a terminal it is not drawn. The settings' statusLine command's line, once it has
 * printed one, stands in for these parts (status-command.ts).
 */
import type { SessionEvent } from "../agent/index.ts";
import type { Message, Usage } from "../llm/types.ts";
import { getModel } from "../llm/catalog.ts";
import type { Style } from "./render.ts";
import type { View } from "./screen.ts";
import { cutToWidth, fitParts, type LinePart } from "./text-width.ts";

/** Narrower than this, the status line is left out. */
export const STATUS_MIN_COLUMNS = 40;

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
  /** Drawn under the prompt (the shell shows it while it waits for input). */
  shown = false;
  /** A line standing in for gong's own (the settings' statusLine command's, once it printed one). */
  replacement: () => string | null = () => null;

  constructor(
    private readonly style: Style,
    private readonly info: () => StatusInfo,
  ) {}

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
    // A failed call's usage says nothing of what the conversation holds; an interrupted one's does.
    if (message.role !== "assistant" || !message.usage || message.finishReason === "error") return;
    this.contextTokens = tokensOf(message.usage);
  }

  /** Another session is current (/new, /resume): its size is what its last answer carried. */
  reset(messages: readonly Message[]): void {
    const last = messages.findLast(
      (m) => m.role === "assistant" && m.usage !== undefined && m.finishReason !== "error",
    );
    this.contextTokens = last?.role === "assistant" && last.usage ? tokensOf(last.usage) : 0;
  }

  /** The line's parts, in their order, each ranked for a narrow terminal. */
  parts(): LinePart[] {
    const { model, profile, approval, cost, plan } = this.info();
    let window = 0;
    try {
      window = getModel(model).contextWindow;
    } catch {
      // An unknown model: no percentage.
    }
    // Past the window (a prompt bigger than the model takes) is "full", never a share over 100 %.
    const percent = window > 0 ? Math.round((this.contextTokens / window) * 100) : 0;
    return [
      { text: `${model} (${profile})`, short: model, rank: 3 },
      ...(plan ? [{ text: "plan mode (/plan accepts)", short: "plan mode", rank: 2 }] : []),
      { text: `approval: ${approval} (Shift+Tab)`, short: `approval: ${approval}`, rank: 2 },
      ...(window > 0 ? [{ text: percent > 100 ? "context full" : `context ${percent}%`, rank: 0 }] : []),
      { text: `$${cost.toFixed(4)}`, rank: 1 },
    ];
  }

  text(): string {
    return this.parts()
      .map((p) => p.text)
      .join(" · ");
  }

  view(columns: number): View {
    if (!this.shown || columns < STATUS_MIN_COLUMNS) return { rows: [] };
    const replaced = this.replacement();
    return {
      rows: [
        this.style.dim(replaced === null ? fitParts(this.parts(), columns - 1) : cutToWidth(replaced, columns - 1)),
      ],
    };
  }
}

function tokensOf(u: Usage): number {
  return u.input + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0) + u.output;
}
