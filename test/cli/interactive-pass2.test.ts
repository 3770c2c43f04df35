/**
 * Issue 27, the interactive shell's second pass, in a real terminal (./terminal.ts): the live line
 * after an approval, results people read, fitted text, the small commands. Each test has a tmux
 * server of its own, killed afterwards.
 */
import { expect, test, setDefaultTimeout } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { startFakeLlm, WIRE_APIS, useWorkspace } from "./helpers.ts";
import { gongTerminal, repeatedRows } from "./terminal.ts";

// A terminal test waits for many screens; on a crowded machine each may take seconds.
setDefaultTimeout(120_000);

const hasTmux = Bun.spawnSync(["which", "tmux"]).exitCode === 0;

const ws = useWorkspace();
let fake: FakeLlm;

/** A bash call that prints a line and runs until the test writes the release file (or 30 s pass). */
const longCommand = () =>
  `echo started-the-wait && for _ in $(seq 3000); do [ -e release ] && break; sleep 0.01; done && echo finished-the-wait`;
const release = () => writeFileSync(join(ws.dir, "release"), "");

test.skipIf(!hasTmux)(
  "issue 27: a command approved after 3 s shows its live line (spinner, timer, tail) and its time counts from when it started",
  async () => {
    using term = gongTerminal(ws);
    fake = await startFakeLlm({
      script: [
        { toolCalls: [{ name: "bash", arguments: { command: longCommand() } }] },
        { text: "approved wait over" },
      ],
    });
    term.start([...WIRE_APIS[0].flags(fake), "--approval", "ask"], { columns: 100 });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("wait after asking", "Enter");
    await term.waitFor((s) => s.includes("❯ 1. Yes"), "the question");
    // The scenario: the user takes 3 s to answer.
    await Bun.sleep(3000);
    const answered = Date.now();
    term.keys("y");
    // The live line comes back after the answer: the label, a timer counting from the start, the output's tail.
    const live = await term.waitFor(
      (s) => /bash {2}echo started-the-wait[^\n]*· [1-9]s\b[^\n]*\n {2}started-the-wait/.test(s),
      "the live line with its timer and tail",
    );
    expect(live).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] bash/);
    release();
    const text = await term.waitFor((s) => s.includes("approved wait over") && s.includes("↑"), "the answer");
    const ran = (Date.now() - answered) / 1000;
    const seconds = Number(/⎿ exit 0 · \d+ lines · (\d+)s/.exec(text)?.[1]);
    // The command ran after the answer: the time reported is within the time since then, the 3 s of the question excluded.
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(Math.floor(ran));
    expect(text).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

const HINT = "Type a task. /help for commands, Ctrl-C to interrupt, Ctrl-C twice to exit.";

for (const columns of [40, 60, 100]) {
  test.skipIf(!hasTmux)(
    `issue 27: at ${columns} columns the shell's lines are word-wrapped and no row repeats through an approval and a long answer`,
    async () => {
      using term = gongTerminal(ws);
      const answer = [
        "Alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa.",
        "",
        "Quebec romeo sierra tango uniform victor whiskey xray yankee zulu one two three four five six seven.",
      ].join("\n");
      fake = await startFakeLlm({
        script: [
          { toolCalls: [{ name: "bash", arguments: { command: "echo fitted-run-output-line" } }] },
          { text: answer, chunkSize: 5, chunkDelayMs: 5 },
        ],
      });
      term.start([...WIRE_APIS[0].flags(fake), "--approval", "ask"], { columns });
      await term.waitFor((s) => s.includes("›"), "the prompt");
      // The header and hint are broken at spaces: each word is whole on some row.
      const words = term.screen().split(/\s+/);
      for (const word of HINT.split(" ")) expect(words).toContain(word);
      term.keys("run it", "Enter");
      await term.waitFor((s) => s.includes("❯ 1. Yes"), "the question");
      // Each key redraws the question's rows in place: they never pile up. (n opens the reason's
      // field, Esc goes back to the choices, y allows.)
      for (const key of ["Down", "Down", "Up", "n", "o", "BSpace", "BSpace", "Escape", "Up", "Down"]) {
        term.keys(key);
        const screen = await term.waitFor((s) => s.includes("run this command?"), "the question after a key");
        expect(screen.split("\n").filter((l) => l.includes("run this command?")).length).toBe(1);
        expect(screen.split("\n").filter((l) => l.startsWith("❯ ")).length).toBe(1);
        expect(repeatedRows(screen)).toEqual([]);
      }
      term.keys("y");
      const text = await term.waitFor((s) => s.includes("seven.") && s.includes("↑"), "the answer");
      expect(repeatedRows(text)).toEqual([]);
      for (const word of answer.split(/\s+/)) expect(text.split(/\s+/)).toContain(word);
      term.keys("/quit", "Enter");
      await term.waitFor(() => !term.alive(), "gong to exit");
    },
  );
}

