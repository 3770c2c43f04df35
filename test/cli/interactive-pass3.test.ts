/**
 * Issue 40, the interactive shell's third pass, in a real terminal (./terminal.ts) at 60 and 100
 * columns, colours on and off where it matters: the live status through a pause, a resize at a
 * question, keys typed before a question, a steering line shown once, rows fitted (code, quotes,
 * lists, tables, the input), an interrupted request's usage, whole parts at 60 columns, a resumed
 * session's cost and cut answer, what a key and a spinner frame write, and the compact question.
 * Each test has a tmux server of its own.
 */
import { expect, test, setDefaultTimeout } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { startFakeLlm, WIRE_APIS, useWorkspace } from "./helpers.ts";
import { gongTerminal, repeatedRows } from "./terminal.ts";

// A terminal test waits for many screens; on a crowded machine each may take seconds.
setDefaultTimeout(120_000);

const hasTmux = Bun.spawnSync(["which", "tmux"]).exitCode === 0;
const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

const ws = useWorkspace();
let fake: FakeLlm;

const flags = (approval: "auto" | "ask") => [...WIRE_APIS[0].flags(fake), "--approval", approval];

/** Every row of the screen within `columns`. */
const fits = (screen: string, columns: number) =>
  screen.split("\n").every((row) => Bun.stringWidth(row.trimEnd()) <= columns);

const SIZES = [
  { columns: 60, rows: 20 },
  { columns: 100, rows: 30 },
];

for (const { columns, rows } of SIZES)
  for (const color of [false, true]) {
    test.skipIf(!hasTmux)(
      `issue 40 items 1 and 7: at ${columns} columns, colours ${color ? "on" : "off"}, the live status stays through a pause mid-answer; after Esc the interrupted request's usage counts`,
      async () => {
        using term = gongTerminal(ws);
        const answer = `The first words arrive ${"and then the model goes quiet for a while ".repeat(3)}before the rest.`;
        fake = await startFakeLlm({
          script: [
            { text: answer, chunkSize: 12, fault: { type: "stall", afterChunks: 4 } },
            { text: "after the interruption" },
          ],
        });
        term.start(flags("auto"), { columns, rows, color });
        await term.waitFor((s) => s.includes("›"), "the prompt");
        term.keys("talk to me", "Enter");
        // The model stalled after its first words: the status is still there under them, its time counting.
        const paused = await term.waitFor(
          (s) => s.includes("The first words") && /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] writing… · [2-9]s · ↓ \d+/.test(s),
          "the live status through the pause",
        );
        expect(paused).toMatch(columns >= 100 ? /· Esc to interrupt/ : /· Esc\b/);
        expect(fits(paused, columns)).toBe(true);
        // Alive: the spinner moves while nothing arrives.
        const frame = SPINNER.exec(paused)![0];
        await term.waitFor((s) => SPINNER.exec(s)?.[0] !== frame, "the next spinner frame");
        term.keys("Escape");
        const stopped = await term.waitFor(
          (s) => s.includes("interrupted") && /↑ [\d.k]+ ↓ [\d.k]+/.test(s) && /\n›/.test(s),
          "the usage line of the interrupted request",
        );
        expect(stopped).not.toMatch(SPINNER);
        // The status line counts it: a cost above zero.
        await term.waitFor((s) => /\$0\.\d*[1-9]/.test(s.split("\n").filter(Boolean).at(-1) ?? ""), "its cost");
        term.keys("go on", "Enter");
        const next = await term.waitFor(
          (s) => s.includes("after the interruption") && /after the interruption\n↑[^\n]*\(session ↑/.test(s),
          "the next answer, the session's totals including the interrupted request",
        );
        expect(next).toContain("(session ↑");
        term.keys("/quit", "Enter");
        await term.waitFor(() => !term.alive(), "gong to exit");
      },
    );
  }

