/**
 * A menu of choices drawn inline in the shell: the approval question, /model, and anything else
 * that asks the user to pick one thing. Up/Down (Home/End, PgUp/PgDn) move, Enter chooses, a single
 * key chooses at once — an item's own key, or its number in a numbered menu — and Esc cancels. An
 * item may carry a text field ("No — why?"): choosing it opens the field on its row, typed keys go
 * there, Enter returns the text (empty is fine), Esc closes the field. A filtering menu narrows
 * its items as the user types (single keys then go to the filter, and only arrows select).
 *
 * The menu holds its state and lays out its rows; the host routes keys to `handle` and puts
 * `view(width)` on screen (lib/cli/interactive.ts: `choose`).
 */
import type { Key } from "./line-editor.ts";
import type { Style } from "./render.ts";
import { fitParts, fitToWidth, type LinePart, textWidth } from "./text-width.ts";

export interface MenuItem<T> {
  value: T;
  label: string;
  /** Dim text after the label (a model's context size, the file a rule is saved to). */
  detail?: string;
  /** A key that chooses the item at once ("y", "n"); a numbered menu also takes the item's number. */
  key?: string;
  /** Choosing the item opens a text field on its row, this text standing in it while it is empty. */
  input?: string;
}

export interface MenuOptions<T> {
  items: readonly MenuItem<T>[];
  /** Rows above the items (the question, what it is about), styled by the caller. */
  title?: readonly string[];
  /** The item selected at first. */
  selected?: number;
  /** Items numbered, their digit choosing them: by default when there are at most 9 and no filter. */
  numbered?: boolean;
  /** Typing narrows the items (by label and detail): the words shown before the typed text. */
  filter?: string;
  /** What the typed text is looked for in, per item (its label and detail by default). */
  searchText?: (item: MenuItem<T>) => string;
  /** Item rows shown at once; the list scrolls to keep the selected one in view (10 by default). */
  maxItems?: number;
  /** Rows shown under the items for the selected one (a session's first lines, say). */
  preview?: (item: MenuItem<T>) => readonly string[];
  /** What Esc does, as the hint row says it ("cancel" by default). */
  escape?: string;
}

export interface MenuChoice<T> {
  value: T;
  item: MenuItem<T>;
  /** What was typed in the item's text field. */
  text?: string;
}

/** What a key did: the menu is done (chose, cancelled), its rows changed, or it did not take the key. */
export type MenuOutcome<T> = { chose: MenuChoice<T> } | { cancelled: true } | "changed" | "ignored";

/** The rows to draw, and where the cursor stands while a text field or the filter takes keys. */
export interface MenuView {
  rows: string[];
  cursor?: { row: number; col: number };
}

const PAGE = 5;

export class Menu<T> {
  private selected: number;
  private top = 0;
  private query = "";
  /** The open text field's text (null: none is open). */
  private field: string | null = null;
  private readonly numbered: boolean;
  private readonly maxItems: number;

  constructor(
    private readonly options: MenuOptions<T>,
    private readonly style: Style,
  ) {
    this.numbered = options.numbered ?? (options.filter === undefined && options.items.length <= 9);
    this.maxItems = Math.max(1, options.maxItems ?? 10);
    this.selected = Math.max(0, Math.min(options.selected ?? 0, options.items.length - 1));
  }

  /** The items the filter lets through, in their order. */
  get visible(): readonly MenuItem<T>[] {
    const q = this.query.trim().toLowerCase();
    if (!q) return this.options.items;
    const text = this.options.searchText ?? ((i: MenuItem<T>) => `${i.label} ${i.detail ?? ""}`);
    return this.options.items.filter((i) => text(i).toLowerCase().includes(q));
  }

  /** The item selected now, if any matches. */
  get current(): MenuItem<T> | undefined {
    return this.visible[this.selected];
  }

  handle(text: string | undefined, key: Key | undefined): MenuOutcome<T> {
    const name = key?.name;
    if (this.field !== null) return this.fieldKey(text, key);
    if (name === "escape") return { cancelled: true };
    const items = this.visible;
    if (name === "return" || name === "enter") return items.length ? this.pick(this.selected) : "ignored";
    const moves: Record<string, number> = {
      up: -1,
      down: 1,
      pageup: -PAGE,
      pagedown: PAGE,
      home: -items.length,
      end: items.length,
    };
    if (name && name in moves && !key?.ctrl && !key?.meta)
      return this.move(moves[name], name === "up" || name === "down");
    if (this.options.filter !== undefined) return this.filterKey(text, key);
    if (!text || key?.ctrl || key?.meta) return "ignored";
    if (this.numbered && /^[1-9]$/.test(text) && Number(text) <= items.length) return this.pick(Number(text) - 1);
    const keyed = items.findIndex((i) => i.key !== undefined && i.key.toLowerCase() === text.toLowerCase());
    return keyed >= 0 ? this.pick(keyed) : "ignored";
  }

  /**
   * A typed line as the answer (off a terminal, where keys do not come one by one): an empty line
   * takes the selected item; an item's key or number, alone or followed by the text for its field
   * ("n not now"); any other text goes to the item with a field, when there is one (else null).
   */
  answer(line: string): MenuChoice<T> | null {
    const items = this.visible;
    const text = line.trim();
    const choice = (item: MenuItem<T> | undefined, rest = "") =>
      item ? { value: item.value, item, ...(item.input !== undefined ? { text: rest.trim() } : {}) } : null;
    if (!text) return choice(items[this.selected]);
    const [first, ...rest] = text.split(/\s+/);
    const byNumber = this.numbered && /^[1-9]$/.test(first) ? items[Number(first) - 1] : undefined;
    const byKey = items.find((i) => i.key !== undefined && i.key.toLowerCase() === first.toLowerCase());
    const named = byNumber ?? byKey;
    if (named && (rest.length === 0 || named.input !== undefined)) return choice(named, rest.join(" "));
    return choice(
      items.find((i) => i.input !== undefined),
      text,
    );
  }

