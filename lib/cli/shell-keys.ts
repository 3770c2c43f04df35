/**
 * What the interactive shell puts between the terminal and its line editor (a terminal only): the
 * keyboard layer with the keybindings files (keyboard.ts), the full-screen views opened over the
 * shell (shell-views.ts), and the keys the shell takes before the editor sees them — Ctrl-B moves
 * the running command to the background, Ctrl-V takes an image from the clipboard, Up on an empty
 * input while the agent works brings the queued messages back — and pasted image paths, which
 * become `[Image #1]` marks until the input they are in is sent. The image reader loads once the
 * prompt is up.
 */
import { Keyboard } from "./keyboard.ts";
import { loadKeymap, type Keymap } from "./keybindings.ts";
import type { Key } from "./line-editor.ts";
import type { AttachedImage, ImageInput } from "./image-input.ts";
import type { Style } from "./render.ts";
import type { Io } from "./session-io.ts";
import { ShellViews } from "./shell-views.ts";

/** What the keys act on: the shell's state and the running input. */
export interface ShellKeysHost {
  /** The agent works on an input (a question may be waiting too). */
  working(): boolean;
  /** A question waits for its answer. */
  asking(): boolean;
  /** A command of the running input runs: Ctrl-B can move it. */
  callRunning(): boolean;
  /** Ctrl-B: the running commands go on in the background. */
  moveToBackground(): void;
  /** The text in the input now. */
  line(): string;
  /** Up on an empty input while the agent works: the queued messages back in it (false: there were none). */
  recallQueued(): boolean;
  /** A line saying why an image was not attached. */
  warn(line: string): void;
}

export class ShellKeys {
  /** The keybindings files' keys, read once at the start (with what was wrong in them). */
  readonly keymap: Keymap;
  /** Between the terminal and the line editor; null off a terminal. */
  readonly keyboard: Keyboard | null;
  /** The transcript, the session picker and long reports, over the whole terminal. */
  readonly views: ShellViews;
  /** Images pasted or taken from the clipboard, until the input they are in is sent. */
  private images: ImageInput | null = null;
  private readonly cwd: string;

  constructor(
    private readonly io: Io,
    options: { claudeSettings: boolean; cwd: string; style: Style },
    private readonly host: ShellKeysHost,
  ) {
    this.keymap = loadKeymap({ claude: options.claudeSettings, home: io.env.HOME });
    this.keyboard = io.stdin.isTTY && io.stdout.isTTY ? new Keyboard(io.stdin, this.keymap) : null;
    this.views = new ShellViews(io.stdout, this.keyboard, this.keymap, options.style);
    this.cwd = options.cwd;
  }

  /** What the line editor reads: the keyboard layer (as it would the terminal), else the input itself. */
  get input(): Io["stdin"] {
    return (this.keyboard as unknown as Io["stdin"] | null) ?? this.io.stdin;
  }

  /** What the shell draws on: the terminal, held while a view is open. */
  get terminal(): Io["stdout"] {
    return this.views.held.terminal as Io["stdout"];
  }

  /** Starts taking the shell's keys and pastes. */
  start(): void {
    if (!this.keyboard) return;
    this.keyboard.intercept(this.onKey);
    this.keyboard.onPaste = this.onPaste;
    void import("./image-input.ts").then(({ ImageInput }) => (this.images ??= new ImageInput(this.cwd)));
  }

  /** The images whose marks are in the input being sent (and notes on those that were not). */
  takeImages(text: string): Promise<{ images: AttachedImage[]; notes: string[] }> {
    return this.images?.take(text) ?? Promise.resolve({ images: [], notes: [] });
  }

  close(): void {
    this.keyboard?.close();
  }

  private readonly onKey = (_text: string | undefined, key: Key): boolean => {
    const { host } = this;
    if (key.ctrl && key.name === "b" && host.working() && host.callRunning()) {
      host.moveToBackground();
      return true;
    }
    if (key.ctrl && key.name === "v" && !host.asking() && this.images) {
      void this.images.fromClipboard(this.io.env).then((r) => {
        if ("mark" in r) this.keyboard?.type(r.mark);
        else host.warn(r.error);
      });
      return true;
    }
    if (key.name === "up" && !key.ctrl && !key.meta && host.working() && !host.asking() && host.line() === "")
      return host.recallQueued();
    return false;
  };

  /** A pasted path to an image becomes its mark; one that cannot be attached is said, and the paste stays text. */
  private readonly onPaste = (text: string): string | undefined => {
    const attached = this.images?.fromPaste(text);
    if (!attached) return undefined;
    if ("mark" in attached) return attached.mark;
    this.host.warn(attached.error);
    return undefined;
  };
}
