/**
 * Incremental completion of a JSON text that is still arriving. Each piece is scanned once, keeping
 * only what is needed to close the text at any moment: the open brackets, whether a string is open
 * (and whether it is a key or a value), a pending escape, and the last point where cutting the text
 * and closing the brackets gives valid JSON. A snapshot is then one native JSON.parse of the text
 * plus its closers — the whole stream costs a linear scan, not a re-parse per piece.
 */
export class JsonCloser {
  private readonly stack: Array<"{" | "["> = [];
  private inString = false;
  private stringIsKey = false;
  /** In an object, the next string is a key (after `{` or `,`). */
  private expectKey = false;
  /** Index of the backslash of an escape still being read, or -1. */
  private escapeAt = -1;
  private escapeLeft = 0;
  /** Inside a number or true/false/null. */
  private inLiteral = false;
  /** After `:` or `,`: a value (or key) must follow before the text closes. */
  private afterColonOrComma = false;
  /** The longest prefix known to close into valid JSON, and the closers it needs. */
  private safeEnd = 0;
  private safeClosers = "";
  private length = 0;

  /** Scans one more piece of the text (the caller keeps the text itself). */
  push(piece: string): void {
    let k = 0;
    while (k < piece.length) {
      // Inside a string only a quote or a backslash matters: jump to the next one (most of a
      // write's arguments is string content, so this is where the time would go).
      if (this.inString && this.escapeAt < 0) {
        const quote = piece.indexOf('"', k);
        const slash = piece.indexOf("\\", k);
        const next = quote < 0 ? slash : slash < 0 ? quote : Math.min(quote, slash);
        if (next < 0) break;
        k = next;
      }
      this.step(piece.charCodeAt(k), this.length + k);
      k++;
    }
    this.length += piece.length;
  }

  /** The value of `text` (everything pushed so far) with its open strings and brackets closed. */
  snapshot(text: string): unknown {
    const closers = this.closers();
    let candidate: string | undefined;
    if (this.inString && !this.stringIsKey)
      candidate = `${text.slice(0, this.escapeAt >= 0 ? this.escapeAt : text.length)}"${closers}`;
    else if (!this.inString && !this.afterColonOrComma) candidate = text + closers;
    if (candidate !== undefined) {
      try {
        return JSON.parse(candidate);
      } catch {
        // A literal cut midway (`tr`, `1e`): fall back to the last safe point.
      }
    }
    try {
      return this.safeEnd > 0 ? JSON.parse(text.slice(0, this.safeEnd) + this.safeClosers) : undefined;
    } catch {
      return undefined;
    }
  }

  private closers(): string {
    let out = "";
    for (let i = this.stack.length - 1; i >= 0; i--) out += this.stack[i] === "{" ? "}" : "]";
    return out;
  }

  private markSafe(end: number): void {
    this.safeEnd = end;
    this.safeClosers = this.closers();
  }

  private step(c: number, i: number): void {
    if (this.inString) {
      if (this.escapeAt >= 0) {
        if (this.escapeLeft === -1) this.escapeLeft = c === 0x75 /* u */ ? 4 : 0;
        else this.escapeLeft--;
        if (this.escapeLeft <= 0) this.escapeAt = -1;
        return;
      }
      if (c === 0x5c /* \ */) {
        this.escapeAt = i;
        this.escapeLeft = -1;
        return;
      }
      if (c === 0x22 /* " */) {
        this.inString = false;
        if (this.stringIsKey) return; // a key alone does not close into valid JSON
        this.markSafe(i + 1);
      }
      return;
    }
    const endsLiteral = c === 0x2c || c === 0x7d || c === 0x5d || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
    if (this.inLiteral && endsLiteral) {
      this.inLiteral = false;
      this.markSafe(i);
    }
    switch (c) {
      case 0x22: // "
        this.inString = true;
        this.stringIsKey = this.expectKey;
        this.expectKey = false;
        this.afterColonOrComma = false;
        return;
      case 0x7b: // {
        this.stack.push("{");
        this.expectKey = true;
        this.afterColonOrComma = false;
        this.markSafe(i + 1);
        return;
      case 0x5b: // [
        this.stack.push("[");
        this.expectKey = false;
        this.afterColonOrComma = false;
        this.markSafe(i + 1);
        return;
      case 0x7d: // }
      case 0x5d: // ]
        this.stack.pop();
        this.afterColonOrComma = false;
        this.markSafe(i + 1);
        return;
      case 0x3a: // :
        this.afterColonOrComma = true;
        return;
      case 0x2c: // ,
        this.expectKey = this.stack[this.stack.length - 1] === "{";
        this.afterColonOrComma = true;
        return;
      default:
        if (!endsLiteral) {
          this.inLiteral = true;
          this.afterColonOrComma = false;
        }
    }
  }
}
