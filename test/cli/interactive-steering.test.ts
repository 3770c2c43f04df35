/**
 * Issue 27's steering and streaming scenarios in a real terminal (./terminal.ts): the live line
 * stays drawn above a steering line being typed, a steer waits for the running command unless the
 * user stops it (Ctrl-X), the colour path of a streaming answer word-wraps and leaves no raw
 * markdown, and a resize mid-stream re-fits the live area. Each test has a tmux server of its own.
 */
import { expect, test, setDefaultTimeout } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { startFakeLlm, WIRE_APIS, useWorkspace } from "./helpers.ts";
import { gongTerminal } from "./terminal.ts";

// A terminal test waits for many screens; on a crowded machine each may take seconds.
setDefaultTimeout(120_000);

const hasTmux = Bun.spawnSync(["which", "tmux"]).exitCode === 0;
const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

const ws = useWorkspace();
let fake: FakeLlm;

/** A bash call printing `tick N` lines, one each time the test creates `go-N` (so the test counts them), until `release` exists. */
const tickingCommand = () =>
  `touch command-started; i=0; while [ ! -e release ]; do if [ -e go-$i ]; then echo tick-$i; i=$((i+1)); fi; sleep 0.01; done; echo finished-the-wait`;
const step = (n: number) => writeFileSync(join(ws.dir, `go-${n}`), "");
const release = () => writeFileSync(join(ws.dir, "release"), "");

test.skipIf(!hasTmux)(
  "issue 27: while a steering line is typed the live line (spinner, timer, output tail, keys) stays drawn above it, redrawn after each chunk; Enter sends it after the command",
  async () => {
    using term = gongTerminal(ws);
    fake = await startFakeLlm({
      script: [
        { toolCalls: [{ name: "bash", arguments: { command: tickingCommand() } }] },
        { text: "steer seen after the command" },
      ],
    });
    term.start([...WIRE_APIS[0].flags(fake), "--approval", "auto"], { columns: 100 });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("run the ticker", "Enter");
    await term.waitFor(() => existsSync(join(ws.dir, "command-started")), "the command to start");
    step(0);
    await term.waitFor((s) => s.includes("tick-0"), "the first output line in the live tail");
    term.keys("then summarise");
    // The live line, its tail and the keys are drawn above the typed line, which stays the last row.
    const typing = await term.waitFor(
      (s) => /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] bash[^\n]*\n {2}tick-0\n[^\n]*Ctrl-X: stop it, send now[^\n]*\n↳ then summarise\s*$/.test(s),
      "the live line above the typed line",
    );
    expect(typing).toContain("Esc: stop all");
    // Each chunk of output redraws the tail above the line being typed.
    for (const n of [1, 2, 3]) {
      step(n);
      await term.waitFor(
        (s) => new RegExp(`\\n {2}tick-${n}\\n[^\\n]*Ctrl-X[^\\n]*\\n↳ then summarise\\s*$`).test(s),
        `tick-${n} in the tail above the typed line`,
      );
    }
    // The timer keeps counting while the user types.
    await term.waitFor((s) => /bash[^\n]*· [1-9]\d*s\b[^\n]*\n {2}tick-0\n/.test(s), "the timer above the typed line");
    term.keys("Enter");
    // Sent: it waits under the live status (not in the conversation yet), the input gone.
    await term.waitFor(
      (s) => /\n {2}tick-\d+\n↳ then summarise\s*$/.test(s) && !s.includes("Ctrl-X"),
      "the line waiting under the live status",
    );
    release();
    const text = await term.waitFor(
      (s) => s.includes("steer seen after the command") && s.includes("↑"),
      "the next turn",
    );
    // The command ran to its end; the steer reached the model in the next request, shown where it was delivered.
    expect(text).toMatch(/⎿ exit 0 · 5 lines/);
    expect(text).toMatch(/finished-the-wait\n(?:.*\n)*› then summarise\n(?:.*\n)*steer seen after the command/);
    expect(JSON.stringify(fake.requests[1].body.messages)).toContain("then summarise");
    // No frame of the live line is left in the scrollback, and the sent line is there once: where the model read it.
    expect(text).not.toMatch(SPINNER);
    expect(text).not.toContain("Ctrl-X");
    expect(text).not.toContain("↳ then summarise");
    expect(text.split("\n").filter((l) => l.startsWith("› then summarise")).length).toBe(1);
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)(
  "issue 27: Ctrl-X on a steering line stops the running command and sends the line now; the input goes on",
  async () => {
    using term = gongTerminal(ws);
    fake = await startFakeLlm({
      script: [
        { toolCalls: [{ name: "bash", arguments: { command: tickingCommand() } }] },
        { text: "stopped and redirected" },
      ],
    });
    term.start([...WIRE_APIS[0].flags(fake), "--approval", "auto"], { columns: 80 });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("run the ticker", "Enter");
    await term.waitFor(() => existsSync(join(ws.dir, "command-started")), "the command to start");
    step(0);
    await term.waitFor((s) => s.includes("tick-0"), "the output in the live tail");
    term.keys("do something else");
    await term.waitFor((s) => /Ctrl-X[^\n]*\n↳ do something else\s*$/.test(s), "the typed line under the keys");
    term.keys("C-x");
    const text = await term.waitFor(
      (s) => s.includes("stopped and redirected") && s.includes("↑"),
      "the answer after the steer",
    );
    // The command was stopped (it never finished), the line was sent at once and reached the model, shown once.
    expect(text).not.toContain("↳ do something else");
    expect(text.split("\n").filter((l) => l.includes("do something else")).length).toBe(1);
    expect(text).not.toContain("finished-the-wait");
    expect(text).toMatch(/● bash[^\n]*\n {2}⎿ [^\n]*(abort|interrupt)/i);
    expect(text).toMatch(/› do something else\n(?:.*\n)*stopped and redirected/);
    expect(JSON.stringify(fake.requests[1].body.messages)).toContain("do something else");
    expect(text).not.toMatch(SPINNER);
    // The shell goes on: the prompt comes back under the answer.
    await term.waitFor((s) => /stopped and redirected\n↑[^\n]*\n\n?›/.test(s), "the next prompt");
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

/** `count` distinct words of different lengths ("p3xxx"): a piece of one is never one of them. */
const wordsOf = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}${i}${"x".repeat(i % 6)}`);

/** The screen's tokens that look like one of `words` (start with its prefix and a digit), emphasis marks left on. */
const tokensLike = (screen: string, prefix: string) =>
  screen.split(/\s+/).filter((t) => new RegExp(`^\\**\`?${prefix}\\d`).test(t));

