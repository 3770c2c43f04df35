/**
 * The terminal shared by the streamed answer and the line editor. While the agent works, the
 * editor's echo is muted, so a key typed mid-answer never lands inside the answer's text. The
 * first key typed opens a steering line of its own, drawn below the output: the output keeps
 * coming, each whole line printed above the user's line, which is drawn again under it. The
 * unfinished line is drawn between them, apart, and redrawn as it grows (so no word is split by the
 * user's line) until it ends or the user's line is sent. Nothing is lost and nothing is mixed. The
 * live line (live-line.ts) is drawn through the screen: it is erased before any other output and
 * drawn again after it; while the user composes, it stays drawn between the unfinished line and
 * the user's line, all redrawn after each piece of output.
 */
import { Writable } from "node:stream";
import type { LiveLine, LiveSurface } from "./live-line.ts";
import { textWidth } from "./text-width.ts";

type Terminal = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/** The user's line as the screen moves it. */
export interface ScreenInput {
  erase(): void;
  redraw(): void;
  /** Rows the line just sent took above the cursor (the cursor is on the row after it). */
  sentRows(): number;
}

export class Screen implements LiveSurface {
  /** The line editor's output: muted while the agent works and the user is not typing. */
  readonly echo: Writable;
  private working = false;
  /** While the user composes a line: the output's unfinished line, waiting for its end. */
  private held: string | null = null;
  /** The user's line: taken off the screen while output is printed, then drawn again below it. */
  private input: ScreenInput | null = null;
  /** While the user composes: where the unfinished line's text comes from (else the held text), and what of it is drawn. */
  private pendingSource: (() => string) | null = null;
  private pendingShown = "";
  /** The cursor is at the start of a line (the live line may be drawn there). */
  private atLineStart = true;
  private live: LiveLine | null = null;
  /** Counts the output printed: tells whether anything came between two moments. */
  printed = 0;

  constructor(private readonly terminal: Terminal) {
    this.echo = new Writable({
      write: (chunk: Buffer | string, _encoding, done) => {
        if (!this.working || this.held !== null) {
          // While the user composes, the live line is drawn above their line, out of its way.
          if (this.held === null) this.live?.erase();
          terminal.write(chunk);
          this.atLineStart = String(chunk).endsWith("\n");
        }
        done();
      },
    });
    (terminal as NodeJS.EventEmitter).on?.("resize", this.onResize);
    // readline lays out long lines from the width; it reads it from its output stream.
    Object.defineProperty(this.echo, "columns", { get: () => terminal.columns });
    Object.defineProperty(this.echo, "isTTY", { get: () => terminal.isTTY });
  }

  /** False while the user composes a line (the status line stays away then). */
  get isTTY(): boolean {
    return Boolean(this.terminal.isTTY) && this.held === null;
  }

  get composing(): boolean {
    return this.held !== null;
  }

  get columns(): number {
    return this.terminal.columns || 80;
  }

  /** The live line can be drawn: on a terminal, at the start of a line or above the user's line. */
  get canDraw(): boolean {
    return Boolean(this.terminal.isTTY) && (this.held !== null || this.atLineStart);
  }

  /** The live line drawn below the output. */
  attach(live: LiveLine): void {
    this.live = live;
  }

  /** The line editor, drawn again under output printed while the user composes. */
  attachInput(input: ScreenInput): void {
    this.input = input;
  }

  /** What shows of the output's unfinished line while the user composes (the rendered answer's words). */
  attachPending(source: () => string): void {
    this.pendingSource = source;
  }

  write(text: string): void {
    if (this.held === null) return this.print(text);
    this.held += text;
    const end = this.held.lastIndexOf("\n");
    const lines = end < 0 ? "" : this.held.slice(0, end + 1);
    this.held = this.held.slice(end + 1);
    if (!this.input) return this.print(lines);
    if (!lines && this.pendingText() === this.pendingShown) return;
    if (lines) this.printed++;
    this.redrawComposing(lines);
  }

  private pendingText(): string {
    return this.pendingSource?.() || (this.held ?? "");
  }

