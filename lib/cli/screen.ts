/**
 * The terminal as the shell draws it: the output, which goes up into the scrollback line by line
 * and is never touched again, and under it the live region — what changes in place: the answer's
 * unfinished line, the live status (spinner, time, tokens, the running command's last lines, the
 * steering lines waiting for the model), the input (the prompt, a steering line, a question's
 * menu) and the status line. Each change redraws the region by difference: only the rows, and in
 * a row only the characters, that changed are written (a spinner frame is one character, a typed
 * key the key). Output goes above the region, and rows it leaves as they were are not written
 * again. Every row is fitted to the width, so the terminal never wraps one by itself and the
 * region always knows where its rows are; on a resize (the terminal re-wraps what it holds) the
 * region is cleared from its first row and drawn again at the new width. Off a terminal, output is
 * written as it comes and nothing else is drawn.
 */
import { patchRow } from "./row-diff.ts";
import { fitToWidth, textWidth } from "./text-width.ts";

type Terminal = NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };

/** What a part of the region shows: its rows (each within the width) and, for a part taking keys, the cursor. */
export interface View {
  rows: string[];
  cursor?: { row: number; col: number };
}

export interface RegionPart {
  view(columns: number): View;
}

const HIDE_CURSOR = "\x1b[?25l";
const SHOW_CURSOR = "\x1b[?25h";
/**
 * Clears from the start of the cursor's row to the end of the screen. Not a bare CSI J at column
 * 0: from the screen's top-left corner tmux takes that for clearing the whole screen and keeps the
 * rows in its scrollback (scroll-on-clear), where they would show twice.
 */
const CLEAR_BELOW = "\x1b[K\x1b[C\x1b[J\r";

export class Screen {
  /** Output whose line has not ended yet: drawn as the region's first rows until it does. */
  private partial = "";
  private parts: RegionPart[] = [];
  /** The region's rows as they are on screen. */
  private drawn: string[] = [];
  /** Rows below the region's top that exist on the terminal (drawn, or cleared and still there). */
  private height = 0;
  /** The cursor, relative to the region's first row. */
  private at = { row: 0, col: 0 };
  private cursorShown = true;
  private detached = false;

  constructor(private readonly terminal: Terminal) {
    (terminal as NodeJS.EventEmitter).on?.("resize", this.onResize);
  }

  /** A terminal to draw on (else output is written as it comes). */
  get tty(): boolean {
    return Boolean(this.terminal.isTTY);
  }

  get columns(): number {
    return this.terminal.columns || 80;
  }

  get rows(): number {
    return this.terminal.rows || 24;
  }

  /** The region's parts, top to bottom. */
  setParts(parts: RegionPart[]): void {
    this.parts = parts;
  }

  /** Output: each line that ends goes above the region for good; an unfinished one waits in the region. */
  write(text: string): void {
    if (!this.tty) {
      if (text) this.out(text);
      return;
    }
    // A carriage return would move the cursor under the region's feet (rows are only ever ended),
    // and a tab to a stop the row's width does not count: neither reaches the terminal.
    const all = this.partial + text.replace(/\r/g, "").replace(/\t/g, "    ");
    const end = all.lastIndexOf("\n");
    this.partial = all.slice(end + 1);
    if (end < 0) return this.update();
    const width = this.columns;
    const lines = all
      .slice(0, end)
      .split("\n")
      .flatMap((line) => fitToWidth(line, width));
    this.paint(lines);
  }

  /** Draws the region again where it changed. */
  update(): void {
    if (this.tty && !this.detached) this.paint([]);
  }

  /** Bytes that move nothing (a bell, a notification). */
  raw(text: string): void {
    this.out(text);
  }

  /**
   * Takes the region off the screen, the cursor at its first row, shown (another program takes the
   * terminal, or the shell ends); the next update draws it again from there.
   */
  release(): void {
    if (!this.tty) return;
    let out = this.moveTo(0, 0);
    out += CLEAR_BELOW;
    this.drawn = [];
    this.height = 1;
    if (!this.cursorShown) out += SHOW_CURSOR;
    this.cursorShown = true;
    this.out(out);
  }

  /** Stops drawing (the shell ends): the region is released and the terminal's size no longer followed. */
  detach(): void {
    this.release();
    this.detached = true;
    (this.terminal as NodeJS.EventEmitter).off?.("resize", this.onResize);
  }

  /** The region's rows now, and where the cursor goes: the parts', under the unfinished output line. */
  private compose(width: number): View {
    const rows = this.partial ? fitToWidth(this.partial, width) : [];
    let cursor: View["cursor"];
    for (const part of this.parts) {
      const view = part.view(width);
      if (view.cursor) cursor = { row: rows.length + view.cursor.row, col: view.cursor.col };
      rows.push(...view.rows);
    }
    // The region stays within the screen (rows above it could not be drawn again): its top rows give way.
    const over = rows.length - Math.max(1, this.rows - 1);
    if (over > 0) {
      rows.splice(0, over);
      if (cursor) cursor.row = Math.max(0, cursor.row - over);
    }
    return { rows, cursor };
  }