test.skipIf(!hasTmux)(
  "issue 27: a 400-line result shows its last lines and the true count; Ctrl-O shows it all (in the transcript); turns are separated and timed",
  async () => {
    using term = gongTerminal(ws);
    const command = `for i in $(seq 399); do echo "test line $i"; done; echo "400 passed, 0 failed"`;
    fake = await startFakeLlm({
      script: [{ toolCalls: [{ name: "bash", arguments: { command } }] }, { text: "tests ran" }],
    });
    term.start([...WIRE_APIS[0].flags(fake), "--approval", "auto"], { columns: 60, rows: 30 });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("run the tests", "Enter");
    const text = await term.waitFor(
      (s) => s.includes("tests ran") && /↑[^\n]*\n\n›/.test(s),
      "the answer and the next prompt",
    );
    // The tail, where the summary is, under the true line count; the first lines are not shown.
    expect(text).toMatch(
      /⎿ exit 0 · 400 lines\n {4}… 397 more lines above \(Ctrl-O shows all\)\n {4}test line 398\n {4}test line 399\n {4}400 passed, 0 failed\n/,
    );
    expect(text).not.toContain("test line 1\n");
    // The turn's time on its usage line (the first turn's totals said once), then a blank line before the prompt.
    expect(text).toMatch(/↑ [\d.k]+ ↓ [\d.k]+[^\n]* · \d+s\n\n›/);
    expect(text).not.toContain("(session");
    // Ctrl-O: the transcript, the whole output in it (issue 40: everything in the session, scrollable).
    term.keys("C-o");
    await term.waitFor((s) => s.includes("transcript ·") && s.includes("400 passed, 0 failed"), "the transcript");
    term.keys("/");
    term.keys("-l", "test line 200");
    term.keys("Enter");
    await term.waitFor((s) => /^ {4}test line 200$/m.test(s), "the whole output, searched");
    term.keys("q");
    await term.waitFor((s) => !s.includes("transcript ·") && /tests ran[\s\S]*›/.test(s), "the prompt as it was");
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)(
  "issue 27 small fixes: /model with one match switches, /compact says why it did nothing and force compacts, /plan twice with no plan accepts nothing",
  async () => {
    using term = gongTerminal(ws);
    fake = await startFakeLlm({ script: [{ text: "first answer" }, { text: "Summary of the chat so far." }] });
    term.start([...WIRE_APIS[0].flags(fake), "--approval", "auto"], { columns: 100 });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    // The model in use: nothing to switch (and nothing recorded).
    term.keys("/model haiku-4-5", "Enter");
    await term.waitFor(
      (s) => s.includes("model: anthropic/claude-haiku-4-5 (already in use)"),
      "the model already in use",
    );
    term.keys("/model opus-4-1", "Enter");
    await term.waitFor((s) => s.includes("model: anthropic/claude-opus-4-1\n"), "the switch on a single match");
    term.keys("/model claude-haiku-4-5", "Enter");
    await term.waitFor((s) => s.includes("model: anthropic/claude-haiku-4-5\n"), "the switch back");
    term.keys("/plan", "Enter");
    await term.waitFor((s) => s.includes("plan mode: the model only reads"), "plan mode");
    term.keys("/plan", "Enter");
    const left = await term.waitFor((s) => s.includes("plan mode left without a plan; tools: "), "plan mode left");
    expect(left).not.toContain("plan accepted");
    term.keys("hello", "Enter");
    const answered = await term.waitFor(
      (s) => s.includes("first answer") && /↑[^\n]*\n\n›/.test(s),
      "the answer, a blank line and the prompt",
    );
    expect(answered).toMatch(/first answer\n↑ [^\n]* · \d+s\n\n›/);
    term.keys("/compact", "Enter");
    await term.waitFor(
      (s) =>
        /nothing to compact: the whole conversation \(\d+ tokens\) fits in the recent part kept as it is; \/compact force summarises it anyway\./.test(
          s.replace(/\n/g, " "),
        ),
      "why nothing was compacted",
    );
    term.keys("/compact force", "Enter");
    await term.waitFor((s) => /compacted: [\d.k]+ → [\d.k]+ tokens\./.test(s), "the forced compaction");
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)(
  "issue 27: typing while the answer streams and a command runs: output keeps coming above the typed line, no word split, the command completes, the steer arrives next turn",
  async () => {
    using term = gongTerminal(ws);
    const words = Array.from({ length: 60 }, (_, i) => `word${i}x`);
    const command = `touch command-started && ${longCommand()}`;
    fake = await startFakeLlm({
      script: [
        {
          text: `${words.join(" ")}\n`,
          chunkSize: 4,
          chunkDelayMs: 40,
          toolCalls: [{ name: "bash", arguments: { command } }],
        },
        { text: "steer received" },
      ],
    });
    term.start([...WIRE_APIS[0].flags(fake), "--approval", "auto"], { columns: 60 });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("stream please", "Enter");
    await term.waitFor((s) => s.includes("word3x"), "the answer streaming");
    term.keys("stop and summarise");
    await term.waitFor((s) => s.includes("↳ stop and summarise"), "the typed line");
    // The answer keeps streaming while the line is typed, the line staying drawn below it.
    const later = await term.waitFor((s) => s.includes("word59x"), "the rest of the answer while typing");
    expect(later.trimEnd().split("\n").at(-1)).toContain("↳ stop and summarise");
    await term.waitFor(() => existsSync(join(ws.dir, "command-started")), "the command to start");
    term.keys("Enter");
    await term.waitFor((s) => /\n↳ stop and summarise\s*$/.test(s), "the line waiting under the live status");
    release();
    const text = await term.waitFor((s) => s.includes("steer received") && s.includes("↑"), "the next turn");
    // The command ran to its end, and the steer reached the model in the next request, shown as the user's turn there.
    expect(text).toMatch(/⎿ exit 0 · 2 lines/);
    expect(text).not.toContain("aborted");
    expect(JSON.stringify(fake.requests[1].body.messages)).toContain("stop and summarise");
    expect(text).toMatch(/finished-the-wait\n(?:.*\n)*› stop and summarise\n(?:.*\n)*steer received/);
    // Every word whole and once.
    const tokens = text.split(/\s+/);
    for (const word of words) expect(tokens.filter((t) => t === word).length).toBe(1);
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)(
  "issue 27: an edit shows its diff with line numbers and a +1 −1 summary, no ---/+++/@@ headers",
  async () => {
    using term = gongTerminal(ws);
    writeFileSync(join(ws.dir, "notes.txt"), "one\ntwo\nthree\nfour\n");
    fake = await startFakeLlm({
      script: [
        { toolCalls: [{ name: "edit", arguments: { path: "notes.txt", old_text: "three", new_text: "THREE" } }] },
        { text: "edited" },
      ],
    });
    term.start([...WIRE_APIS[0].flags(fake), "--approval", "auto"], { columns: 60 });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("edit it", "Enter");
    const text = await term.waitFor((s) => s.includes("edited") && s.includes("↑"), "the answer");
    expect(text).toMatch(/⎿ [^\n]*· \+1 −1\n/);
    expect(text).toMatch(/\n {4}2 {2}two\n {4}3 -three\n {4}3 \+THREE\n {4}4 {2}four\n/);
    expect(text).not.toMatch(/^\s*(---|\+\+\+|@@)/m);
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

for (const columns of [40, 100]) {
  test.skipIf(!hasTmux)(
    `issue 27: at ${columns} columns an answered approval collapses to one line naming the decision`,
    async () => {
      using term = gongTerminal(ws);
      fake = await startFakeLlm({
        script: [
          { toolCalls: [{ name: "bash", arguments: { command: "echo allowed-one" } }] },
          { toolCalls: [{ name: "bash", arguments: { command: "echo declined-two" } }] },
          { text: "both answered" },
        ],
      });
      term.start([...WIRE_APIS[0].flags(fake), "--approval", "ask"], { columns });
      await term.waitFor((s) => s.includes("›"), "the prompt");
      term.keys("run two", "Enter");
      await term.waitFor((s) => s.includes("❯ 1. Yes") && s.includes("echo allowed-one"), "the first question");
      term.keys("y");
      await term.waitFor((s) => s.includes("❯ 1. Yes") && s.includes("echo declined-two"), "the second question");
      term.keys("n not now", "Enter");
      const text = await term.waitFor((s) => s.includes("both answered") && s.includes("↑"), "the answer");
      expect(text).not.toContain("1. Yes");
      expect(text).not.toContain("run this command?");
      expect(text.replace(/\n/g, " ")).toContain("✓ allowed: $ echo allowed-one");
      expect(text.replace(/\n/g, " ")).toContain("✗ declined: $ echo declined-two — not now");
      expect(repeatedRows(text)).toEqual([]);
      term.keys("/quit", "Enter");
      await term.waitFor(() => !term.alive(), "gong to exit");
    },
  );
}

test.skipIf(!hasTmux)(
  "issue 27: a 200-line paste shows as [pasted 200 lines] in the input and reaches the model whole",
  async () => {
    using term = gongTerminal(ws);
    fake = await startFakeLlm({ script: [{ text: "got the paste" }] });
    term.start([...WIRE_APIS[0].flags(fake), "--approval", "auto"], { columns: 60 });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    const pasted = Array.from({ length: 200 }, (_, i) => `pasted row ${i + 1}`).join("\n");
    term.keys("-l", "look at this: ");
    term.paste(pasted);
    await term.waitFor((s) => s.includes("› look at this: [pasted 200 lines]"), "the paste's mark in the input");
    term.keys("Enter");
    const text = await term.waitFor((s) => s.includes("got the paste") && s.includes("↑"), "the answer");
    expect(text).not.toContain("pasted row");
    expect(text.split("\n").filter((l) => l.startsWith("› look at this: [pasted 200 lines]")).length).toBe(1);
    const sent = JSON.stringify(fake.requests[0].body.messages);
    expect(sent).toContain("look at this: pasted row 1\\npasted row 2");
    expect(sent).toContain("pasted row 200");
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)(
  "issue 27: !ls runs the command at once, shows its output, and adds it to the next message",
  async () => {
    using term = gongTerminal(ws);
    writeFileSync(join(ws.dir, "listed-file.txt"), "x");
    fake = await startFakeLlm({ script: [{ text: "saw the listing" }] });
    term.start([...WIRE_APIS[0].flags(fake), "--approval", "ask"], { columns: 60 });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("!ls", "Enter");
    await term.waitFor((s) => s.includes("$ ls\n") && s.includes("  listed-file.txt"), "the command's output");
    // No question and no model call: the user ran it.
    expect(term.screen()).not.toContain("run this command?");
    expect(fake.requests.length).toBe(0);
    term.keys("what is there?", "Enter");
    await term.waitFor((s) => s.includes("saw the listing"), "the answer");
    const sent = JSON.stringify(fake.requests[0].body.messages);
    expect(sent).toContain("<bash-input>ls</bash-input>");
    expect(sent).toMatch(/<bash-stdout>[^<]*listed-file\.txt[^<]*<\/bash-stdout>\\n\\nwhat is there\?/);
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)(
  "issue 27: a 3-column table at 40 columns shrinks its columns and wraps inside its cells",
  async () => {
    using term = gongTerminal(ws);
    const table = [
      "| Tool | What it does | Where it runs |",
      "|---|---|---|",
      "| bash | runs a shell command in the project directory | sandbox |",
      "| edit | replaces exact text in one file | workspace |",
      "",
      "table done",
    ].join("\n");
    fake = await startFakeLlm({ script: [{ text: table, chunkSize: 6, chunkDelayMs: 5 }] });
    term.start([...WIRE_APIS[0].flags(fake), "--approval", "auto"], { columns: 40, color: true });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("show a table", "Enter");
    const text = await term.waitFor((s) => s.includes("table done") && s.includes("↑"), "the table");
    const rows = text.split("\n").filter((l) => l.includes("│"));
    // Every row of the table is a row of three cells: nothing wrapped by the terminal mid-cell.
    expect(rows.length).toBeGreaterThan(4);
    for (const row of rows) expect(row.split("│").length).toBe(3);
    // The separators line up.
    const at = rows[0].indexOf("│");
    for (const row of rows) expect(row.indexOf("│")).toBe(at);
    // The words are whole, each in its column.
    const words = rows.flatMap((r) => r.split(/[\s│]+/)).filter(Boolean);
    for (const word of "runs a shell command in the project directory replaces exact text in one file".split(" "))
      expect(words).toContain(word);
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)("issue 27: with the notify setting a turn's end is told to the terminal with OSC 9", async () => {
  using term = gongTerminal(ws);
  mkdirSync(join(ws.dir, ".gong"), { recursive: true });
  writeFileSync(join(ws.dir, ".gong", "settings.json"), JSON.stringify({ notify: { with: "osc9", afterSeconds: 0 } }));
  fake = await startFakeLlm({ script: [{ text: "first done" }] });
  const raw = join(ws.dir, "terminal.raw");
  term.start([...WIRE_APIS[0].flags(fake), "--approval", "auto"], { columns: 80 });
  await term.waitFor((s) => s.includes("›"), "the prompt");
  term.record(raw);
  term.keys("go", "Enter");
  await term.waitFor((s) => s.includes("first done") && s.includes("↑"), "the answer");
  await term.waitFor(
    () => existsSync(raw) && readFileSync(raw, "utf8").includes("\x1b]9;gong: the turn is done"),
    "the OSC 9 notification",
  );
  term.keys("/quit", "Enter");
  await term.waitFor(() => !term.alive(), "gong to exit");
});

test.skipIf(!hasTmux)(
  "issue 27: Esc at a question shows the declined call's line first, then interrupted",
  async () => {
    using term = gongTerminal(ws);
    fake = await startFakeLlm({
      script: [{ toolCalls: [{ name: "bash", arguments: { command: "echo never-run" } }] }, { text: "next one" }],
    });
    term.start([...WIRE_APIS[0].flags(fake), "--approval", "ask"], { columns: 80 });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("run it", "Enter");
    await term.waitFor((s) => s.includes("❯ 1. Yes"), "the question");
    term.keys("Escape");
    const text = await term.waitFor(
      (s) => /● bash {2}echo never-run[\s\S]*\ninterrupted\n/.test(s),
      "the call's line, then interrupted",
    );
    expect(text.indexOf("interrupted")).toBeGreaterThan(text.indexOf("● bash  echo never-run"));
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)("issue 27: a server that fails three times leaves one retry line, not three", async () => {
  using term = gongTerminal(ws);
  mkdirSync(join(ws.dir, ".gong"), { recursive: true });
  writeFileSync(
    join(ws.dir, ".gong", "settings.json"),
    JSON.stringify({ retry: { maxRetries: 3, baseDelayMs: 200, maxDelayMs: 400 } }),
  );
  const down = { fault: { type: "http" as const, status: 503, message: "server down" } };
  fake = await startFakeLlm({ script: [down, down, down, { text: "back up" }] });
  term.start([...WIRE_APIS[0].flags(fake), "--approval", "auto"], { columns: 60 });
  await term.waitFor((s) => s.includes("›"), "the prompt");
  term.keys("hello", "Enter");
  const text = await term.waitFor((s) => s.includes("back up") && s.includes("↑"), "the answer after the retries");
  expect(fake.requests.length).toBe(4);
  expect(text.split("\n").filter((l) => l.includes("retrying in")).length).toBe(1);
  expect(text).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
  term.keys("/quit", "Enter");
  await term.waitFor(() => !term.alive(), "gong to exit");
});

test.skipIf(!hasTmux)("issue 27: Ctrl-G opens the input in $EDITOR and takes back what the editor saved", async () => {
  using term = gongTerminal(ws);
  fake = await startFakeLlm({ script: [{ text: "got the edited input" }] });
  // An editor that changes the file and exits, as a person would after editing.
  term.start([...WIRE_APIS[0].flags(fake), "--approval", "auto"], {
    columns: 60,
    env: { EDITOR: "sed -i s/draft/finished-text/" },
  });
  await term.waitFor((s) => s.includes("›"), "the prompt");
  term.keys("-l", "my draft here");
  await term.waitFor((s) => s.includes("› my draft here"), "the typed input");
  term.keys("C-g");
  await term.waitFor((s) => s.includes("› my finished-text here"), "the edited input");
  term.keys("Enter");
  await term.waitFor((s) => s.includes("got the edited input"), "the answer");
  expect(JSON.stringify(fake.requests[0].body.messages)).toContain("my finished-text here");
  term.keys("/quit", "Enter");
  await term.waitFor(() => !term.alive(), "gong to exit");
});

test.skipIf(!hasTmux)(
  "issue 27: typing / opens a menu of the matching commands; Down selects, Enter runs the selected one",
  async () => {
    using term = gongTerminal(ws);
    fake = await startFakeLlm({ script: [{ text: "unused" }] });
    term.start([...WIRE_APIS[0].flags(fake), "--approval", "auto"], { columns: 80 });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("-l", "/p");
    const menu = await term.waitFor((s) => /\n› \/profile[^\n]*\n {2}\/plan/.test(s), "the menu under the input");
    expect(menu.slice(menu.indexOf("› /p\n"))).not.toContain("/help");
    term.keys("Down");
    await term.waitFor((s) => /\n {2}\/profile[^\n]*\n› \/plan/.test(s), "the second command selected");
    term.keys("Enter");
    await term.waitFor((s) => s.includes("plan mode: the model only reads"), "the selected command run");
    // Typing narrows it; a space closes it.
    term.keys("-l", "/mod");
    await term.waitFor((s) => /\n› \/model/.test(s), "the narrowed menu");
    term.keys("-l", " x");
    await term.waitFor((s) => !/\n› \/model/.test(s) && s.includes("› /mod x"), "the menu closed");
    term.keys("C-u");
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
    expect(fake.requests.length).toBe(0);
  },
);

test.skipIf(!hasTmux)("issue 27: markdown before a tool call is committed rendered, not left raw", async () => {
  using term = gongTerminal(ws);
  fake = await startFakeLlm({
    script: [
      {
        text: "Let me run `the-check` with **care**",
        chunkSize: 3,
        chunkDelayMs: 5,
        toolCalls: [{ name: "bash", arguments: { command: "echo checked" } }],
      },
      { text: "checked it" },
    ],
  });
  term.start([...WIRE_APIS[0].flags(fake), "--approval", "auto"], { columns: 80, color: true });
  await term.waitFor((s) => s.includes("›"), "the prompt");
  term.keys("check", "Enter");
  const text = await term.waitFor((s) => s.includes("checked it") && s.includes("↑"), "the answer");
  expect(text).toContain("Let me run the-check with care");
  expect(text).not.toContain("`the-check`");
  expect(text).not.toContain("**care**");
  term.keys("/quit", "Enter");
  await term.waitFor(() => !term.alive(), "gong to exit");
});

test.skipIf(!hasTmux)(
  "issue 27: a command an allow rule lets pass is marked with the rule on its result line",
  async () => {
    using term = gongTerminal(ws);
    mkdirSync(join(ws.env.HOME, ".gong"), { recursive: true });
    writeFileSync(
      join(ws.env.HOME, ".gong", "settings.json"),
      JSON.stringify({ permissions: { allow: ["Bash(echo ruled *)"] } }),
    );
    fake = await startFakeLlm({
      script: [
        { toolCalls: [{ name: "bash", arguments: { command: "echo ruled here" } }] },
        { text: "ran by the rule" },
      ],
    });
    term.start([...WIRE_APIS[0].flags(fake), "--approval", "ask"], { columns: 100 });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("run it", "Enter");
    const text = await term.waitFor((s) => s.includes("ran by the rule") && s.includes("↑"), "the answer");
    expect(text).not.toContain("1. Yes");
    expect(text).toMatch(/⎿ exit 0 · 1 line · allowed by Bash\(echo ruled \*\)/);
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)("issue 27: a 401 line says which key was rejected and what to do", async () => {
  using term = gongTerminal(ws);
  fake = await startFakeLlm({ script: [{ fault: { type: "http", status: 401, message: "invalid x-api-key" } }] });
  term.start([...WIRE_APIS[0].flags(fake), "--approval", "auto"], { columns: 100 });
  await term.waitFor((s) => s.includes("›"), "the prompt");
  term.keys("hello", "Enter");
  const text = await term.waitFor((s) => s.replace(/\n/g, " ").includes("and type again"), "the error line");
  expect(text.replace(/\n/g, " ")).toMatch(
    /error: [^\n]*invalid x-api-key — the key given with --api-key or the settings' apiKeys was rejected: set a valid one \(or \/model another\) and type again/,
  );
  term.keys("/quit", "Enter");
  await term.waitFor(() => !term.alive(), "gong to exit");
});
