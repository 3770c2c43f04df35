/**
 * The shell's line editor on a terminal: the input drawn inline under the output (no alternate
 * screen, no mouse capture, so the scrollback stays the terminal's), one input over several lines
 * when it needs them, broken at spaces. The editor lays out its rows (`view`); the screen draws
 * them as a part of its live region and writes only what a key changed. Enter sends; Alt+Enter, or a backslash before Enter, starts a new line. A
 * paste arrives between the terminal's bracketed-paste marks and goes into the input as it is,
 * newlines included, waiting for Enter. Tab completes a slash command or an @path (several
 * candidates are listed under the input), Up/Down walk the history, Ctrl-R searches it.
 *
 * Off a terminal (stdin or stdout not a TTY) `createLineInput` falls back to node:readline reading
 * plain lines, and nothing here writes an escape sequence.
 */
import { EventEmitter } from "node:events";
import { writeSync } from "node:fs";
import process from "node:process";
import { createInterface, emitKeypressEvents, type Interface } from "node:readline";
import { commonPrefix, type Completion, type CompletionItem } from "./completion.ts";
import { atExit } from "../env/process-trees.ts";
import { layoutInput, layoutMenu } from "./line-layout.ts";
import type { View } from "./screen.ts";
import { cutToWidth } from "./text-width.ts";

export interface Key {
  name?: string;
  sequence?: string;
  code?: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
}

/** Takes the keys while it is set (a menu): true when the key was its. */
export type KeyHandler = (text: string | undefined, key: Key) => boolean;

/** What the shell needs of its input, on a terminal or off one. */
export interface LineInput {
  /** The text being typed (or, while searching the history, the match shown). */
  readonly line: string;
  /** The rows of the last line sent, as they were drawn (the shell keeps them above the output or not). */
  readonly submitted: string[];
  setPrompt(prompt: string): void;
  /** Shows the prompt (off a terminal: writes it); the cursor goes to the start unless `preserveCursor`. */
  prompt(preserveCursor?: boolean): void;
  /** Empties the typed text. */
  clearInput(): void;
  /** Puts `text` in the input (the cursor at its end), as if typed. */
  replaceInput(text: string): void;
  /** The input's rows at `columns` and its cursor (none off a terminal). */
  view(columns: number): View;
  /** While `handler` is set, keys go to it instead of the input (Ctrl-C still interrupts). */
  intercept(handler: KeyHandler | null): void;
  close(): void;
  on(event: "line", listener: (line: string) => void): this;
  on(event: "SIGINT" | "close", listener: () => void): this;
  on(event: "keypress", listener: (text: string | undefined, key: Key) => void): this;
  off(event: "keypress", listener: (text: string | undefined, key: Key) => void): this;
}

type TtyIn = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?(raw: boolean): unknown };
type TtyOut = NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number; fd?: number };

export interface LineInputOptions {
  input: TtyIn;
  /** The terminal: its size, the mode switches, and (off a terminal) the prompt. */
  terminal: TtyOut;
  prompt: string;
  /** Earlier inputs, most recent first. */
  history: string[];
  historySize: number;
  complete?: (line: string, cursor: number) => Completion | null;
  /** The input changed: it is to be drawn again. */
  changed?: () => void;
  /** Before Ctrl-Z hands the terminal to the shell's job control: the drawing is taken off the screen. */
  release?: () => void;
}

export function createLineInput(options: LineInputOptions): LineInput {
  if (options.input.isTTY && options.terminal.isTTY) return new LineEditor(options);
  return new PlainInput(options);
}

const PASTE_ON = "\x1b[?2004h";
const SHOW_CURSOR = "\x1b[?25h";
const PASTE_OFF = "\x1b[?2004l";
const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";
/** Deno's key parser cuts the marks after three digits: their "~" follows as a key of its own. */
const CUT_MARKS = new Set(["\x1b[200", "\x1b[201"]);
/** Shift+Enter as terminals with extended key reporting send it. */
const SHIFT_ENTER = new Set(["\x1b[13;2u", "\x1b[27;2;13~"]);
/** Rows the completion list may take. */
const MENU_ROWS = 8;