  /** Writes `committed` above the region for good and draws the region under it, only where rows changed. */
  private paint(committed: string[]): void {
    if (this.detached) {
      if (committed.length) this.out(`${committed.join("\n")}\n`);
      return;
    }
    const region = this.compose(this.columns);
    const start = { at: { ...this.at }, height: this.height };
    let out = this.rewrite(this.drawn, committed, region);
    // More rows than before: new rows may instead be inserted where they come (CSI L), pushing
    // the rows under them down rather than drawing them again lower (a line committed above the
    // live status, a row added to a table). Whichever writes least is written.
    const added = committed.length + region.rows.length - this.drawn.length;
    if (added > 0 && committed.length + region.rows.length < this.rows) {
      let best = { out, at: this.at, height: this.height };
      for (let at = 0; at < this.drawn.length; at++) {
        Object.assign(this, { at: { ...start.at }, height: start.height });
        const old = [...this.drawn.slice(0, at), ...Array<string>(added).fill(""), ...this.drawn.slice(at)];
        const tried = this.insertRows(at, added) + this.rewrite(old, committed, region);
        if (tried.length < best.out.length) best = { out: tried, at: this.at, height: this.height };
      }
      out = best.out;
      Object.assign(this, { at: best.at, height: best.height });
    }
    if (Boolean(region.cursor) !== this.cursorShown) {
      this.cursorShown = Boolean(region.cursor);
      out += this.cursorShown ? SHOW_CURSOR : HIDE_CURSOR;
    }
    this.drawn = region.rows;
    if (out) this.out(out);
  }

  /**
   * What turns `old` (the rows on screen from the region's first row) into `committed` and then the
   * region, row by row where they differ; the region's first row is then under the committed rows.
   */
  private rewrite(old: readonly string[], committed: string[], region: View): string {
    const rows = [...committed, ...region.rows];
    const frozen = committed.length;
    let out = "";
    for (let i = 0; i < rows.length; i++) {
      const was = i < old.length ? old[i] : i < this.height ? "" : undefined;
      if (was === rows[i]) continue;
      if (was === undefined) {
        out += this.moveTo(i, 0) + rows[i];
        this.at.col = textWidth(rows[i]);
        continue;
      }
      const patch = patchRow(was, rows[i])!;
      out += this.moveTo(i, patch.col) + patch.text + (patch.clear ? "\x1b[K" : "");
      this.at.col = patch.col + textWidth(patch.text);
    }
    if (old.length > rows.length) out += this.moveTo(rows.length, 0) + CLEAR_BELOW;
    // The region's first row exists under what was committed, the cursor not above it.
    if (this.at.row < frozen) out += this.moveTo(frozen, 0);
    if (region.cursor) out += this.moveTo(frozen + region.cursor.row, region.cursor.col);
    this.height = Math.max(this.height, rows.length, frozen + 1) - frozen;
    this.at.row -= frozen;
    return out;
  }

  /**
   * What inserts `count` blank rows before the region's row `at`, pushing it and the rows under it
   * down: as many rows are first made under the region (the screen scrolls when it must).
   */
  private insertRows(at: number, count: number): string {
    const last = this.drawn.length - 1;
    let out = this.moveTo(last, 0) + "\r\n".repeat(count);
    this.at = { row: last + count, col: 0 };
    this.height = Math.max(this.height, last + count + 1);
    out += `${this.moveTo(at, 0)}\x1b[${count}L`;
    return out;
  }

  /** The escape sequences that move the cursor to `row`, `col` of the region (rows below it are made as needed). */
  private moveTo(row: number, col: number): string {
    let out = "";
    if (row > this.at.row) {
      const last = this.height - 1;
      const down = Math.min(row, last) - this.at.row;
      if (down > 0) out += `\x1b[${down}B`;
      const fresh = row - Math.max(this.at.row, last);
      if (fresh > 0) {
        out += "\r\n".repeat(fresh);
        this.height = row + 1;
        this.at.col = 0;
      }
    } else if (row < this.at.row) out += `\x1b[${this.at.row - row}A`;
    this.at.row = row;
    // A cursor past the last column waits to wrap: only a carriage return says where it is.
    if (this.at.col !== col || col >= this.columns) out += col > 0 ? `\r\x1b[${col}C` : "\r";
    this.at.col = col;
    return out;
  }

  private out(text: string): void {
    this.terminal.write(text);
  }

  /**
   * The terminal re-wrapped the region's rows at its new width: the cursor goes up to the region's
   * first row as it now lies, the rest is cleared, and the region is drawn again.
   */
  private readonly onResize = () => {
    if (!this.tty || this.detached) return;
    const width = this.columns;
    let up = Math.floor(this.at.col / width);
    for (let i = 0; i < Math.min(this.at.row, this.drawn.length); i++)
      up += Math.max(1, Math.ceil(textWidth(this.drawn[i]) / width));
    this.out(`${up > 0 ? `\x1b[${up}A` : ""}\r${CLEAR_BELOW}`);
    this.drawn = [];
    this.height = 1;
    this.at = { row: 0, col: 0 };
    this.update();
  };
}
