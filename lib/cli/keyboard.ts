/**
 * The keyboard between the terminal and the shell's line editor. Every key passes here first:
 * - the keybindings file's keys are turned into the keys gong does those things with (a chord's
 *   first key waits a second for the next one), and keys it unbound are dropped;
 * - a view that has the whole keyboard (the transcript, a picker) gets every key (`capture`);
 * - the shell may take a key before the editor sees it (`intercept`: Up while the agent works
 *   brings the queued messages back, Ctrl-B moves a command to the background);
 * - a bracketed paste is gathered whole and may be replaced (`onPaste`: an image's path becomes
 *   its `[Image #1]` mark).
 * The line editor reads this object as its input stream; nothing else changes for it.
 */
import { EventEmitter } from "node:events";
import { emitKeypressEvents } from "node:readline";
import { keyEvent, keyId, type Keymap } from "./keybindings.ts";
import type { Key } from "./line-editor.ts";

type TtyIn = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?(raw: boolean): unknown };
/** Takes a key (true) or leaves it to the editor (false). */
export type KeyHandler = (text: string | undefined, key: Key) => boolean;

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";
/** Deno's key parser cuts the marks after three digits: their "~" follows as a key of its own. */
const CUT_MARKS = new Set(["\x1b[200", "\x1b[201"]);
/** How long the first key of a chord waits for the second. */
const CHORD_WAIT_MS = 1000;

export class Keyboard extends EventEmitter {
  readonly isTTY: boolean;
  private captured: KeyHandler | null = null;
  private readonly intercepts: KeyHandler[] = [];
  /** While a paste arrives: its text, put into the input (or replaced) when it ends. */
  private paste: string | null = null;
  private tildeDue = false;
  /** The first keys of a chord typed so far, and the timer that gives up on it. */
  private chord: { keys: string[]; events: [string | undefined, Key][]; timer: ReturnType<typeof setTimeout> } | null =
    null;
  private readonly prefixes: Set<string>;
  /** A paste's text → what goes into the input instead (undefined: the paste as it is). */
  onPaste: (text: string) => string | undefined = () => undefined;

  constructor(
    private readonly input: TtyIn,
    private readonly keymap: Pick<Keymap, "shell">,
  ) {
    super();
    this.isTTY = Boolean(input.isTTY);
    this.prefixes = new Set(
      [...keymap.shell.keys()].flatMap((keys) => {
        const parts = keys.split(" ");
        return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join(" "));
      }),
    );
    emitKeypressEvents(input);
    input.on("keypress", this.onKey);
    input.on("end", this.onEnd);
  }

  setRawMode(raw: boolean): this {
    this.input.setRawMode?.(raw);
    return this;
  }

  resume(): this {
    this.input.resume();
    return this;
  }

  pause(): this {
    this.input.pause();
    return this;
  }

  /** Every key goes to `handler` until it is released (null); the editor sees none of them. */
  capture(handler: KeyHandler | null): void {
    this.captured = handler;
  }

  /** `handler` sees each key before the editor and may take it. */
  intercept(handler: KeyHandler): () => void {
    this.intercepts.push(handler);
    return () => this.intercepts.splice(this.intercepts.indexOf(handler), 1);
  }

  /** Puts `text` into the input at the cursor, as a paste does. */
  type(text: string): void {
    this.deliver(undefined, { name: undefined, sequence: PASTE_START });
    for (const ch of text) this.deliver(ch, { name: ch, sequence: ch });
    this.deliver(undefined, { name: undefined, sequence: PASTE_END });
  }

  /** Stops reading the terminal. */
  close(): void {
    this.input.off("keypress", this.onKey);
    this.input.off("end", this.onEnd);
    if (this.chord) clearTimeout(this.chord.timer);
  }

  private readonly onEnd = () => this.emit("end");

  private readonly onKey = (text: string | undefined, key: Key | undefined) => {
    let k: Key = key ?? { sequence: text, name: text };
    if (this.tildeDue) {
      this.tildeDue = false;
      if (k.sequence === "~") return;
    }
    if (k.sequence !== undefined && CUT_MARKS.has(k.sequence)) {
      this.tildeDue = true;
      k = { ...k, sequence: `${k.sequence}~` };
    }
    if (k.sequence === PASTE_START) {
      this.paste = "";
      return;
    }
    if (this.paste !== null) return this.onPasteKey(text, k);
    this.route(text, k);
  };

  private onPasteKey(text: string | undefined, key: Key): void {
    if (key.sequence !== PASTE_END) {
      this.paste += key.sequence ?? text ?? "";
      return;
    }
    const pasted = this.paste!;
    this.paste = null;
    this.type(this.onPaste(pasted) ?? pasted);
  }

  /** A key typed (not pasted): the view that has the keyboard, the keybindings, then the shell and the editor. */
  private route(text: string | undefined, key: Key): void {
    if (this.captured) {
      this.captured(text, key);
      return;
    }
    const id = keyId(key, text);
    if (this.chord) {
      clearTimeout(this.chord.timer);
      const keys = [...this.chord.keys, id ?? ""].join(" ");
      const waiting = this.chord;
      this.chord = null;
      if (this.keymap.shell.has(keys)) return this.bound(keys);
      if (this.prefixes.has(keys)) return this.wait(keys.split(" "), [...waiting.events, [text, key]]);
      // Not a chord after all: its keys go on as typed.
      for (const [t, k] of waiting.events) this.pass(t, k);
    }
    if (id !== null && this.prefixes.has(id)) return this.wait([id], [[text, key]]);
    if (id !== null && this.keymap.shell.has(id)) return this.bound(id);
    this.pass(text, key);
  }

  private wait(keys: string[], events: [string | undefined, Key][]): void {
    const timer = setTimeout(() => {
      this.chord = null;
      for (const [t, k] of events) this.pass(t, k);
    }, CHORD_WAIT_MS);
    this.chord = { keys, events, timer };
  }

  /** A key the file bound: the key it stands for (none: unbound). */
  private bound(keys: string): void {
    const to = this.keymap.shell.get(keys);
    if (to === null || to === undefined) return;
    const { text, key } = keyEvent(to);
    this.pass(text, key);
  }

  /** The shell's intercepts first, then the editor. */
  private pass(text: string | undefined, key: Key): void {
    for (const handler of [...this.intercepts]) if (handler(text, key)) return;
    this.deliver(text, key);
  }

  private deliver(text: string | undefined, key: Key): void {
    this.emit("keypress", text, key);
  }
}