/** Pasted text without carriage returns and terminal escapes; tabs and newlines stay. */
function cleanPaste(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(/\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b./g, "")
    .replace(/[\x00-\x08\x0b-\x1f\x7f]/g, "");
}

/** A paste of more lines than this is shown in the input as one mark, "[pasted 200 lines]". */
const PASTE_MARK_LINES = 10;

interface Search {
  query: string;
  /** The history entry shown, or -1 when nothing matches. */
  match: number;
  /** The input before the search, restored when it is cancelled. */
  line: string;
  cursor: number;
}

class LineEditor extends EventEmitter implements LineInput {
  private text = "";
  private cursor = 0;
  private promptText: string;
  private readonly history: string[];
  /** The history entry shown (-1: the input being typed, kept in `draft`). */
  private historyIndex = -1;
  private draft = "";
  private paste: string | null = null;
  /** Big pastes shown as marks in the input, by mark: the text each stands for, put back when the line is sent. */
  private pastes = new Map<string, string>();
  /** A paste mark came cut short: the "~" that ends it is not typed text. */
  private tildeDue = false;
  private search: Search | null = null;
  private menu: string[] = [];
  /** The slash commands matching what is typed (`/mo`), shown as it is typed; Up/Down select, Tab or Enter take. */
  private slash: { items: CompletionItem[]; selected: number } | null = null;
  /** The first text row shown, when the input is taller than the terminal. */
  private viewTop = 0;
  private lastSubmitted: string[] = [];
  /** Counts drawings, to tell whether a key redrew the input. */
  private renders = 0;
  private interceptor: KeyHandler | null = null;
  private closed = false;
  /** Takes the terminal's restore off the exit hooks (see close()). */
  private readonly offExit: () => void;

  constructor(private readonly options: LineInputOptions) {
    super();
    this.promptText = options.prompt;
    this.history = options.history.slice(0, options.historySize);
    const { input, terminal } = options;
    emitKeypressEvents(input);
    input.on("keypress", this.onKeypress);
    input.on("end", this.onEnd);
    this.offExit = atExit(this.onExit);
    if (process.platform !== "win32") process.on("SIGCONT", this.onContinue);
    input.setRawMode?.(true);
    input.resume();
    terminal.write(PASTE_ON);
  }

  get line(): string {
    const search = this.search;
    return search ? (search.match >= 0 ? this.history[search.match] : "") : this.text;
  }

  get submitted(): string[] {
    return this.lastSubmitted;
  }

  intercept(handler: KeyHandler | null): void {
    this.interceptor = handler;
  }

  setPrompt(prompt: string): void {
    this.promptText = prompt;
  }

  prompt(preserveCursor = false): void {
    if (this.closed) return;
    if (!preserveCursor) this.cursor = 0;
    this.render();
  }

  replaceInput(text: string): void {
    this.search = null;
    this.menu = [];
    this.setText(text);
  }

  clearInput(): void {
    this.search = null;
    this.menu = [];
    this.setText("");
    this.render();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    const { input, terminal } = this.options;
    input.off("keypress", this.onKeypress);
    input.off("end", this.onEnd);
    this.offExit();
    process.off("SIGCONT", this.onContinue);
    terminal.write(PASTE_OFF);
    input.setRawMode?.(false);
    input.pause();
    this.emit("close");
  }

  private readonly onEnd = () => this.close();

  /** However gong ends, the terminal is not left pasting in brackets, nor without its cursor. */
  private readonly onExit = () => {
    const { terminal } = this.options;
    try {
      if (typeof terminal.fd === "number") writeSync(terminal.fd, `${PASTE_OFF}${SHOW_CURSOR}`);
      else terminal.write(`${PASTE_OFF}${SHOW_CURSOR}`);
    } catch {
      // The terminal is gone.
    }
  };

  /** Back from Ctrl-Z: the terminal is ours again. */
  private readonly onContinue = () => {
    if (this.closed) return;
    this.options.input.setRawMode?.(true);
    this.options.terminal.write(PASTE_ON);
    this.render();
  };

