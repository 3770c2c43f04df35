/**
 * Issue 40 item 10: the shell's screen — the output above, the live region under it, drawn by
 * difference. Checked on a small terminal (test/helpers/vt.ts) that scrolls like a real one.
 */
import { expect, test } from "bun:test";
import { Writable } from "node:stream";
import { LiveLine } from "../../lib/cli/live-line.ts";
import { makeStyle } from "../../lib/cli/render.ts";
import { patchRow, stylesOf } from "../../lib/cli/row-diff.ts";
import { type RegionPart, Screen, type View } from "../../lib/cli/screen.ts";
import { textWidth } from "../../lib/cli/text-width.ts";
import { VirtualTerminal } from "../helpers/vt.ts";

/** A screen writing into a virtual terminal of `columns` × `rows`. */
function screenOn(columns: number, rows: number) {
  const vt = new VirtualTerminal(columns, rows);
  const terminal = Object.assign(
    new Writable({
      write(chunk, _encoding, done) {
        vt.write(String(chunk));
        done();
      },
    }),
    { isTTY: true, columns, rows },
  );
  return { vt, screen: new Screen(terminal) };
}

/** A region part showing whatever rows (and cursor) the test sets. */
class Part implements RegionPart {
  view_: View = { rows: [] };
  view(): View {
    return this.view_;
  }
}

/** A small deterministic random source. */
function random(seed: number) {
  let x = seed;
  return (n: number) => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x % n;
  };
}

test("issue 40: whatever is committed and however the region changes, the terminal shows the output in order with the region under it", () => {
  const words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"];
  for (const seed of [1, 2, 3, 4, 5]) {
    const next = random(seed);
    const { vt, screen } = screenOn(40, 12);
    const top = new Part();
    const bottom = new Part();
    screen.setParts([top, bottom]);
    const committed: string[] = [];
    const line = () =>
      Array.from({ length: 1 + next(6) }, () => words[next(words.length)])
        .join(" ")
        .slice(0, 39);
    for (let step = 0; step < 200; step++) {
      const op = next(4);
      if (op === 0) {
        const lines = Array.from({ length: 1 + next(3) }, line);
        committed.push(...lines);
        screen.write(`${lines.join("\n")}\n`);
      } else if (op === 1) top.view_ = { rows: Array.from({ length: next(4) }, line) };
      else if (op === 2) {
        const rows = Array.from({ length: next(3) }, line);
        bottom.view_ = rows.length
          ? { rows, cursor: { row: rows.length - 1, col: textWidth(rows.at(-1)!) } }
          : { rows };
      } else top.view_ = { rows: top.view_.rows.map((r, i) => (i === 0 ? `${r.slice(0, 30)} x` : r)) };
      screen.update();
      const expected = [...committed, ...top.view_.rows, ...bottom.view_.rows].join("\n").replace(/\n+$/, "");
      expect(vt.text()).toBe(expected);
    }
  }
});

test("issue 40 item 10: a typed key writes the key; a changed character writes that character, not the row", () => {
  const { vt, screen } = screenOn(100, 30);
  const input = new Part();
  const status = new Part();
  status.view_ = { rows: ["anthropic/claude-haiku-4-5 (default) · approval: auto (Shift+Tab) · context 0% · $0.0000"] };
  screen.setParts([input, status]);
  screen.write("gong 0.1.0\n");
  const typed = "seventeen chars!!";
  for (let i = 0; i <= typed.length; i++) {
    const row = `› ${typed.slice(0, i)}`;
    input.view_ = { rows: [row], cursor: { row: 0, col: textWidth(row) } };
    const before = vt.bytes;
    screen.update();
    // The first drawing is the prompt and the status line; after it, one byte per key.
    if (i > 0) expect(vt.bytes - before).toBe(1);
  }
  expect(vt.text()).toBe(`gong 0.1.0\n› ${typed}\n${status.view_.rows[0]}`);
  // A spinner frame: the one character, with its color set again and reset.
  const spinner = new Part();
  screen.setParts([spinner, input, status]);
  const frame = (glyph: string) => `\x1b[36m${glyph}\x1b[39m writing… · 12s · ↓ 340 tokens · Esc to interrupt`;
  spinner.view_ = { rows: [frame("⠋")] };
  screen.update();
  const before = vt.bytes;
  spinner.view_ = { rows: [frame("⠙")] };
  screen.update();
  expect(vt.bytes - before).toBeLessThan(30);
  expect(vt.text().split("\n")[1]).toBe("⠙ writing… · 12s · ↓ 340 tokens · Esc to interrupt");
});

