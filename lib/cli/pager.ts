/**
 * Lines shown over the whole terminal, scrollable and searchable — the transcript view (Ctrl-O),
 * and any text too long for the shell's screen. Keys are the transcript's (keybindings.ts):
 * ↑↓ j k a line, Space b a page, Ctrl-D Ctrl-U half a page, g G the ends, / searches (Enter
 * keeps the search, Esc drops it), n N the next and previous match, q Esc Ctrl-O back.
 */
import { FullScreen } from "./full-screen.ts";
import type { KeyHandler } from "./keyboard.ts";
import { keyId, type TranscriptAction } from "./keybindings.ts";
import type { Key } from "./line-editor.ts";
import type { Style } from "./render.ts";
import { cutToWidth, fitToWidth, fitParts } from "./text-width.ts";

const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

export interface PagerOptions {
  /** What the view is, at the start of its status row. */
  title: string;
  /** The text, each line possibly styled; rows are fitted to the width. */
  lines: readonly string[];
  keys: ReadonlyMap<string, TranscriptAction>;
  style: Style;
  /** Open at the end (the transcript: the latest first) or at the top. */
  at?: "top" | "end";
}

/** What the pager needs of the keyboard and the terminal. */
export interface PagerHost {
  capture(handler: KeyHandler | null): void;
  readonly terminal: NodeJS.WritableStream & { columns?: number; rows?: number; isTTY?: boolean };
}

/** Shows the pager until the user leaves it. */
export function page(host: PagerHost, options: PagerOptions): Promise<void> {
  return new Promise((resolve) => {
    const pager = new Pager(new FullScreen(host.terminal), options, () => {
      host.capture(null);
      (host.terminal as NodeJS.EventEmitter).off?.("resize", onResize);
      resolve();
    });
    const onResize = () => pager.draw();
    (host.terminal as NodeJS.EventEmitter).on?.("resize", onResize);
    host.capture((text, key) => {
      pager.key(text, key);
      return true;
    });
    pager.draw();
  });
}

export class Pager {
  private rows: string[] = [];
  private plain: string[] = [];
  private width = 0;
  private top = 0;
  private query = "";
  /** The row of the match found last: n and N go on from it. */
  private match = -1;
  /** While the search is typed: its text so far. */
  private typing: string | null = null;
  private note = "";

  constructor(
    private readonly screen: FullScreen,
    private readonly options: PagerOptions,
    private readonly done: () => void,
  ) {}

  private get height(): number {
    return Math.max(1, this.screen.rows - 1);
  }

  draw(): void {
    this.layout();
    const { style: s } = this.options;
    const shown = this.rows.slice(this.top, this.top + this.height).map((row, i) => this.highlight(row, this.top + i));
    while (shown.length < this.height) shown.push(s.dim("~"));
    const width = this.screen.columns;
    if (this.typing !== null) {
      const line = cutToWidth(`/${this.typing}`, width - 1);
      return this.screen.draw([...shown, line], { row: this.height, col: line.length });
    }
    const last = Math.min(this.rows.length, this.top + this.height);
    const parts = [
      { text: this.options.title, rank: 1 },
      { text: `${this.rows.length ? this.top + 1 : 0}-${last} of ${this.rows.length}`, rank: 3 },
      ...(this.note ? [{ text: this.note, rank: 4 }] : []),
      // No short form: the search's keys and query stay whole while the title and "/ search" give way.
      ...(this.query ? [{ text: `n N: next "${this.query}"`, rank: 2 }] : []),
      { text: "/ search", rank: 1 },
      { text: "q back", rank: 3 },
    ];
    this.screen.draw([...shown, s.dim(fitParts(parts, width - 1))]);
  }

  key(text: string | undefined, key: Key): void {
    if (this.typing !== null) return this.searchKey(text, key);
    const action = this.options.keys.get(keyId(key, text) ?? "");
    this.note = "";
    const page = this.height;
    const moves: Partial<Record<TranscriptAction, number>> = {
      "scroll:lineUp": -1,
      "scroll:lineDown": 1,
      "scroll:halfPageUp": -Math.ceil(page / 2),
      "scroll:halfPageDown": Math.ceil(page / 2),
      "scroll:fullPageUp": -page,
      "scroll:fullPageDown": page,
      "scroll:top": -Infinity,
      "scroll:bottom": Infinity,
    };
    if (action === "transcript:exit") {
      this.screen.close();
      return this.done();
    }
    if (action === "transcript:search") this.typing = "";
    else if (action === "transcript:searchNext") this.find(1);
    else if (action === "transcript:searchPrevious") this.find(-1);
    else if (action && moves[action] !== undefined) this.scroll(moves[action]!);
    else return;
    this.draw();
  }

  private searchKey(text: string | undefined, key: Key): void {
    if (key.name === "escape" || (key.ctrl && key.name === "c")) this.typing = null;
    else if (key.name === "return" || key.name === "enter") {
      this.query = this.typing!;
      this.typing = null;
      this.match = -1;
      if (this.query) this.find(1, true);
    } else if (key.name === "backspace") this.typing = this.typing!.slice(0, -1);
    else if (text && !key.ctrl && !key.meta && !/[\x00-\x1f\x7f]/.test(text)) this.typing += text;
    this.draw();
  }

  /** Scrolls to the next (1) or previous (-1) row holding the query; `here` counts the top row itself. */
  private find(direction: 1 | -1, here = false): void {
    if (!this.query) return void (this.note = "/ to search first");
    const needle = this.query.toLowerCase();
    const count = this.plain.length;
    const from = here || this.match < 0 ? this.top : this.match;
    for (let step = here ? 0 : 1; step <= count; step++) {
      const row = (((from + direction * step) % count) + count) % count;
      if (this.plain[row].toLowerCase().includes(needle)) {
        this.match = row;
        this.top = Math.min(row, Math.max(0, count - this.height));
        return;
      }
    }
    this.note = `no "${this.query}"`;
  }

  private scroll(by: number): void {
    const max = Math.max(0, this.rows.length - this.height);
    this.top = Math.max(0, Math.min(max, by === Infinity ? max : by === -Infinity ? 0 : this.top + by));
  }

  /** Rows at the terminal's width (again after a resize, keeping the top row's place in the text). */
  private layout(): void {
    const width = this.screen.columns;
    if (width === this.width) return;
    const first = this.width === 0;
    const share = this.rows.length ? this.top / this.rows.length : 0;
    this.width = width;
    this.rows = this.options.lines.flatMap((line) => fitToWidth(line, Math.max(10, width - 1)));
    this.plain = this.rows.map((r) => r.replace(ANSI, ""));
    this.match = -1;
    if (first && this.options.at === "end") this.scroll(Infinity);
    else this.top = Math.round(share * this.rows.length);
    this.scroll(0);
  }

  /** A row holding the query shows it in reverse video (over the row's plain text). */
  private highlight(row: string, index: number): string {
    if (!this.query) return row;
    const plain = this.plain[index];
    const at = plain.toLowerCase().indexOf(this.query.toLowerCase());
    if (at < 0) return row;
    const end = at + this.query.length;
    return `${plain.slice(0, at)}\x1b[7m${plain.slice(at, end)}\x1b[27m${plain.slice(end)}`;
  }
}