  private readonly onKeypress = (text: string | undefined, key: Key | undefined) => {
    if (this.closed) return;
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
    if (this.paste !== null) {
      if (k.sequence !== PASTE_END) {
        this.paste += k.sequence ?? text ?? "";
        return;
      }
      const pasted = cleanPaste(this.paste);
      this.paste = null;
      if (this.interceptor) return void this.interceptor(pasted, { name: "paste", sequence: pasted });
      this.menu = [];
      if (this.search) this.endSearch(true);
      this.insert(this.markPaste(pasted));
      this.emit("keypress", undefined, { name: "paste" });
      return;
    }
    // A menu takes the keys while it is up; Ctrl-C still interrupts.
    if (this.interceptor && !(k.ctrl && k.name === "c")) return void this.interceptor(text, k);
    // A key the history search keeps (Esc cancelling it, say) is no key of the shell's.
    const own = this.search ? !this.onSearchKey(text, k) : (this.onKey(text, k), false);
    if (!this.closed) this.emit("keypress", own ? undefined : text, own ? { name: "search" } : k);
  };

  private onKey(text: string | undefined, key: Key): void {
    if (this.slash && this.onSlashMenuKey(key)) return;
    const before = this.text;
    this.onEditKey(text, key);
    // A line recalled from the history opens no menu: Up and Down go on through the history.
    const recalled = key.name === "up" || key.name === "down";
    if ((this.text !== before && !recalled) || this.slash) this.updateSlashMenu();
  }

  /** A key the slash menu takes: true when it was its. */
  private onSlashMenuKey(key: Key): boolean {
    const menu = this.slash!;
    const { name, ctrl, meta } = key;
    if ((name === "up" || name === "down") && !ctrl && !meta) {
      menu.selected = (menu.selected + (name === "up" ? -1 : 1) + menu.items.length) % menu.items.length;
      this.render();
      return true;
    }
    if (name === "escape") {
      this.slash = null;
      this.render();
      return true;
    }
    const value = menu.items[menu.selected].value;
    if (name === "tab" && !key.shift) {
      this.slash = null;
      this.setText(value);
      this.render();
      return true;
    }
    // Enter runs the selected command.
    if (name === "return" || name === "enter") {
      this.slash = null;
      this.setText(value.trimEnd());
    }
    return false;
  }

  /** Opens, narrows or closes the slash menu after an edit: open while the input is one `/word` being typed. */
  private updateSlashMenu(): void {
    const was = this.slash;
    const typing = !this.search && /^\/\S*$/.test(this.text) && this.cursor === this.text.length;
    const items = typing ? (this.options.complete?.(this.text, this.cursor)?.items ?? []) : [];
    this.slash = items.length > 0 ? { items, selected: Math.min(was?.selected ?? 0, items.length - 1) } : null;
    if (this.slash || was) this.render();
  }

  private onEditKey(text: string | undefined, key: Key): void {
    const drawn = this.renders;
    const listed = this.menu.length > 0 && key.name !== "tab";
    this.menu = listed ? [] : this.menu;
    this.editKey(text, key);
    // The completion list goes away with any other key, Esc too.
    if (listed && this.renders === drawn && !this.closed) this.render();
  }

