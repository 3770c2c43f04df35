/**
 * The live status: one row saying what is happening now — a spinner, what the agent does (thinking,
 * writing the answer, a command), the time it has taken, the tokens the model has written, and the
 * key that interrupts — kept through every pause until the input ends. Under it: the last lines of
 * a running command's output, a note (the keys a user typing a steering line has), and the steering
 * lines sent and not yet read by the model. It is a part of the screen's live region (screen.ts):
 * each spinner frame asks the screen to draw again, which writes only the characters that changed.
 * A row never wraps: when the terminal is narrow the label is cut and the other parts leave whole.
 */
import type { Style } from "./render.ts";
import type { View } from "./screen.ts";
import { cutToWidth, fitParts, type LinePart, textWidth } from "./text-width.ts";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const FRAME_MS = 80;

/** What the live status asks of the screen: to be drawn again. */
export interface LiveSurface {
  update(): void;
}

export class LiveLine {
  private timer?: ReturnType<typeof setInterval>;
  private frame = 0;
  private label = "";
  private since = Date.now();
  private tail: string[] = [];
  /** Tokens the model has written in the current call (counted from what streamed), and the count shown (taken at each frame). */
  private tokens = 0;
  private shownTokens = 0;
  /** A dim row under the tail (the keys a user typing a steering line has). */
  private note: LinePart[] | null = null;
  /** Steering lines sent and not yet read by the model. */
  private queued: string[] = [];

  constructor(
    private readonly surface: LiveSurface,
    private readonly style: Style,
  ) {}

  get active(): boolean {
    return this.timer !== undefined;
  }

  /**
   * Shows `label` with a spinner and the time since `since`; when one already runs, only its label
   * (and start) change. A new label drops the output tail of the previous one.
   */
  start(label: string, since = Date.now()): void {
    if (label === this.label && since === this.since && this.timer) return;
    if (label !== this.label) this.tail = [];
    this.label = label;
    this.since = since;
    if (!this.timer) {
      this.frame = 0;
      this.timer = setInterval(() => {
        this.frame = (this.frame + 1) % FRAMES.length;
        this.shownTokens = this.tokens;
        // Drawn after the events already waiting: a resize that came meanwhile is taken first.
        setImmediate(() => this.timer && this.surface.update());
      }, FRAME_MS);
      this.timer.unref?.();
    }
    this.surface.update();
  }

  /** The model's tokens in the current call so far (0: a new call): shown from the next frame (a count is not worth a redraw of its own). */
  setTokens(tokens: number): void {
    this.tokens = tokens;
    if (tokens === 0) this.shownTokens = 0;
  }

  /** The last lines of the running command's output, shown under the label. */
  showTail(lines: string[]): void {
    this.tail = lines;
    this.surface.update();
  }

  /** A dim row of parts (the less needed leave first on a narrow terminal); null removes it. */
  setNote(note: LinePart[] | null): void {
    if (JSON.stringify(note) === JSON.stringify(this.note)) return;
    this.note = note;
    this.surface.update();
  }

  /** The steering lines waiting for the model, shown under the status while the agent works. */
  setQueued(lines: readonly string[]): void {
    this.queued = [...lines];
    this.surface.update();
  }

  /** Stops the spinner: the status row and the tail leave (queued lines stay while there are any). */
  stop(): void {
    this.tail = [];
    this.tokens = 0;
    this.shownTokens = 0;
    this.label = "";
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.surface.update();
  }

  view(columns: number): View {
    // One column is kept free: writing into the last one makes some terminals wrap.
    const width = Math.max(1, columns - 1);
    const s = this.style;
    const rows: string[] = [];
    if (this.timer) {
      rows.push(this.statusRow(width));
      rows.push(...this.tail.map((line) => s.dim(cutToWidth(`  ${line}`, width))));
      if (this.note) rows.push(s.dim(fitParts(this.note, width)));
    }
    for (const line of this.queued) rows.push(s.dim(cutToWidth(`↳ ${line.replace(/\s+/g, " ")}`, width)));
    return { rows };
  }

  /** "⠋ bash  npm test · 12s · ↓ 1.2k tokens · Esc to interrupt", fitted: the extras give way before the label is cut short. */
  private statusRow(width: number): string {
    const s = this.style;
    const seconds = Math.floor((Date.now() - this.since) / 1000);
    const extras: LinePart[] = [
      ...(seconds >= 1 ? [{ text: formatSeconds(seconds), rank: 2 }] : []),
      ...(this.shownTokens > 0
        ? [
            {
              text: `↓ ${formatTokens(this.shownTokens)} tokens`,
              short: `↓ ${formatTokens(this.shownTokens)}`,
              rank: 1,
            },
          ]
        : []),
      { text: "Esc to interrupt", short: "Esc", rank: 0 },
    ];
    const head = `${FRAMES[this.frame]} `;
    // The label keeps at least half the row; the extras take what is left, leaving whole.
    const labelWidth = textWidth(this.label);
    const room = width - textWidth(head) - Math.min(labelWidth, Math.floor(width / 2)) - 3;
    let extra = room > 0 ? fitParts(extras, room) : "";
    if (extra.endsWith("…")) extra = "";
    const label = cutToWidth(this.label, width - textWidth(head) - (extra ? textWidth(extra) + 3 : 0));
    return `${s.cyan(FRAMES[this.frame])} ${label}${extra ? s.dim(` · ${extra}`) : ""}`;
  }
}

/** "42s", "3m 05s". */
export function formatSeconds(seconds: number): string {
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, "0")}s`;
}

/** "840", "1.2k", "34k". */
export function formatTokens(n: number): string {
  return n < 1000 ? String(n) : n < 10_000 ? `${(n / 1000).toFixed(1)}k` : `${Math.round(n / 1000)}k`;
}