for (const [from, to] of [
  [SIZES[1], SIZES[0]],
  [SIZES[0], SIZES[1]],
])
  test.skipIf(!hasTmux)(
    `issue 40 items 2 and 11: a compact question at ${from.columns} columns re-fits when resized to ${to.columns}; once answered nothing of it stays`,
    async () => {
      using term = gongTerminal(ws);
      fake = await startFakeLlm({
        script: [
          { toolCalls: [{ name: "bash", arguments: { command: "echo resized-question-ran" } }] },
          { text: "all answered" },
        ],
      });
      term.start(flags("ask"), { columns: from.columns, rows: from.rows });
      await term.waitFor((s) => s.includes("›"), "the prompt");
      term.keys("run it", "Enter");
      const asked = await term.waitFor((s) => s.includes("❯ 1. Yes"), "the question");
      // Compact: the question on one row, the command on the next, paths from the project.
      expect(asked).toMatch(/\n\? run this command\?\n {2}\$ echo resized-question-ran\n❯ 1\. Yes\n/);
      expect(asked).toContain("(.gong/settings.local.json)");
      expect(asked.slice(asked.indexOf("? run this command?"))).not.toContain(ws.dir);
      await term.resizeStopped(to.columns);
      const resized = await term.waitFor(
        (s) => fits(s, to.columns) && s.includes("❯ 1. Yes") && s.includes("Esc interrupt"),
        "the question re-fitted",
      );
      expect(resized.split("\n").filter((l) => l.includes("run this command?")).length).toBe(1);
      expect(repeatedRows(resized)).toEqual([]);
      term.keys("y");
      const text = await term.waitFor((s) => s.includes("all answered") && s.includes("↑"), "the answer");
      expect(text).not.toContain("run this command?");
      expect(text).not.toContain("1. Yes");
      expect(text).toContain("✓ allowed: $ echo resized-question-ran");
      expect(repeatedRows(text)).toEqual([]);
      term.keys("/quit", "Enter");
      await term.waitFor(() => !term.alive(), "gong to exit");
    },
  );

for (const { columns, rows } of SIZES)
  test.skipIf(!hasTmux)(
    `issue 40 item 3: at ${columns} columns a "y" typed just before the question is neither its answer nor a steer that skips the call; the user is told, and it comes back in the input`,
    async () => {
      using term = gongTerminal(ws);
      const command = `echo typed-ahead-${"x".repeat(40)}`;
      fake = await startFakeLlm({
        script: [
          // The call's arguments stream slowly: the user sees it being written and types ahead.
          { toolCalls: [{ name: "bash", arguments: { command } }], chunkSize: 2, chunkDelayMs: 60 },
          { text: "the command ran" },
        ],
      });
      term.start(flags("ask"), { columns, rows });
      await term.waitFor((s) => s.includes("›"), "the prompt");
      term.keys("run it", "Enter");
      await term.waitFor(
        (s) => /bash {2}echo typed-ahead/.test(s) && !s.includes("❯ 1. Yes"),
        "the call being written",
      );
      term.keys("y", "Enter");
      const asked = await term.waitFor((s) => s.includes("❯ 1. Yes"), "the question");
      expect(asked.replace(/\n/g, " ")).toContain(
        "“y” was typed before this question appeared: it is not the answer and was not sent to the model",
      );
      // Answered now, with the key pressed after it appeared.
      term.keys("y");
      // The typed line is back in the input (the next prompt's, the answer being quick).
      const text = await term.waitFor(
        (s) => s.includes("the command ran") && /\n[›↳] y\n/.test(s),
        "the answer, and the typed line back in the input",
      );
      expect(text.replace(/\n/g, " ")).toContain("✓ allowed: $ echo typed-ahead");
      expect(text).toMatch(/⎿ exit 0/);
      // The model never got the "y", and the call was not skipped for it.
      const sent = JSON.stringify(fake.requests[1].body.messages);
      expect(sent).not.toContain("Skipped due to queued user message");
      expect(sent).toContain("typed-ahead-xxx");
      expect(fake.requests[1].body.messages.filter((m: { role: string }) => m.role === "user").length).toBe(2);
      term.keys("C-c");
      await term.waitFor((s) => /\n›\s*\n/.test(s) && !/\n[›↳] y\n/.test(s), "the line cleared");
      term.keys("/quit", "Enter");
      await term.waitFor(() => !term.alive(), "gong to exit");
    },
  );