  private editKey(text: string | undefined, key: Key): void {
    const { name, ctrl, meta } = key;
    if (ctrl && name === "c") return void this.emit("SIGINT");
    if (ctrl && name === "d") {
      if (this.text === "") return this.close();
      return this.deleteRight();
    }
    if (ctrl && name === "z") return this.suspend();
    if ((name === "return" && meta) || SHIFT_ENTER.has(key.sequence ?? "")) return this.insert("\n");
    if (name === "return") {
      if (this.cursor > 0 && this.text[this.cursor - 1] === "\\") {
        this.text = `${this.text.slice(0, this.cursor - 1)}\n${this.text.slice(this.cursor)}`;
        return this.render();
      }
      return this.submit();
    }
    if (name === "enter") return this.submit();
    if (name === "tab" && !key.shift && !ctrl && !meta) return this.complete();
    if (ctrl && name === "r") return this.startSearch();
    if (name === "backspace" || (ctrl && name === "h")) return meta || ctrl ? this.deleteWordLeft() : this.deleteLeft();
    if (ctrl && name === "w") return this.deleteWordLeft();
    if (name === "delete") return this.deleteRight();
    if (meta && name === "d") return this.deleteWordRight();
    if (name === "left" || (ctrl && name === "b"))
      return this.moveTo(ctrl && name === "left" ? this.wordLeft() : this.cursor - this.charBefore());
    if (name === "right" || (ctrl && name === "f"))
      return this.moveTo(ctrl && name === "right" ? this.wordRight() : this.cursor + this.charAfter());
    if (meta && name === "b") return this.moveTo(this.wordLeft());
    if (meta && name === "f") return this.moveTo(this.wordRight());
    if (name === "home" || (ctrl && name === "a")) return this.moveTo(this.lineStart());
    if (name === "end" || (ctrl && name === "e")) return this.moveTo(this.lineEnd());
    // At a line's start or end, Ctrl-U and Ctrl-K take the newline, so repeating them empties a multi-line input.
    if (ctrl && name === "u")
      return this.cut(this.lineStart() === this.cursor ? Math.max(0, this.cursor - 1) : this.lineStart(), this.cursor);
    if (ctrl && name === "k")
      return this.cut(
        this.cursor,
        this.lineEnd() === this.cursor ? Math.min(this.text.length, this.cursor + 1) : this.lineEnd(),
      );
    if (name === "up" && !ctrl && !meta) return this.lineStart() > 0 ? this.moveLine(-1) : this.historyStep(1);
    if (name === "down" && !ctrl && !meta)
      return this.lineEnd() < this.text.length ? this.moveLine(1) : this.historyStep(-1);
    if (ctrl || meta || !text || text.startsWith("\x1b")) return;
    const typed = text.replace(/[\x00-\x08\x0a-\x1f\x7f]/g, "");
    if (typed) this.insert(typed);
  }

  // ---- editing

  private setText(text: string, cursor = text.length): void {
    this.text = text;
    this.cursor = cursor;
  }

  private insert(s: string): void {
    this.setText(this.text.slice(0, this.cursor) + s + this.text.slice(this.cursor), this.cursor + s.length);
    this.render();
  }

  private cut(from: number, to: number): void {
    if (to <= from) return;
    this.setText(this.text.slice(0, from) + this.text.slice(to), from);
    this.render();
  }

  private deleteLeft(): void {
    this.cut(this.cursor - this.charBefore(), this.cursor);
  }

  private deleteRight(): void {
    this.cut(this.cursor, this.cursor + this.charAfter());
  }

  private deleteWordLeft(): void {
    this.cut(this.wordLeft(), this.cursor);
  }

  private deleteWordRight(): void {
    this.cut(this.cursor, this.wordRight());
  }

  private moveTo(position: number): void {
    this.cursor = Math.max(0, Math.min(this.text.length, position));
    this.render();
  }

  /** UTF-16 units of the character before the cursor (2 for one outside the BMP). */
  private charBefore(): number {
    const c = this.text.charCodeAt(this.cursor - 1);
    return this.cursor >= 2 && c >= 0xdc00 && c <= 0xdfff ? 2 : this.cursor > 0 ? 1 : 0;
  }

  private charAfter(): number {
    if (this.cursor >= this.text.length) return 0;
    const c = this.text.charCodeAt(this.cursor);
    return c >= 0xd800 && c <= 0xdbff ? 2 : 1;
  }

  private wordLeft(): number {
    const before = this.text.slice(0, this.cursor);
    const match = /\S+\s*$/.exec(before);
    return match ? match.index : before.replace(/\s+$/, "").length;
  }

  private wordRight(): number {
    const match = /^\s*\S+/.exec(this.text.slice(this.cursor));
    return this.cursor + (match ? match[0].length : this.text.length - this.cursor);
  }

  /** Where the cursor's line (of a multi-line input) starts and ends. */
  private lineStart(at = this.cursor): number {
    return this.text.lastIndexOf("\n", at - 1) + 1;
  }

  private lineEnd(at = this.cursor): number {
    const end = this.text.indexOf("\n", at);
    return end === -1 ? this.text.length : end;
  }

  /** Up or down one line of a multi-line input, keeping the column where the line allows. */
  private moveLine(direction: 1 | -1): void {
    const column = this.cursor - this.lineStart();
    const target = direction < 0 ? this.lineStart(this.lineStart() - 1) : this.lineEnd() + 1;
    this.moveTo(Math.min(target + column, this.lineEnd(target)));
  }

