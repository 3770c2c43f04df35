/**
 * The shell's full-screen views — the transcript (Ctrl-O), the session picker (/resume), long
 * reports — opened over the shell: the keyboard goes to the view and what the shell writes
 * meanwhile (the running input's output, the spinner) waits, then follows once the view closes.
 * Each view loads when it is first opened.
 */
import { Held } from "./full-screen.ts";
import type { Keyboard } from "./keyboard.ts";
import type { Keymap } from "./keybindings.ts";
import type { PagerHost } from "./pager.ts";
import type { Style } from "./render.ts";

type Terminal = NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };

export class ShellViews {
  /** The terminal the shell writes to: held while a view is open. */
  readonly held: Held;
  private open = false;

  constructor(
    private readonly terminal: Terminal,
    private readonly keyboard: Keyboard | null,
    private readonly keymap: Keymap,
    private readonly style: Style,
  ) {
    this.held = new Held(terminal);
  }

  get rows(): number {
    return this.terminal.rows || 24;
  }

  /** Views need a terminal and its keys. */
  get available(): boolean {
    return this.keyboard !== null && Boolean(this.terminal.isTTY);
  }

  /** Lines to read through, scrollable and searchable, until the user leaves. */
  async page(title: string, lines: readonly string[], at: "top" | "end" = "top"): Promise<void> {
    const { page } = await import("./pager.ts");
    await this.show((host) => page(host, { title, lines, keys: this.keymap.transcript, style: this.style, at }));
  }

  /** The session picker: the chosen session's file, or null. */
  async pickSession(cwd: string, current?: string): Promise<string | null> {
    const { pickSession } = await import("./session-picker.ts");
    return this.show((host) => pickSession(host, { cwd, current, style: this.style }));
  }

  private async show<T>(view: (host: PagerHost) => Promise<T>): Promise<T | null> {
    const keyboard = this.keyboard;
    if (!keyboard || this.open) return null;
    this.open = true;
    this.held.hold();
    try {
      return await view({ capture: (handler) => keyboard.capture(handler), terminal: this.terminal });
    } finally {
      this.open = false;
      this.held.release();
    }
  }
}
