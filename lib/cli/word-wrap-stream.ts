/**
 * Streamed plain text (the answer when markdown is not rendered) word-wrapped as it arrives: each
 * word is printed once the space after it comes, on the row it fits, so the terminal never breaks
 * a word and nothing printed is ever taken back. Only the word being written waits.
 */
import { textWidth } from "./text-width.ts";

export class WordWrapStream {
  /** Columns used on the current row. */
  private col = 0;
  private word = "";
  private spaces = "";

  constructor(private readonly columns: () => number) {}

  /** Takes a delta; returns the text to print now. */
  push(delta: string): string {
    let out = "";
    for (const ch of delta) {
      if (ch === "\n") {
        out += `${this.placeWord()}\n`;
        this.col = 0;
        this.spaces = "";
      } else if (ch === " ") {
        out += this.placeWord();
        this.spaces += " ";
      } else this.word += ch;
    }
    return out;
  }

  /** The word still being written, printed now (the answer ended, or other output follows). */
  flush(): string {
    return this.placeWord();
  }

  /** Other output started a new row. */
  lineEnded(): void {
    this.col = 0;
    this.spaces = "";
  }

  private placeWord(): string {
    const word = this.word;
    if (!word) return "";
    this.word = "";
    const width = Math.max(1, this.columns());
    const w = textWidth(word);
    let out = "";
    if (this.col > 0 && this.col + this.spaces.length + w > width) {
      out = "\n";
      this.col = 0;
    } else {
      out = this.spaces;
      this.col += this.spaces.length;
    }
    this.spaces = "";
    if (this.col + w <= width) {
      this.col += w;
      return out + word;
    }
    // A word wider than a row is broken inside it.
    for (const ch of word) {
      const cw = textWidth(ch);
      if (this.col + cw > width && this.col > 0) {
        out += "\n";
        this.col = 0;
      }
      out += ch;
      this.col += cw;
    }
    return out;
  }
}