  private historyStep(older: 1 | -1): void {
    const next = this.historyIndex + older;
    if (next < -1 || next >= this.history.length) return;
    if (this.historyIndex === -1) this.draft = this.text;
    this.historyIndex = next;
    this.setText(next === -1 ? this.draft : this.history[next]);
    this.render();
  }

  /** A big paste's mark (the text kept aside until the line is sent); a small one as it is. */
  private markPaste(text: string): string {
    const lines = text.split("\n").length;
    if (lines <= PASTE_MARK_LINES) return text;
    let mark = `[pasted ${lines} lines]`;
    for (let n = 2; this.pastes.has(mark); n++) mark = `[pasted ${lines} lines #${n}]`;
    this.pastes.set(mark, text);
    return mark;
  }

  /** The typed line with each paste mark still in it replaced by its text. */
  private unmark(line: string): string {
    let whole = line;
    for (const [mark, text] of this.pastes) whole = whole.split(mark).join(text);
    this.pastes.clear();
    return whole;
  }

  private submit(): void {
    const typed = this.text;
    this.menu = [];
    this.slash = null;
    this.lastSubmitted = layoutInput(this.promptText, typed, typed.length, this.columns).rows;
    this.setText("");
    const line = this.unmark(typed);
    this.historyIndex = -1;
    this.draft = "";
    this.viewTop = 0;
    if (line.trim() && line !== this.history[0]) {
      this.history.unshift(line);
      if (this.history.length > this.options.historySize) this.history.pop();
    }
    this.emit("line", line);
    this.render();
  }

  private complete(): void {
    const found = this.options.complete?.(this.text, this.cursor);
    this.menu = [];
    if (!found || found.items.length === 0) return this.render();
    const { start, end, items } = found;
    const common = items.length === 1 ? items[0].value : commonPrefix(items.map((i) => i.value));
    if (common.length > end - start || items.length === 1)
      this.setText(this.text.slice(0, start) + common + this.text.slice(end), start + common.length);
    if (items.length > 1) this.menu = items.map((i) => i.label);
    this.render();
  }

  /** Ctrl-Z: the shell's job control takes the terminal until `fg`. */
  private suspend(): void {
    if (process.platform === "win32") return;
    this.options.release?.();
    this.options.terminal.write(PASTE_OFF);
    this.options.input.setRawMode?.(false);
    process.kill(process.pid, "SIGTSTP");
  }

  // ---- history search (Ctrl-R)

  private startSearch(): void {
    this.search = { query: "", match: -1, line: this.text, cursor: this.cursor };
    this.render();
  }

  /** True when the key ends the search and goes on to the input. */
  private onSearchKey(text: string | undefined, key: Key): boolean {
    const search = this.search!;
    const { name, ctrl, meta } = key;
    if (ctrl && name === "r") this.findMatch(search.match + 1, 1, true);
    else if (ctrl && name === "s") this.findMatch(search.match - 1, -1, true);
    else if (name === "escape" || (ctrl && name === "g")) this.endSearch(false);
    else if (ctrl && name === "c") {
      this.endSearch(false);
      this.emit("SIGINT");
    } else if (name === "backspace") {
      search.query = search.query.slice(0, -1);
      this.findMatch(0, 1);
    } else if (name === "return" || name === "enter") this.endSearch(true);
    else if (!ctrl && !meta && text && !/[\x00-\x1f\x7f]/.test(text)) {
      search.query += text;
      // A longer query may still match the entry shown.
      this.findMatch(Math.max(0, search.match), 1);
    } else {
      // Any other key takes the match and does what it does in the input.
      this.endSearch(true);
      this.onKey(text, key);
      return true;
    }
    return false;
  }