test.skipIf(!hasTmux)(
  "issue 40 items 4 and 8: at exactly 60 columns, colours on, the steering hint keeps whole parts; the line sent waits under the status and shows once, in order, where the model reads it",
  async () => {
    using term = gongTerminal(ws);
    const command = `touch started && for _ in $(seq 3000); do [ -e release ] && break; sleep 0.01; done; echo finished-the-wait`;
    fake = await startFakeLlm({
      script: [{ toolCalls: [{ name: "bash", arguments: { command } }] }, { text: "steer read" }],
    });
    term.start(flags("auto"), { columns: 60, rows: 20, color: true });
    const idle = await term.waitFor((s) => s.includes("›") && s.includes("approval"), "the prompt and status line");
    // The status line at 60 columns: whole parts only.
    expect(idle).toMatch(/\nanthropic\/claude-haiku-4-5 · approval: auto · \$0\.0000\s*$/);
    term.keys("run the wait", "Enter");
    await term.waitFor(() => existsSync(join(ws.dir, "started")), "the command to start");
    term.keys("-l", "then summarise it");
    const hint = await term.waitFor((s) => /\n↳ then summarise it\s*$/.test(s) && s.includes("Ctrl-X"), "the hint");
    const hintRow = hint.split("\n").find((l) => l.includes("Ctrl-X"))!;
    expect(hintRow.trimEnd()).toBe("Enter: send after it · Ctrl-X: now · Esc: stop all");
    term.keys("Enter");
    await term.waitFor((s) => /\n↳ then summarise it\s*$/.test(s) && !s.includes("Ctrl-X"), "the line waiting");
    Bun.write(join(ws.dir, "release"), "");
    const text = await term.waitFor((s) => s.includes("steer read") && s.includes("↑"), "the answer");
    expect(text.split("\n").filter((l) => l.includes("then summarise it"))).toEqual(["› then summarise it"]);
    expect(text).toMatch(/finished-the-wait\n(?:.*\n)*› then summarise it\n(?:.*\n)*steer read/);
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

const LONG_CODE = "    const offset = tokenizer.current().position.offset + lookahead(tokens, at, { tok.offset });";
const FITTED = [
  "Here is the fix:",
  "```ts",
  LONG_CODE,
  "```",
  `> ${"a quoted sentence that keeps going past the edge ".repeat(3)}`,
  `1. ${"a numbered item whose words wrap onto more rows ".repeat(3)}`,
  "",
  "| Tool | What it does | Where |",
  "|---|---|---|",
  "| bash | runs a shell command in the project directory and waits for it to finish | sandbox |",
  "| edit | replaces exact text in one file | workspace |",
  "",
  "fitted done",
].join("\n");

for (const { columns, rows } of SIZES)
  for (const color of [false, true]) {
    test.skipIf(!hasTmux)(
      `issue 40 items 5 and 6: at ${columns} columns, colours ${color ? "on" : "off"}, code keeps its frame and whole tokens, quotes their bar, numbered items indent 3, a table renders fitted as it streams, the input wraps at words`,
      async () => {
        using term = gongTerminal(ws);
        fake = await startFakeLlm({ script: [{ text: FITTED, chunkSize: 6, chunkDelayMs: 25 }] });
        term.start(flags("auto"), { columns, rows: rows + 20, color });
        await term.waitFor((s) => s.includes("›"), "the prompt");
        // The input box wraps at word boundaries: every word whole while typing.
        const input = Array.from({ length: 24 }, (_, i) => `word${i}`).join(" ");
        term.keys("-l", input);
        const typed = await term.waitFor((s) => s.includes("word23"), "the typed input");
        const inputRows = typed.slice(typed.indexOf("› word0")).split("\n").slice(0, 4);
        for (const word of input.split(" ")) expect(inputRows.join(" ").split(/\s+/)).toContain(word);
        term.keys("C-u");
        term.keys("show me", "Enter");
        // While the table streams it is rendered already, within the width.
        const streaming = await term.waitFor(
          (s) => s.includes(" bash ") && s.includes("│") && !s.includes("fitted done"),
          "the table while it streams",
        );
        expect(fits(streaming, columns)).toBe(true);
        expect(streaming).not.toMatch(/^\|/m);
        const text = await term.waitFor((s) => s.includes("fitted done") && s.includes("↑"), "the whole answer");
        expect(fits(text, columns)).toBe(true);
        const lines = text.split("\n");
        // The code line wraps inside its frame: every row framed, every token whole, nothing lost.
        const open = lines.findIndex((l) => l.startsWith("╭─ ts"));
        const close = lines.findIndex((l, i) => i > open && l.startsWith("╰─"));
        const code = lines.slice(open + 1, close);
        for (const row of code) expect(row.startsWith("│ ")).toBe(true);
        const tokens = code.flatMap((r) => r.slice(2).trim().split(/\s+/));
        for (const token of ["tok.offset", "lookahead(tokens,", "const", "offset"]) expect(tokens).toContain(token);
        expect(
          code
            .map((r) => r.slice(2))
            .join("")
            .replace(/\s+/g, ""),
        ).toBe(LONG_CODE.replace(/\s+/g, ""));
        // The quote keeps its bar on every row; the numbered item continues 3 columns in.
        const quote = lines.filter((l) => l.includes("quoted") || l.includes("keeps going") || l.includes("edge"));
        for (const row of quote) expect(row.startsWith("│ ")).toBe(true);
        const item = lines.findIndex((l) => l.startsWith("1. a numbered item"));
        expect(lines[item + 1]).toMatch(/^ {3}\S/);
        // The table: rendered, no raw pipes, every cell's words whole.
        expect(text).not.toMatch(/^\|/m);
        const cells = lines.filter((l) => l.includes("│") && !l.startsWith("│ ")).flatMap((l) => l.split(/[\s│]+/));
        for (const word of "runs a shell command in the project directory replaces exact text".split(" "))
          expect(cells).toContain(word);
        term.keys("/quit", "Enter");
        await term.waitFor(() => !term.alive(), "gong to exit");
      },
    );
  }

test.skipIf(!hasTmux)(
  "issue 40 item 9: a resumed long answer says how to see the rest (Ctrl-O shows it) and the status line shows the session's cost",
  async () => {
    using term = gongTerminal(ws);
    const answer = Array.from({ length: 60 }, (_, i) => `answer line ${i + 1}`).join("\n");
    fake = await startFakeLlm({ script: [{ text: answer, usage: { input: 30_000, output: 2000 } }] });
    term.start(flags("auto"), { columns: 100, rows: 30, keepPane: true });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("tell me a lot", "Enter");
    await term.waitFor((s) => s.includes("answer line 60") && s.includes("↑"), "the answer");
    term.keys("/quit", "Enter");
    const left = await term.waitFor(
      (s) => /resume this session: gong -r ([0-9a-f-]{36})/.test(s) && term.exited(),
      "exit",
    );
    const id = /gong -r ([0-9a-f-]{36})/.exec(left)![1];
    term.close();
    term.start([...flags("auto"), "-r", id], { columns: 100, rows: 30 });
    const resumed = await term.waitFor((s) => s.includes("more lines of this answer"), "the resumed transcript");
    expect(resumed).toContain("… 40 more lines of this answer (Ctrl-O shows them)");
    // The cost the file recorded: 30k in and 2k out on haiku, not $0.0000.
    await term.waitFor((s) => /approval: auto \(Shift\+Tab\) · context \d+% · \$0\.0[1-9]\d*/.test(s), "the cost");
    // Ctrl-O on a terminal: the transcript view, every line of the answer in it; q comes back.
    term.keys("C-o");
    await term.waitFor((s) => s.includes("transcript · ") && s.includes("answer line 60"), "the whole answer");
    term.keys("q");
    await term.waitFor((s) => !s.includes("transcript · ") && s.includes("›"), "the shell again");
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)(
  "issue 40 item 10: a typed key writes one byte; a spinner frame during a pause writes a few, never the whole live block",
  async () => {
    using term = gongTerminal(ws);
    fake = await startFakeLlm({
      script: [
        {
          text: "Some words before a long pause in the middle.",
          chunkSize: 20,
          fault: { type: "stall", afterChunks: 1 },
        },
      ],
    });
    const raw = join(ws.dir, "terminal.raw");
    term.start(flags("auto"), { columns: 100, rows: 30, color: true });
    await term.waitFor((s) => s.includes("›") && s.includes("approval"), "the prompt");
    term.record(raw);
    const size = () => (existsSync(raw) ? readFileSync(raw).length : 0);
    const typed = "seventeen chars!!";
    term.keys("-l", typed);
    await term.waitFor((s) => s.includes(`› ${typed}`), "the typed text");
    await term.waitFor(() => size() >= typed.length, "the bytes recorded");
    expect(size()).toBe(typed.length);
    term.keys("C-u");
    term.keys("go", "Enter");
    await term.waitFor((s) => /(thinking|writing)… · [1-9]s/.test(s), "the pause");
    const start = size();
    const glyphs = () => [...readFileSync(raw, "utf8").slice(start)].filter((c) => SPINNER.test(c)).length;
    await term.waitFor(() => glyphs() >= 12, "twelve spinner frames");
    const text = readFileSync(raw, "utf8").slice(start);
    // Each frame is its character (with its colour) and a move; the row's text is not written again.
    expect(Buffer.byteLength(text) / glyphs()).toBeLessThan(40);
    expect(text.split("writing…").length - 1).toBeLessThanOrEqual(1);
    term.keys("Escape");
    await term.waitFor((s) => s.includes("interrupted"), "the interruption");
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)(
  "issue 40 item 11: with stdout not a terminal the question prints its numbered answers and a typed line answers it (n and the reason)",
  async () => {
    using term = gongTerminal(ws);
    fake = await startFakeLlm({
      script: [{ toolCalls: [{ name: "bash", arguments: { command: "echo never-ran" } }] }, { text: "declined then" }],
    });
    const copy = join(ws.dir, "stdout.txt");
    term.start(flags("ask"), { columns: 100, rows: 30, pipe: `tee ${copy}`, after: "echo gong-exited; sleep 30" });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("run it", "Enter");
    await term.waitFor((s) => s.includes("  4. No") && s.includes("$ echo never-ran"), "the question");
    term.keys("n not today", "Enter");
    await term.waitFor((s) => s.includes("declined then"), "the answer");
    expect(JSON.stringify(fake.requests[1].body.messages)).toContain("not today");
    term.keys("C-d");
    await term.waitFor((s) => s.includes("gong-exited"), "gong to exit at the end of input");
    const written = readFileSync(copy, "utf8");
    expect(written).toContain("✗ declined: $ echo never-ran — not today");
    expect(written).not.toContain("\x1b");
  },
);

test.skipIf(!hasTmux)(
  "issue 40 item 11: a question taller than the terminal (a long diff at 60 × 20) keeps its question and answers on screen, the diff above them",
  async () => {
    using term = gongTerminal(ws);
    Bun.write(join(ws.dir, "notes.txt"), "old line\n");
    const added = Array.from({ length: 40 }, (_, i) => `added line ${i + 1}`).join("\n");
    fake = await startFakeLlm({
      script: [
        { toolCalls: [{ name: "edit", arguments: { path: "notes.txt", old_text: "old line", new_text: added } }] },
        { text: "edited" },
      ],
    });
    term.start(flags("ask"), { columns: 60, rows: 20 });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("edit it", "Enter");
    const asked = await term.waitFor((s) => s.includes("❯ 1. Yes") && s.includes("make this change?"), "the question");
    const screenRows = asked.split("\n").slice(-20).join("\n");
    expect(screenRows).toContain("? make this change?");
    expect(screenRows).toContain("4. No");
    expect(asked).toContain("+added line 1");
    term.keys("y");
    const text = await term.waitFor((s) => s.includes("edited") && s.includes("↑"), "the answer");
    expect(text).toContain("✓ allowed: edit");
    expect(text).not.toContain("make this change?");
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);
