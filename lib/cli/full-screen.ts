/**
 * A view over the whole terminal — the transcript, the session picker — drawn on the terminal's
 * alternate screen, as a pager is: the shell's own screen and its scrollback are left as they
 * were and come back when the view closes. While a view is open, what the shell would write (a
 * spinner frame, output of the running input) is held and written once it closes (`Held`).
 */
type Terminal = NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };

const ENTER = "\x1b[?1049h\x1b[?25l";
const LEAVE = "\x1b[?25h\x1b[?1049l";

export class FullScreen {
  private open = false;

  constructor(private readonly terminal: Terminal) {}

  get columns(): number {
    return this.terminal.columns || 80;
  }

  get rows(): number {
    return this.terminal.rows || 24;
  }

  /** Draws `rows` from the top (each cut by the caller to the width), the cursor shown at `cursor` when given. */
  draw(rows: readonly string[], cursor?: { row: number; col: number }): void {
    const shown = rows.slice(0, this.rows);
    let out = this.open ? "" : ENTER;
    this.open = true;
    out += `\x1b[H${shown.map((r) => `${r}\x1b[0m\x1b[K`).join("\r\n")}\x1b[J`;
    out += cursor ? `\x1b[${cursor.row + 1};${cursor.col + 1}H\x1b[?25h` : "\x1b[?25l";
    this.terminal.write(out);
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    this.terminal.write(LEAVE);
  }
}

/**
 * The terminal the shell writes to, which can be held: while held, writes wait (in order) and
 * are written when it is released. Everything else is the real terminal's.
 */
export class Held {
  readonly terminal: Terminal;
  private waiting: string[] | null = null;

  constructor(private readonly real: Terminal) {
    const write = (chunk: unknown, ...rest: unknown[]) => {
      if (this.waiting) {
        this.waiting.push(typeof chunk === "string" ? chunk : String(chunk));
        // A callback the writer passed is still called.
        const done = rest.find((r) => typeof r === "function") as (() => void) | undefined;
        done?.();
        return true;
      }
      return (real.write as (...a: unknown[]) => boolean)(chunk, ...rest);
    };
    this.terminal = new Proxy(real, {
      get(target, prop) {
        if (prop === "write") return write;
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }

  get held(): boolean {
    return this.waiting !== null;
  }

  hold(): void {
    this.waiting ??= [];
  }

  release(): void {
    const waiting = this.waiting;
    this.waiting = null;
    if (waiting?.length) this.real.write(waiting.join(""));
  }
}