  /** The rows at `width` columns: the title, the filter, the items in view, the preview and a hint. */
  view(width: number): MenuView {
    const s = this.style;
    const room = Math.max(10, width - 1);
    const rows = (this.options.title ?? []).flatMap((r) => fitToWidth(r, room));
    let cursor: MenuView["cursor"];
    if (this.options.filter !== undefined) {
      const line = `${this.options.filter}${this.query}`;
      rows.push(...fitToWidth(line, room));
      cursor = { row: rows.length - 1, col: textWidth(rows.at(-1)!) };
    }
    const items = this.visible;
    this.scrollTo(items.length);
    if (this.top > 0) rows.push(s.dim(`  ↑ ${this.top} more`));
    items.slice(this.top, this.top + this.maxItems).forEach((item, i) => {
      const at = this.top + i;
      const chosen = at === this.selected;
      const number = this.numbered ? `${at + 1}. ` : "";
      const mark = chosen ? s.cyan("❯") : " ";
      const label = chosen ? s.bold(item.label) : item.label;
      let line = `${mark} ${number}${label}${item.detail ? ` ${s.dim(item.detail)}` : ""}`;
      if (chosen && this.field !== null) line += `: ${this.field || s.dim(item.input ?? "")}`;
      const fitted = fitToWidth(line, room, 2 + number.length);
      rows.push(...fitted);
      if (chosen && this.field !== null) {
        const last = fitted.at(-1)!;
        cursor = {
          row: rows.length - 1,
          col: this.field ? textWidth(last) : textWidth(last) - textWidth(item.input ?? ""),
        };
      }
    });
    const below = items.length - this.top - this.maxItems;
    if (below > 0) rows.push(s.dim(`  ↓ ${below} more`));
    if (items.length === 0) rows.push(s.dim("  nothing matches"));
    const current = this.current;
    if (current && this.options.preview)
      rows.push(...this.options.preview(current).flatMap((r) => fitToWidth(r, room)));
    rows.push(s.dim(fitParts(this.hint(), room)));
    return { rows, cursor };
  }

  /** The keys the menu takes, the most needed kept when the row is narrow. */
  private hint(): LinePart[] {
    if (this.field !== null)
      return [
        { text: "Enter send", rank: 3 },
        { text: "Esc back to the choices", short: "Esc back", rank: 2 },
      ];
    const keys = this.visible
      .filter((i) => i.key)
      .map((i) => i.key)
      .join("/");
    const count = this.visible.length;
    return [
      { text: "↑↓ select", rank: 2 },
      { text: "Enter choose", short: "Enter", rank: 3 },
      ...(this.numbered && count > 1 ? [{ text: `1-${Math.min(9, count)}`, rank: 1 }] : []),
      ...(keys ? [{ text: keys, rank: 1 }] : []),
      { text: `Esc ${this.options.escape ?? "cancel"}`, short: "Esc", rank: 2 },
    ];
  }

  /** Chooses the item at `index` of the visible list, or opens its text field. */
  private pick(index: number): MenuOutcome<T> {
    const item = this.visible[index];
    if (!item) return "ignored";
    if (item.input !== undefined) {
      this.selected = index;
      this.field = "";
      return "changed";
    }
    return { chose: { value: item.value, item } };
  }

  private move(by: number, wrap: boolean): MenuOutcome<T> {
    const count = this.visible.length;
    if (count === 0) return "ignored";
    const next = this.selected + by;
    this.selected = wrap ? (next + count) % count : Math.max(0, Math.min(count - 1, next));
    return "changed";
  }

  private fieldKey(text: string | undefined, key: Key | undefined): MenuOutcome<T> {
    const name = key?.name;
    const item = this.visible[this.selected];
    if (name === "return" || name === "enter") return { chose: { value: item.value, item, text: this.field! } };
    if (name === "escape") this.field = null;
    else if (name === "backspace") this.field = this.field!.slice(0, -1);
    else if (key?.ctrl && name === "u") this.field = "";
    else if (name === "up" || name === "down") {
      this.field = null;
      return this.move(name === "up" ? -1 : 1, true);
    } else {
      const typed = printable(text, key);
      if (!typed) return "ignored";
      this.field += typed;
    }
    return "changed";
  }

  private filterKey(text: string | undefined, key: Key | undefined): MenuOutcome<T> {
    if (key?.name === "backspace") {
      if (!this.query) return "ignored";
      this.query = this.query.slice(0, -1);
    } else if (key?.ctrl && key.name === "u") this.query = "";
    else {
      const typed = printable(text, key);
      if (!typed) return "ignored";
      this.query += typed;
    }
    this.selected = 0;
    this.top = 0;
    return "changed";
  }

  /** Keeps the selected item within the rows shown. */
  private scrollTo(count: number): void {
    if (this.selected < this.top) this.top = this.selected;
    if (this.selected >= this.top + this.maxItems) this.top = this.selected - this.maxItems + 1;
    this.top = Math.max(0, Math.min(this.top, count - this.maxItems));
  }
}

/** Typed text a field takes: a key's character or a paste, on one line, without control characters. */
function printable(text: string | undefined, key: Key | undefined): string {
  if (!text || key?.ctrl || key?.meta) return "";
  return text.replace(/\s*\n\s*/g, " ").replace(/[\x00-\x1f\x7f]/g, "");
}
