/**
 * The session picker (`/resume` and `gong -r` alone in a terminal): this directory's sessions,
 * newest first, over the whole terminal — each row the session's name (or its first input), when
 * it was last used, its size, the git branch it started on and whether it is a fork; the selected
 * one's last messages under the list. Typing searches names, first inputs and branches; ↑↓ PgUp
 * PgDn select, Enter resumes, Esc leaves. It opens at once over 10,000 sessions: the rows read only
 * the files they show, and the search reads the rest in the background.
 */
import { basename } from "node:path";
import { FullScreen } from "./full-screen.ts";
import type { KeyHandler } from "./keyboard.ts";
import { Menu, type MenuItem } from "./menu.ts";
import type { Style } from "./render.ts";
import { previewLines, SessionCatalog, type CatalogEntry } from "./session-catalog.ts";
import { cutToWidth, textWidth } from "./text-width.ts";
import type { LocationOptions } from "../store/paths.ts";
import { Keyboard } from "./keyboard.ts";
import { makeStyle, useColor } from "./render.ts";
import type { Io } from "./session-io.ts";

/** Rows of the selected session's last messages under the list. */
const PREVIEW_ROWS = 4;

export interface PickerHost {
  capture(handler: KeyHandler | null): void;
  readonly terminal: NodeJS.WritableStream & { columns?: number; rows?: number; isTTY?: boolean };
}

export interface PickOptions extends LocationOptions {
  cwd: string;
  style: Style;
  /** The session in use (marked in its row). */
  current?: string;
  /** The sessions, when the caller listed them already. */
  catalog?: SessionCatalog;
}

/** What the user picked: a session file; null when they left without one (or there is none). */
export async function pickSession(host: PickerHost, options: PickOptions): Promise<string | null> {
  const catalog = options.catalog ?? new SessionCatalog(options.cwd, options);
  if (catalog.entries.length === 0) return null;
  const screen = new FullScreen(host.terminal);
  const { style: s } = options;
  const now = Date.now();
  let columns = screen.columns;
  const rows = catalog.entries.map((entry) => rowItem(entry, catalog, () => columns, now, options.current));
  const items = rows.map((r) => r.item);
  const searchText = new Map(rows.map((r) => [r.item, r.searchText]));
  const previews = new Map<string, string[]>();
  const menu = new Menu<string>(
    {
      items,
      title: [],
      filter: s.dim("search: "),
      searchText: (item) => searchText.get(item)!(),
      maxItems: listRows(screen.rows),
      escape: "leave",
      preview: (item) => {
        let lines = previews.get(item.value);
        if (!lines) previews.set(item.value, (lines = previewLines(item.value, PREVIEW_ROWS)));
        return [s.dim("─".repeat(Math.max(1, columns - 2))), ...lines.map((l) => cutToWidth(l, columns - 2))];
      },
    },
    s,
  );
  const draw = () => {
    columns = screen.columns;
    const total = catalog.entries.length;
    const searching = catalog.progress < total ? s.dim(` · searching ${catalog.progress} of ${total}`) : "";
    const title = cutToWidth(`Resume a session (${total} here)${searching}`, columns - 1);
    const view = menu.view(columns);
    // The filter row holds the cursor while the search is typed.
    const cursor = view.cursor ? { row: view.cursor.row + 1, col: view.cursor.col } : undefined;
    screen.draw([s.bold(title), ...view.rows], cursor);
  };
  return new Promise((resolve) => {
    const onResize = () => draw();
    const finish = (path: string | null) => {
      catalog.stop();
      host.capture(null);
      (host.terminal as NodeJS.EventEmitter).off?.("resize", onResize);
      screen.close();
      resolve(path);
    };
    (host.terminal as NodeJS.EventEmitter).on?.("resize", onResize);
    host.capture((text, key) => {
      const outcome = menu.handle(text, key);
      if (outcome === "changed") draw();
      else if (outcome !== "ignored") finish("chose" in outcome ? outcome.chose.value : null);
      else if (key.ctrl && key.name === "c") finish(null);
      return true;
    });
    draw();
    // The search sees a session once its summary is read: the rest are read meanwhile, the screen kept up to date.
    catalog.loadAll(draw);
  });
}

/** Item rows that fit on a screen of `rows` with the title, filter, preview, scroll marks and hint. */
function listRows(rows: number): number {
  return Math.max(3, rows - PREVIEW_ROWS - 7);
}

/** One session's row: its label and details come from its summary, read when the row is first shown. */
function rowItem(
  entry: CatalogEntry,
  catalog: SessionCatalog,
  columns: () => number,
  now: number,
  current: string | undefined,
): { item: MenuItem<string>; searchText: () => string } {
  const detailOf = (searching: boolean) => {
    const info = searching ? catalog.known(entry.path) : catalog.summary(entry.path);
    if (!info) return info === null ? "unreadable" : "";
    const parts = [ago(now - entry.updated.getTime()), size(entry.size)];
    if (info.headerDamaged) parts.push("damaged");
    if (info.gitBranch) parts.push(`⎇ ${info.gitBranch}`);
    if (info.parentSession) parts.push("fork");
    if (info.id === current) parts.push("this session");
    return parts.join(" · ");
  };
  const labelOf = (searching: boolean) => {
    const info = searching ? catalog.known(entry.path) : catalog.summary(entry.path);
    if (info === undefined) return "";
    if (info === null || (info.headerDamaged && !info.firstMessage)) return basename(entry.path);
    const text = info.name ?? (info.firstMessage || "(no input yet)");
    return info.name && info.firstMessage ? `${text} — ${info.firstMessage}` : text;
  };
  // The menu reads a row's label and detail when it draws the row; the search, only summaries read so far.
  const item: MenuItem<string> = {
    value: entry.path,
    get label() {
      const detail = textWidth(detailOf(false));
      return cutToWidth(labelOf(false), Math.max(10, columns() - detail - 6));
    },
    get detail() {
      return detailOf(false);
    },
  };
  return { item, searchText: () => `${labelOf(true)} ${detailOf(true)}` };
}

function ago(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} days ago`;
}

function size(bytes: number): string {
  return bytes < 1024
    ? `${bytes} B`
    : bytes < 1 << 20
      ? `${Math.round(bytes / 1024)} KB`
      : `${(bytes / 2 ** 20).toFixed(1)} MB`;
}

/**
 * The picker on the terminal before the shell starts (`gong -r` alone): the chosen file; null
 * when the user left it; undefined when there is no session here to pick.
 */
export async function pickOnTerminal(cwd: string, io: Io): Promise<string | null | undefined> {
  const catalog = new SessionCatalog(cwd);
  if (catalog.entries.length === 0) return undefined;
  const keyboard = new Keyboard(io.stdin, { shell: new Map() });
  keyboard.setRawMode(true);
  keyboard.resume();
  try {
    return await pickSession(
      { capture: (handler) => keyboard.capture(handler), terminal: io.stdout },
      { cwd, catalog, style: makeStyle(useColor(io.stdout, io.env)) },
    );
  } finally {
    keyboard.close();
    keyboard.setRawMode(false);
    keyboard.pause();
  }
}