  /**
   * The nearest entry from `from` on (towards older with 1) holding the query, ignoring case;
   * `step`: one other than the entry shown.
   */
  private findMatch(from: number, direction: 1 | -1, step = false): void {
    const search = this.search!;
    const query = search.query.toLowerCase();
    const shown = search.match >= 0 ? this.history[search.match] : undefined;
    for (let i = from; i >= 0 && i < this.history.length; i += direction) {
      if (query && this.history[i].toLowerCase().includes(query) && !(step && this.history[i] === shown)) {
        search.match = i;
        return this.render();
      }
    }
    // Nothing (further) matches: a longer query shows no match, a repeated Ctrl-R keeps its match.
    if (from === 0 || from === Math.max(0, search.match)) search.match = -1;
    this.render();
  }

  private endSearch(accept: boolean): void {
    const search = this.search!;
    this.search = null;
    if (accept && search.match >= 0) {
      this.historyIndex = -1;
      this.setText(this.history[search.match]);
    } else this.setText(search.line, search.cursor);
    this.render();
  }

  // ---- drawing

  private get columns(): number {
    return Math.max(10, this.options.terminal.columns || 80);
  }

  /** The input changed: the screen draws it again. */
  private render(): void {
    if (this.closed) return;
    this.renders++;
    this.options.changed?.();
  }

  /**
   * The prompt and text broken into rows at `columns`, the completion list under them, and the
   * cursor; an input taller than the terminal shows as a window that follows the cursor.
   */
  view(columns: number): View {
    const width = Math.max(10, columns);
    const search = this.search;
    let prompt = this.promptText;
    let text = this.text;
    let cursor = this.cursor;
    if (search) {
      const match = search.match >= 0 ? this.history[search.match] : "";
      prompt = `(reverse-i-search)'${search.query}'${search.match < 0 && search.query ? " (no match)" : ""}: `;
      text = match;
      cursor = Math.max(0, match.toLowerCase().indexOf(search.query.toLowerCase()));
    }
    const layout = layoutInput(prompt, text, cursor, width);
    const screenRows = Math.max(4, this.options.terminal.rows || 24);
    // Room is left for the status line and a live row or two.
    const menuRows = Math.min(MENU_ROWS, screenRows - 4);
    const menu = this.slash ? slashMenuRows(this.slash, width, menuRows) : layoutMenu(this.menu, width, menuRows);
    const room = Math.max(1, screenRows - 3 - menu.length);
    if (layout.cursorRow < this.viewTop) this.viewTop = layout.cursorRow;
    if (layout.cursorRow >= this.viewTop + room) this.viewTop = layout.cursorRow - room + 1;
    this.viewTop = Math.max(0, Math.min(this.viewTop, layout.rows.length - room));
    return {
      rows: [...layout.rows.slice(this.viewTop, this.viewTop + room), ...menu],
      cursor: { row: layout.cursorRow - this.viewTop, col: layout.cursorCol },
    };
  }
}

/** The slash menu's rows: a window of at most `maxRows` around the selected command, marked "›". */
function slashMenuRows(menu: { items: CompletionItem[]; selected: number }, width: number, maxRows: number): string[] {
  const rows = Math.max(1, maxRows);
  const top = Math.max(0, Math.min(menu.selected - rows + 1, menu.items.length - rows));
  return menu.items
    .slice(Math.max(0, top), Math.max(0, top) + rows)
    .map((item, i) => cutToWidth(`${i + Math.max(0, top) === menu.selected ? "›" : " "} ${item.label}`, width - 1));
}

/** Off a terminal: plain lines through node:readline, no escape sequences. */
class PlainInput extends EventEmitter implements LineInput {
  private readonly rl: Interface;
  readonly submitted: string[] = [];

  constructor(options: LineInputOptions) {
    super();
    this.rl = createInterface({
      input: options.input,
      output: options.terminal,
      terminal: false,
      prompt: options.prompt,
    });
    this.rl.on("line", (line) => this.emit("line", line));
    this.rl.on("SIGINT", () => this.emit("SIGINT"));
    this.rl.on("close", () => this.emit("close"));
  }

  get line(): string {
    return this.rl.line;
  }

  setPrompt(prompt: string): void {
    this.rl.setPrompt(prompt);
  }

  prompt(preserveCursor?: boolean): void {
    this.rl.prompt(preserveCursor);
  }

  view(): View {
    return { rows: [] };
  }

  intercept(): void {}

  clearInput(): void {}

  replaceInput(): void {}

  close(): void {
    this.rl.close();
  }
}
