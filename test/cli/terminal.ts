/**
 * gong in a real terminal: tmux runs `bun cli.ts` in a session, send-keys types, capture-pane reads
 * the screen. `using term = gongTerminal(ws)` gives the test a tmux server of its own, killed (with
 * whatever still runs in it) when the block ends.
 */
import { expect } from "bun:test";
import { tmuxServer } from "../helpers/tmux.ts";
import { CLI, type Workspace } from "./helpers.ts";

export interface StartOptions {
  /** The directory gong starts in; the workspace's by default. */
  cwd?: string;
  /** The terminal's size: 160 × 50 by default. */
  columns?: number;
  rows?: number;
  /** Colors on: NO_COLOR unset (it is set by default). */
  color?: boolean;
  /** A shell command that takes gong's stdout (`gong | pipe`). */
  pipe?: string;
  /** A file that takes gong's stderr, which the screen would mix with the shell's own output. */
  stderr?: string;
  /** A shell command run in the pane once gong has exited. */
  after?: string;
  /** The pane, and its last screen, stay after gong exits (tmux's remain-on-exit); see exited(). */
  keepPane?: boolean;
  /** More environment variables for gong. */
  env?: Record<string, string>;
}

export interface GongTerminal extends Disposable {
  /** Starts gong with `args` in a new session; a session left by an earlier start must have ended. */
  start(args: string[], options?: StartOptions): void;
  /** The screen and up to 200 lines of scrollback. */
  screen(): string;
  /** Whether the session is still there (gong, or what runs after it, has not ended). */
  alive(): boolean;
  /** With keepPane: whether gong's pane has ended. */
  exited(): boolean;
  /** tmux send-keys: key names ("Enter", "C-c"), text, or "-l" and literal text. */
  keys(...keys: string[]): void;
  /** Pastes `text` as a terminal does, between bracketed-paste marks. */
  paste(text: string): void;
  /** Resizes the terminal to `columns`, keeping its rows. */
  resize(columns: number): void;
  /**
   * Resizes the terminal while gong is stopped (SIGSTOP), once the screen shows all it wrote, then
   * lets it go on (SIGCONT): no frame laid out at the old width is on its way to the terminal when
   * the width changes. (Bytes in flight at a resize are re-wrapped by any terminal; that race is
   * the terminal's, not what a test of gong's re-fit should be left to.)
   */
  resizeStopped(columns: number): Promise<void>;
  /** Copies everything gong writes to the terminal from now on into `file` (tmux pipe-pane). */
  record(file: string): void;
  /** Ends the session (gong's pane with it). */
  close(): void;
  /** Any other tmux command on the test's server (`set-option …`, `show-buffer`): its stdout. */
  tmux(...args: string[]): string;
  /** The screen once `check` holds for it (an empty screen once the session has ended); throws after `ms`. */
  waitFor(check: (screen: string) => boolean, what: string, ms?: number): Promise<string>;
}

/** The non-empty rows of a screen that appear more than once. */
export const repeatedRows = (screen: string) => {
  const seen = new Set<string>();
  return screen
    .split("\n")
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== "" && (seen.has(l) || (seen.add(l), false)));
};

/** Quotes `s` for the shell. */
export const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function gongTerminal(ws: Pick<Workspace, "dir" | "env">): GongTerminal {
  const tmux = tmuxServer("gong-term", ws.env);
  let rows = 50;
  const screen = () => tmux("capture-pane", "-p", "-t", "t", "-S", "-200").stdout.toString();
  const alive = () => tmux("has-session", "-t", "t").exitCode === 0;
  return {
    start(args, options = {}) {
      const { cwd = ws.dir, columns = 160, color = false } = options;
      rows = options.rows ?? 50;
      const envs = Object.entries({
        HOME: ws.env.HOME,
        GONG_HOME: ws.env.GONG_HOME,
        PATH: ws.env.PATH,
        TERM: "xterm-256color",
        ...(color ? {} : { NO_COLOR: "1" }),
        ...options.env,
      })
        .map(([k, v]) => `${k}=${quote(String(v))}`)
        .join(" ");
      // The tmux server has the test's environment, NO_COLOR included: with colors on it is unset.
      let command = `cd ${quote(cwd)} && env ${color ? "-u NO_COLOR " : ""}${envs} ${[process.execPath, CLI, ...args].map(quote).join(" ")}`;
      if (options.stderr) command += ` 2>${quote(options.stderr)}`;
      if (options.pipe) command += ` | ${options.pipe}`;
      if (options.after) command += `; ${options.after}`;
      // A server whose last session was just closed may still be exiting: a client that reaches it
      // then fails ("server exited unexpectedly"). Try again until a new server takes the session.
      const deadline = Date.now() + 20_000;
      let started = tmux("new-session", "-d", "-s", "t", "-x", String(columns), "-y", String(rows), command);
      while (started.exitCode !== 0 && Date.now() < deadline) {
        Bun.sleepSync(50);
        started = tmux("new-session", "-d", "-s", "t", "-x", String(columns), "-y", String(rows), command);
      }
      expect(started.stderr.toString()).toBe("");
      expect(started.exitCode).toBe(0);
      if (options.keepPane) tmux("set-option", "-t", "t", "remain-on-exit", "on");
    },
    screen,
    alive,
    exited: () => tmux("display-message", "-p", "-t", "t", "#{pane_dead}").stdout.toString().trim() === "1",
    keys: (...keys) => void tmux("send-keys", "-t", "t", ...keys),
    paste(text) {
      tmux("set-buffer", text);
      tmux("paste-buffer", "-p", "-t", "t");
    },
    resize: (columns) => void tmux("resize-window", "-t", "t", "-x", String(columns), "-y", String(rows)),
    async resizeStopped(columns) {
      const pane = tmux("display-message", "-p", "-t", "t", "#{pane_pid}").stdout.toString().trim();
      process.kill(-Number(pane), "SIGSTOP");
      try {
        // All gong wrote has reached the screen once two captures a moment apart agree.
        let last = screen();
        for (const until = Date.now() + 20_000; Date.now() < until; ) {
          await Bun.sleep(100);
          const now = screen();
          if (now === last) break;
          last = now;
        }
        tmux("resize-window", "-t", "t", "-x", String(columns), "-y", String(rows));
      } finally {
        process.kill(-Number(pane), "SIGCONT");
      }
    },
    record: (file) => void tmux("pipe-pane", "-t", "t", "-o", `cat >> ${quote(file)}`),
    close: () => void tmux("kill-session", "-t", "t"),
    tmux: (...args) => tmux(...args).stdout.toString(),
    async waitFor(check, what, ms = 30_000) {
      const until = Date.now() + ms;
      let text = "";
      while (Date.now() < until) {
        text = alive() ? screen() : "";
        if (check(text)) return text;
        await Bun.sleep(50);
      }
      throw new Error(`timed out waiting for ${what}; screen:\n${text}`);
    },
    [Symbol.dispose]: () => tmux[Symbol.dispose](),
  };
}