  /** Rows `text` takes at `columns`. */
  private rowsOf(text: string, columns: number): number {
    return text.split("\n").reduce((rows, line) => rows + Math.max(1, Math.ceil(textWidth(line) / columns)), 0);
  }

  /** Rows drawn between the output and the user's line (the unfinished line, the live line), as the terminal holds them at `columns`. */
  private rowsAbove(columns = this.columns): number {
    return (this.pendingShown ? this.rowsOf(this.pendingShown, columns) : 0) + (this.live?.rowsAt(columns) ?? 0);
  }

  /** While composing: the user's line, the live line and the unfinished line are cleared, `lines` printed, and the three drawn again under them. */
  private redrawComposing(lines: string, columns = this.columns): void {
    const input = this.input!;
    const up = this.rowsAbove(columns);
    input.erase();
    this.live?.removed();
    const pending = this.pendingText();
    this.pendingShown = pending;
    const frame = this.live?.frameText() ?? "";
    this.terminal.write(
      `${up > 0 ? `\x1b[${up}A\r\x1b[J` : ""}${lines}${pending ? `${pending}\n` : ""}${frame ? `${frame}\n` : ""}`,
    );
    input.redraw();
  }

  paintLive(text: string, wasDrawn: boolean, isDrawn: boolean): void {
    if (this.held === null || !this.input) {
      this.terminal.write(text);
      return;
    }
    // The user's line is below the live line: it is taken off, the live rows changed, and it is drawn again under them.
    this.input.erase();
    this.terminal.write(`${wasDrawn ? "\x1b[1A" : ""}${text}${isDrawn ? "\n" : ""}`);
    this.input.redraw();
  }

  raw(text: string): void {
    this.terminal.write(text);
  }

  /** Stops listening to the terminal's size. */
  detach(): void {
    (this.terminal as NodeJS.EventEmitter).off?.("resize", this.onResize);
  }

  private print(text: string): void {
    if (!text) return;
    this.printed++;
    this.live?.erase();
    this.terminal.write(text);
    this.atLineStart = text.endsWith("\n");
    this.live?.draw();
  }

  private readonly onResize = () => {
    if (this.held === null || !this.input) return this.live?.resized(this.columns);
    // What is drawn above the user's line is cleared as the terminal re-wrapped it, and drawn again at the new width.
    if (this.rowsAbove() > 0) this.redrawComposing("");
  };

  /** The agent starts on an input: typed keys are no longer echoed until a steering line opens. */
  startWork(): void {
    this.working = true;
  }

  /** The agent is done: a half-typed steering line stays in the editor for the next prompt. */
  endWork(): void {
    this.working = false;
    this.endCompose(true);
  }

  /** The user started typing while the agent works: from here their line is echoed below the output. */
  beginCompose(): void {
    if (!this.working || this.held !== null) return;
    this.held = "";
    // From here the unfinished line, the live line and the user's line are drawn in that order: the user's line comes next.
    const erase = this.live?.eraseText() ?? "";
    this.pendingShown = this.pendingText();
    const frame = this.live?.frameText() ?? "";
    const out = `${erase}${this.pendingShown ? `${this.pendingShown}\n` : ""}${frame ? `${frame}\n` : ""}`;
    if (out) this.terminal.write(out);
  }

  /** Shows the unfinished line held back; `unfinished` when the user's line was not sent (the output starts below it). */
  endCompose(unfinished = false): void {
    const held = this.held;
    if (held === null) return;
    const above = this.rowsAbove();
    if (above > 0 && unfinished) {
      // The user's line and what is drawn above it leave the screen; the output goes on from there.
      this.input?.erase();
      this.terminal.write(`\x1b[${above}A\r\x1b[J`);
    } else if (above > 0) {
      // The line was sent and stays where it is: the rows above it are deleted (the rows below move up).
      const sent = Math.max(1, this.input?.sentRows() ?? 1);
      this.terminal.write(`\x1b[${sent + above}A\r\x1b[${above}M\x1b[${sent}B`);
    }
    this.live?.removed();
    this.pendingShown = "";
    this.held = null;
    if (unfinished && above === 0) this.print("\n");
    this.print(held);
  }
}
