/**
 * The live line: one line at the bottom of the output saying what is happening now (a spinner, a
 * label and the time it has taken), with, under it, the last few lines of a running command's
 * output, replaced in place. Each line is cut to the terminal's width so it never wraps, erased before anything else is
 * printed (so no frame is left in the scrollback), and re-fitted when the terminal is resized.
 * While the user types a line of their own, the live line stays drawn above it (the surface moves
 * the user's line out of the way). Off a terminal it prints nothing.
 */
import type { Style } from "./render.ts";
import { cutToWidth, textWidth } from "./text-width.ts";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const FRAME_MS = 80;

/** Where the live line is drawn: the raw terminal, and whether drawing there is possible now. */
export interface LiveSurface {
  /** False while output is held back or the cursor is not at the start of a line. */
  readonly canDraw: boolean;
  readonly columns: number;
  raw(text: string): void;
  /**
   * Writes the live line's rows or their erasure. `wasDrawn`: the cursor is at the end of the rows
   * drawn before; `isDrawn`: rows are on screen once `text` is written.
   */
  paintLive(text: string, wasDrawn: boolean, isDrawn: boolean): void;
}

export class LiveLine {
  private timer?: ReturnType<typeof setInterval>;
  private frame = 0;
  private label = "";
  private since = Date.now();
  private tail: string[] = [];
  /** A dim row under the line (the keys a user typing a steering line has). */
  private note: string | null = null;
  /** Columns each drawn row takes on screen; empty when nothing is drawn. */
  private drawn: number[] = [];

  constructor(
    private readonly surface: LiveSurface,
    private readonly style: Style,
  ) {}

  get active(): boolean {
    return this.timer !== undefined;
  }

  /** Rows the line takes on screen now (0 when it is not drawn). */
  get rows(): number {
    return this.drawn.length;
  }

  /**
   * Shows `label` with a spinner and the time since `since`; when one already runs, only its label
   * changes. A new label drops the output tail of the previous one.
   */
  start(label: string, since = Date.now()): void {
    if (label !== this.label) this.tail = [];
    this.label = label;
    this.since = since;
    if (!this.timer) {
      this.frame = 0;
      this.timer = setInterval(() => {
        this.frame = (this.frame + 1) % FRAMES.length;
        // Drawn after the events already waiting: a resize that came while the process was not
        // running is taken first, so the frame is laid out at the terminal's new width.
        setImmediate(() => this.draw());
      }, FRAME_MS);
    }
    this.draw();
  }

  /** The last lines of the running command's output, shown under the label. */
  showTail(lines: string[]): void {
    this.tail = lines;
    // Redrawn over the old rows in one write: no moment shows the old tail beside the new one.
    this.draw();
  }

  /** A dim row shown under the line while it runs; null removes it. */
  setNote(note: string | null): void {
    if (note === this.note) return;
    this.note = note;
    this.draw();
  }

  /** Stops and erases the line. */
  stop(): void {
    this.tail = [];
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.erase();
  }

  /** Removes the drawn line, leaving the cursor at the start of the now empty line. */
  erase(): void {
    const text = this.eraseText();
    if (text) this.surface.paintLive(text, true, false);
  }

  /** What removes the drawn rows, leaving the cursor at the start of the first ("" when none is drawn). */
  eraseText(): string {
    if (this.drawn.length === 0) return "";
    const up = this.drawn.length - 1;
    this.drawn = [];
    return up > 0 ? `\r\x1b[${up}A\x1b[J` : "\r\x1b[K";
  }

  /** The drawn rows were taken off the screen by the surface itself. */
  removed(): void {
    this.drawn = [];
  }

  /**
   * The terminal is now `columns` wide. A terminal that reflows its lines has wrapped a line wider
   * than that onto several rows: the cursor goes up to its first row before clearing, so no piece
   * of the old line stays behind. Then it is drawn again at the new width.
   */
  resized(columns: number): void {
    const clear = this.clearResized(columns);
    if (clear) this.surface.raw(clear);
    this.draw();
  }

  /** Rows the drawn line takes once the terminal has re-wrapped it at `columns`. */
  rowsAt(columns: number): number {
    return this.drawn.reduce((sum, width) => sum + Math.max(1, Math.ceil(width / columns)), 0);
  }

  /** What clears the drawn rows once the terminal has re-wrapped them at `columns` ("" when none is drawn). */
  clearResized(columns: number): string {
    if (this.drawn.length === 0) return "";
    const rows = this.rowsAt(columns) - 1;
    this.drawn = [];
    return rows > 0 ? `\r\x1b[${rows}A\x1b[J` : "\r\x1b[K";
  }

  /** Draws the line again (after other output was printed above it). */
  draw(): void {
    const wasDrawn = this.drawn.length > 0;
    const text = this.frameText();
    if (text) this.surface.paintLive(text, wasDrawn, true);
  }

  /** What draws the line over the rows drawn before ("" when it cannot be drawn now). */
  frameText(): string {
    if (!this.timer || !this.surface.canDraw) return "";
    // One column is kept free: writing into the last one makes some terminals wrap.
    const width = Math.max(1, this.surface.columns - 1);
    const seconds = Math.floor((Date.now() - this.since) / 1000);
    const time = seconds >= 1 ? ` · ${formatSeconds(seconds)}` : "";
    const head = cutToWidth(`${FRAMES[this.frame]} ${this.label}`, Math.max(1, width - time.length)) + time;
    const tail = [...this.tail.map((line) => `  ${line}`), ...(this.note ? [this.note] : [])].map((line) =>
      cutToWidth(line, width),
    );
    const up = this.drawn.length - 1;
    this.drawn = [head, ...tail].map(textWidth);
    const rows = [`${this.style.cyan(head.slice(0, 1))}${head.slice(1)}`, ...tail.map((l) => this.style.dim(l))];
    return `\r${up > 0 ? `\x1b[${up}A` : ""}${rows.join("\x1b[K\n")}\x1b[J`;
  }
}

/** "42s", "3m 05s". */
export function formatSeconds(seconds: number): string {
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, "0")}s`;
}