test.skipIf(!hasTmux)(
  "issue 27: with colours on at 40 columns a streaming paragraph is word-wrapped as it streams, and no raw markdown is left once it ends",
  async () => {
    using term = gongTerminal(ws);
    const words = wordsOf("p", 70);
    // Emphasis and code spans among the words: they are rendered, never left as marks.
    const marked = words.map((w, i) => (i % 10 === 3 ? `**${w}**` : i % 10 === 7 ? `\`${w}\`` : w));
    fake = await startFakeLlm({
      script: [{ text: `${marked.join(" ")}\n\nall words sent`, chunkSize: 5, chunkDelayMs: 30 }],
    });
    term.start([...WIRE_APIS[0].flags(fake), "--approval", "auto"], { columns: 40, color: true });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("stream a paragraph", "Enter");
    const whole = new Set(words);
    let screens = 0;
    // Every screen seen while the paragraph streams holds whole words only, each row within the width.
    const text = await term.waitFor((s) => {
      if (tokensLike(s, "p").length > 0) screens++;
      for (const token of tokensLike(s, "p")) expect(whole.has(token.replace(/^\*\*/, ""))).toBe(true);
      for (const row of s.split("\n")) expect(Bun.stringWidth(row.trimEnd())).toBeLessThanOrEqual(40);
      return s.includes("all words sent") && s.includes("↑");
    }, "the whole answer");
    expect(screens).toBeGreaterThan(1);
    // Once it ended: each word once, rendered (no ** or backticks left in the scrollback).
    for (const word of words) expect(text.split(/\s+/).filter((t) => t === word).length).toBe(1);
    expect(text).not.toContain("**");
    expect(text).not.toContain("`");
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)(
  "issue 27: with colours on, typing while the answer streams and a command runs: the unfinished paragraph keeps growing above the typed line, no split words, the command completes, the steer arrives next turn",
  async () => {
    using term = gongTerminal(ws);
    const words = wordsOf("q", 60);
    const marked = words.map((w, i) => (i % 9 === 4 ? `**${w}**` : w));
    fake = await startFakeLlm({
      script: [
        {
          text: `${marked.join(" ")}\n`,
          chunkSize: 4,
          chunkDelayMs: 60,
          toolCalls: [{ name: "bash", arguments: { command: tickingCommand() } }],
        },
        { text: "coloured steer received" },
      ],
    });
    term.start([...WIRE_APIS[0].flags(fake), "--approval", "auto"], { columns: 60, color: true });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("stream please", "Enter");
    await term.waitFor((s) => s.includes("q3xxx"), "the answer streaming");
    term.keys("wrap it up");
    await term.waitFor((s) => s.includes("↳ wrap it up"), "the typed line");
    const whole = new Set(words);
    // The unfinished paragraph keeps growing above the line being typed, before it ends.
    const growing = await term.waitFor(
      (s) => s.includes("q30") && !s.includes("q59xxxxx"),
      "the paragraph growing while typing",
    );
    expect(growing.trimEnd().split("\n").at(-1)).toContain("↳ wrap it up");
    // The answer keeps streaming above the line being typed: whole words only, the typed line last.
    const later = await term.waitFor((s) => {
      for (const token of tokensLike(s, "q")) expect(whole.has(token.replace(/^\*\*/, ""))).toBe(true);
      return s.includes("q59xxxxx");
    }, "the rest of the answer while typing");
    expect(later.trimEnd().split("\n").at(-1)).toContain("↳ wrap it up");
    await term.waitFor(() => existsSync(join(ws.dir, "command-started")), "the command to start");
    term.keys("Enter");
    await term.waitFor((s) => /\n↳ wrap it up\s*$/.test(s), "the line waiting under the live status");
    release();
    const text = await term.waitFor((s) => s.includes("coloured steer received") && s.includes("↑"), "the next turn");
    expect(text).toMatch(/⎿ exit 0 · 1 line\n {4}finished-the-wait/);
    expect(text).not.toMatch(/abort/i);
    expect(text).toMatch(/finished-the-wait\n(?:.*\n)*› wrap it up\n(?:.*\n)*coloured steer received/);
    expect(JSON.stringify(fake.requests[1].body.messages)).toContain("wrap it up");
    // Every word whole, once, and rendered.
    for (const word of words) expect(text.split(/\s+/).filter((t) => t === word).length).toBe(1);
    expect(text).not.toContain("**");
    expect(text).not.toMatch(SPINNER);
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)(
  "issue 27: a resize mid-stream re-fits the live area: nothing lost or duplicated, the rows after it fit the new width",
  async () => {
    using term = gongTerminal(ws);
    const before = wordsOf("a", 30);
    const after = wordsOf("b", 90);
    fake = await startFakeLlm({
      script: [{ text: `${before.join(" ")}\n${after.join(" ")}\n\nresize done`, chunkSize: 4, chunkDelayMs: 30 }],
    });
    term.start([...WIRE_APIS[0].flags(fake), "--approval", "auto"], { columns: 100, color: true });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("stream across a resize", "Enter");
    await term.waitFor((s) => s.includes("b2xx "), "the second paragraph streaming");
    term.resize(60);
    const text = await term.waitFor((s) => s.includes("resize done") && s.includes("↑"), "the whole answer");
    // Nothing lost or duplicated: the words in order, once (rows the terminal re-wrapped joined again).
    const joined = text.replace(/\s+/g, "");
    for (const words of [before, after]) expect(joined.split(words.join("")).length).toBe(2);
    // The paragraph finished after the resize is word-wrapped to the new width.
    const rows = text.split("\n").filter((row) => /\bb\d/.test(row));
    for (const row of rows) expect(Bun.stringWidth(row.trimEnd())).toBeLessThanOrEqual(60);
    for (const word of after) expect(text.split(/\s+/).filter((t) => t === word).length).toBe(1);
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)(
  "issue 27: a resize while a steering line is typed re-fits the live line above it: one live line, the typed line last, no frame left behind",
  async () => {
    using term = gongTerminal(ws);
    fake = await startFakeLlm({
      script: [
        { toolCalls: [{ name: "bash", arguments: { command: tickingCommand() } }] },
        { text: "resized and done" },
      ],
    });
    term.start([...WIRE_APIS[0].flags(fake), "--approval", "auto"], { columns: 100 });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("run the ticker", "Enter");
    await term.waitFor(() => existsSync(join(ws.dir, "command-started")), "the command to start");
    step(0);
    await term.waitFor((s) => s.includes("tick-0"), "the output in the live tail");
    term.keys("keep going");
    await term.waitFor((s) => /Ctrl-X[^\n]*\n↳ keep going\s*$/.test(s), "the typed line under the live line");
    await term.resizeStopped(50);
    // At the new width: the live line once, each of its rows within the width, the typed line last.
    const narrow = await term.waitFor(
      (s) =>
        /\n {2}tick-0\n[^\n]*Ctrl-X[^\n]*\n↳ keep going\s*$/.test(s) &&
        s.split("\n").every((row) => Bun.stringWidth(row.trimEnd()) <= 50),
      "the live line re-fitted",
    );
    expect(narrow.split("\n").filter((row) => SPINNER.test(row)).length).toBe(1);
    step(1);
    await term.waitFor(
      (s) => /\n {2}tick-1\n[^\n]*Ctrl-X[^\n]*\n↳ keep going\s*$/.test(s),
      "the next chunk at the new width",
    );
    term.keys("Enter");
    release();
    const text = await term.waitFor((s) => s.includes("resized and done") && s.includes("↑"), "the answer");
    expect(text).not.toMatch(SPINNER);
    expect(text).not.toContain("Ctrl-X");
    expect(text).toMatch(/› keep going\n(?:.*\n)*resized and done/);
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);
