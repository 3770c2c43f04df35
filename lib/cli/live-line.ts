/**
 * The live line: one line at the bottom of the output saying what is happening now (a spinner and
 * a label). It is cut to the terminal's width so it never wraps, erased before anything else is
 * printed (so no frame is left in the scrollback), and re-fitted when the terminal is resized.
 * Off a terminal it prints nothing.
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
}

export class LiveLine {
  private timer?: ReturnType<typeof setInterval>;
  private frame = 0;
  private label = "";
  /** Columns the drawn line takes on screen; 0 when nothing is drawn. */
  private drawn = 0;

  constructor(
    private readonly surface: LiveSurface,
    private readonly style: Style,
  ) {}

  get active(): boolean {
    return this.timer !== undefined;
  }

  /** Shows `label` with a spinner; when one already runs, only its label changes. */
  start(label: string): void {
    this.label = label;
    if (!this.timer) {
      this.frame = 0;
      this.timer = setInterval(() => {
        this.frame = (this.frame + 1) % FRAMES.length;
        this.draw();
      }, FRAME_MS);
    }
    this.draw();
  }

  /** Stops and erases the line. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.erase();
  }

  /** Removes the drawn line, leaving the cursor at the start of the now empty line. */
  erase(): void {
    if (this.drawn === 0) return;
    this.drawn = 0;
    this.surface.raw("\r\x1b[K");
  }

  /**
   * The terminal is now `columns` wide. A terminal that reflows its lines has wrapped a line wider
   * than that onto several rows: the cursor goes up to its first row before clearing, so no piece
   * of the old line stays behind. Then it is drawn again at the new width.
   */
  resized(columns: number): void {
    if (this.drawn > columns) {
      const rows = Math.ceil(this.drawn / columns) - 1;
      this.surface.raw(`\r\x1b[${rows}A\x1b[J`);
      this.drawn = 0;
    }
    this.draw();
  }

  /** Draws the line again (after other output was printed above it). */
  draw(): void {
    if (!this.timer || !this.surface.canDraw) return;
    // One column is kept free: writing into the last one makes some terminals wrap.
    const text = cutToWidth(`${FRAMES[this.frame]} ${this.label}`, Math.max(1, this.surface.columns - 1));
    this.drawn = textWidth(text);
    this.surface.raw(`\r${this.style.cyan(text.slice(0, 1))}${text.slice(1)}\x1b[K`);
  }
}