test("issue 40 item 10: a line committed above the live status pushes it down instead of drawing it again", () => {
  const { vt, screen } = screenOn(100, 10);
  const pending = new Part();
  const status = new Part();
  const row = "⠋ writing… · 12s · ↓ 340 tokens · Esc to interrupt — a long enough status row to be worth keeping";
  status.view_ = { rows: [row] };
  screen.setParts([pending, status]);
  for (let i = 0; i < 30; i++) {
    pending.view_ = { rows: [`line ${i} being written`] };
    screen.update();
    const before = vt.bytes;
    pending.view_ = { rows: [] };
    screen.write(`line ${i} being written and done\n`);
    // The committed line and a few moves: never the status row again.
    expect(vt.bytes - before).toBeLessThan(row.length);
  }
  const lines = vt.text().split("\n");
  expect(lines.at(-1)).toBe(row);
  expect(lines.at(-2)).toBe("line 29 being written and done");
  expect(lines.filter((l) => l === row).length).toBe(1);
});

test("issue 40: no row is cleared with CSI J from the start of a row (tmux keeps such a clear in its scrollback)", () => {
  const written: string[] = [];
  const terminal = Object.assign(
    new Writable({
      write(chunk, _encoding, done) {
        written.push(String(chunk));
        done();
      },
    }),
    { isTTY: true, columns: 60, rows: 20 },
  );
  const screen = new Screen(terminal);
  const part = new Part();
  screen.setParts([part]);
  part.view_ = { rows: ["one", "two", "three"] };
  screen.update();
  part.view_ = { rows: [] };
  screen.update();
  screen.release();
  const all = written.join("");
  expect(all).toContain("\x1b[J");
  expect(all).not.toMatch(/(^|\r|\n)\x1b\[J/);
});

test("issue 40: a row patch starts where the rows differ, with the styles in force there", () => {
  expect(patchRow("abc", "abc")).toBeNull();
  expect(patchRow("› hel", "› hell")).toEqual({ col: 5, text: "l", clear: false });
  expect(patchRow("› hello", "› hel")).toEqual({ col: 5, text: "", clear: true });
  // Same width in the middle: only that part, the color set again and reset after it.
  expect(patchRow("\x1b[36m⠋\x1b[39m x · 1s", "\x1b[36m⠙\x1b[39m x · 1s")).toEqual({
    col: 0,
    text: "\x1b[36m⠙\x1b[0m",
    clear: false,
  });
  expect(patchRow("a \x1b[2m12s\x1b[22m", "a \x1b[2m13s\x1b[22m")).toEqual({
    col: 3,
    text: "\x1b[2m3\x1b[0m",
    clear: false,
  });
  // A style changing over the same characters rewrites them.
  expect(patchRow("\x1b[1mhead\x1b[22m", "\x1b[1m\x1b[36mhead\x1b[39m\x1b[22m")?.text).toContain("head");
  expect(stylesOf(["\x1b[1m", "\x1b[36m", "x", "\x1b[39m", "\x1b[2m"])).toBe("\x1b[1;2m");
  expect(stylesOf(["\x1b[38;5;208m", "x", "\x1b[0m", "\x1b[3m"])).toBe("\x1b[3m");
});

test("issue 40 items 1 and 8: the live status says what happens, the time, the tokens and the key that interrupts; narrow, the extras leave whole", () => {
  const plain = makeStyle(false);
  const live = new LiveLine({ update() {} }, plain);
  live.start("writing…", Date.now() - 12_000);
  live.setTokens(1234);
  // The count shows from the next frame.
  expect(live.view(100).rows[0]).toBe("⠋ writing… · 12s · Esc to interrupt");
  (live as unknown as { shownTokens: number }).shownTokens = 1234;
  expect(live.view(100).rows[0]).toBe("⠋ writing… · 12s · ↓ 1.2k tokens · Esc to interrupt");
  expect(live.view(40).rows[0]).toBe("⠋ writing… · 12s · ↓ 1.2k tokens · Esc");
  expect(live.view(26).rows[0]).toBe("⠋ writing… · 12s · ↓ 1.2k");
  live.setNote([
    { text: "Enter: send after it", short: "Enter: after it", rank: 2 },
    { text: "Ctrl-X: stop it, send now", short: "Ctrl-X: now", rank: 1 },
    { text: "Esc: stop all", rank: 0 },
  ]);
  live.setQueued(["then summarise"]);
  const rows = live.view(60).rows;
  expect(rows[1]).toBe("Enter: send after it · Ctrl-X: now · Esc: stop all");
  expect(live.view(100).rows[1]).toBe("Enter: send after it · Ctrl-X: stop it, send now · Esc: stop all");
  expect(rows[2]).toBe("↳ then summarise");
  for (const row of live.view(60).rows) expect(textWidth(row)).toBeLessThan(60);
  live.stop();
  // Stopped, only the lines waiting for the model stay.
  expect(live.view(60).rows).toEqual(["↳ then summarise"]);
});
