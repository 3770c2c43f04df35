/**
 * A small terminal for unit tests of what the shell writes: it wraps at `columns`, scrolls past
 * `rows` (the rows above go to the scrollback, where the cursor cannot reach), and understands CR,
 * LF (as a terminal's line discipline passes it: a new line, from its start), cursor up / down /
 * forward / back (CSI n A, B, C, D), erase below (CSI J), erase to the end of the row (CSI K) and
 * insert lines (CSI n L, the rows pushed past the screen's bottom lost); styles, cursor visibility and other modes are read and dropped.
 * `text()` is the scrollback and the screen, rows right-trimmed.
 */
import { textWidth } from "../../lib/cli/text-width.ts";

export class VirtualTerminal {
  private lines: string[][] = [[]];
  private row = 0;
  private col = 0;
  /** The last column was written: the next character wraps first. */
  private wrapPending = false;
  /** Bytes written so far. */
  bytes = 0;

  constructor(
    readonly columns: number,
    readonly rows = 1000,
  ) {}

  /** The first row of the screen (the rows above it are the scrollback). */
  private get top(): number {
    return Math.max(0, this.lines.length - this.rows);
  }

  write(data: string): void {
    this.bytes += Buffer.byteLength(data);
    for (const m of data.matchAll(/\x1b\[([0-9;?]*)([A-Za-z])|\x1b\][^\x07]*\x07|\x1b[78]|([\s\S])/gu)) {
      if (m[2]) {
        if (m[1].startsWith("?")) continue;
        const n = Number(m[1] || 1);
        this.wrapPending = false;
        if (m[2] === "A") this.row = Math.max(this.top, this.row - n);
        else if (m[2] === "B") this.row = Math.min(this.lines.length - 1, this.row + n);
        else if (m[2] === "C") this.col = Math.min(this.columns - 1, this.col + n);
        else if (m[2] === "D") this.col = Math.max(0, this.col - n);
        else if (m[2] === "J") {
          this.lines[this.row].length = Math.min(this.lines[this.row].length, this.col);
          for (let r = this.row + 1; r < this.lines.length; r++) this.lines[r] = [];
        } else if (m[2] === "K") this.lines[this.row].length = Math.min(this.lines[this.row].length, this.col);
        else if (m[2] === "L") {
          const bottom = this.top + this.rows;
          this.lines.splice(this.row, 0, ...Array.from({ length: n }, () => [] as string[]));
          if (this.lines.length > bottom) this.lines.length = Math.max(bottom, this.row + 1);
          this.col = 0;
        }
        continue;
      }
      const ch = m[3];
      if (ch === undefined) continue;
      if (ch === "\r") {
        this.col = 0;
        this.wrapPending = false;
      } else if (ch === "\n") {
        this.wrapPending = false;
        this.col = 0;
        this.down();
      } else {
        const w = textWidth(ch);
        if (w === 0) continue;
        if (this.wrapPending || this.col + w > this.columns) {
          this.col = 0;
          this.down();
        }
        const cells = this.lines[this.row];
        while (cells.length < this.col) cells.push(" ");
        cells[this.col] = ch;
        if (w === 2) cells[this.col + 1] = "";
        this.col += w;
        this.wrapPending = this.col >= this.columns;
        if (this.wrapPending) this.col = this.columns - 1;
      }
    }
  }

  /** Down a row; at the last one, a new row is made (the screen scrolls). */
  private down(): void {
    this.row++;
    if (this.row >= this.lines.length) this.lines.push([]);
  }

  /** The cursor's row and column on the whole text. */
  get cursor(): { row: number; col: number } {
    return { row: this.row, col: this.wrapPending ? this.columns : this.col };
  }

  text(): string {
    return this.lines
      .map((r) => r.join("").trimEnd())
      .join("\n")
      .replace(/\n+$/, "");
  }
}
