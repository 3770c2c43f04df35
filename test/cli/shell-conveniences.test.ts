/**
 * Issue 40, the peers' daily conveniences in a real terminal (./terminal.ts): the session picker,
 * the transcript view, a command moved to the background and /tasks, /diff, /context, /usage,
 * /copy and /export — at 60 and 100 columns, colours on and off where the drawing differs. Each
 * test has a tmux server of its own, killed afterwards.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sessionDir } from "../../lib/store/paths.ts";
import { writeSessionFiles } from "../../lib/testing/session-files.ts";
import { startFakeLlm, useWorkspace, WIRE_APIS } from "./helpers.ts";
import { gongTerminal } from "./terminal.ts";
import { until } from "../helpers/wait.ts";

// A terminal test waits for many screens; on a crowded machine each may take seconds.
setDefaultTimeout(180_000);

const hasTmux = Bun.spawnSync(["which", "tmux"]).exitCode === 0;
const ws = useWorkspace();
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

/** A command that prints a line and runs until the test writes the release file (or 60 s pass). */
const waitingCommand = (name: string) =>
  `echo started-${name} && for _ in $(seq 6000); do [ -e release-${name} ] && break; sleep 0.01; done && echo finished-${name}`;
const release = (name: string) => writeFileSync(join(ws.dir, `release-${name}`), "");

for (const { columns, color, count } of [
  { columns: 100, color: false, count: 10_000 },
  { columns: 60, color: true, count: 40 },
]) {
  test.skipIf(!hasTmux)(
    `issue 40 session picker: gong -r alone picks among ${count} sessions at ${columns} columns (colours ${color ? "on" : "off"}): newest first, names, branches, a preview, search, Enter resumes`,
    async () => {
      writeSessionFiles({
        home: ws.env.GONG_HOME,
        cwd: ws.dir,
        count,
        nameEvery: 10,
        input: (i) => (i === Math.floor(count / 3) ? "the needle deep in the list" : `task number ${i}`),
      });
      const fake = await startFakeLlm({ script: [{ text: "picked up where we left" }] });
      using term = gongTerminal(ws);
      term.start([...WIRE_APIS[0].flags(fake), "-r"], { columns, rows: 30, color });
      const list = await term.waitFor((s) => s.includes(`Resume a session (${count} here)`), "the picker");
      // The newest session first, with its branch; the list is cut to the width, one row each.
      expect(list).toContain(`task number ${count - 1}`);
      expect(list).toContain("⎇ main");
      for (const row of list.split("\n")) expect(Bun.stringWidth(row.replace(ANSI, ""))).toBeLessThanOrEqual(columns);
      // The preview shows the selected session's last messages.
      expect(list).toContain(`answer number ${count - 1}`);
      term.keys("-l", "needle");
      await term.waitFor((s) => /❯ .*the needle deep in the list/.test(s), "the search finding the session");
      term.keys("Enter");
      await term.waitFor((s) => s.includes("continuing session") && s.includes("› the needle"), "the resumed session");
      term.keys("-l", "go on");
      term.keys("Enter");
      await term.waitFor((s) => s.includes("picked up where we left"), "the answer in the resumed session");
      const conversation = JSON.stringify(fake.requests[0].body.messages);
      expect(conversation).toContain("the needle deep in the list");
      term.keys("/quit", "Enter");
      await term.waitFor(() => !term.alive(), "gong to exit");
    },
  );
}

test.skipIf(!hasTmux)(
  "issue 40 session picker: /resume lists a corrupt session file as damaged; choosing it says what could not be read and the shell goes on; Esc leaves",
  async () => {
    const [older] = writeSessionFiles({ home: ws.env.GONG_HOME, cwd: ws.dir, count: 2, nameEvery: 1 });
    const dir = sessionDir(ws.dir, { home: ws.env.GONG_HOME });
    writeFileSync(join(dir, "2099-01-01T00-00-00-000Z_corrupt.jsonl"), "\x00\x01 this is not a session\n{{{\n");
    const fake = await startFakeLlm({ script: [{ text: "still here" }] });
    using term = gongTerminal(ws);
    term.start([...WIRE_APIS[0].flags(fake)], { columns: 100 });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("/resume", "Enter");
    const list = await term.waitFor((s) => s.includes("Resume a session (3 here)"), "the picker");
    expect(list).toMatch(/corrupt\.jsonl.*damaged/);
    term.keys("Escape");
    await term.waitFor((s) => s.includes("no session chosen."), "Esc leaving the picker");
    term.keys("/resume", "Enter");
    await term.waitFor((s) => s.includes("Resume a session (3 here)"), "the picker again");
    term.keys("Enter");
    // Opened as far as it can be: what could not be read is said, a line each.
    const opened = await term.waitFor((s) => s.includes("resumed corrupt (0 messages)"), "the damaged session opened");
    expect(opened).toContain("is not a readable session header");
    term.keys("hello", "Enter");
    await term.waitFor((s) => s.includes("still here"), "the shell going on");
    expect(existsSync(older)).toBe(true);
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

for (const { columns, color } of [
  { columns: 100, color: false },
  { columns: 60, color: true },
]) {
  test.skipIf(!hasTmux)(
    `issue 40 transcript: a resumed answer's hidden lines are seen with Ctrl-O — scrollable, / searches, q comes back — at ${columns} columns (colours ${color ? "on" : "off"})`,
    async () => {
      const long = Array.from({ length: 60 }, (_, i) => `Paragraph line ${i + 1} of the long answer.`).join("\n\n");
      const fake = await startFakeLlm({
        script: [
          { toolCalls: [{ name: "bash", arguments: { command: "seq 1 30 | sed 's/^/out-/'" } }] },
          { text: long },
        ],
      });
      const flags = WIRE_APIS[0].flags(fake);
      const first = await ws.run([...flags, "-p", "write a long answer"]);
      expect(first.code).toBe(0);
      using term = gongTerminal(ws);
      term.start([...flags, "-c"], { columns, rows: 30, color });
      const resumed = await term.waitFor(
        (s) => s.includes("more lines of this answer (Ctrl-O shows them)"),
        "the cut answer",
      );
      expect(resumed).not.toContain("Paragraph line 60 ");
      term.keys("C-o");
      const view = await term.waitFor((s) => /transcript · \d+ messages/.test(s), "the transcript view");
      // Opened at the end: the last line of the answer.
      expect(view).toContain("Paragraph line 60 of the long answer.");
      term.keys("g");
      await term.waitFor((s) => s.includes("› write a long answer"), "the top of the transcript");
      // Everything: the command's whole output is in it.
      term.keys("/");
      term.keys("-l", "out-17");
      term.keys("Enter");
      const found = await term.waitFor((s) => /^\s+out-17$/m.test(s.replace(ANSI, "")), "the search's match");
      expect(found).toContain('n N: next "out-17"');
      term.keys("q");
      const back = await term.waitFor(
        (s) => s.includes("continuing session") && !s.includes("transcript ·"),
        "the shell back",
      );
      expect(back).toContain("more lines of this answer (Ctrl-O shows them)");
      term.keys("/quit", "Enter");
      await term.waitFor(() => !term.alive(), "gong to exit");
    },
  );
}

test.skipIf(!hasTmux)(
  "issue 40 transcript: opened while an answer streams, the answer goes on behind it and is all there, once, when the view closes",
  async () => {
    const words = Array.from({ length: 120 }, (_, i) => `w${i}`).join(" ");
    const fake = await startFakeLlm({ script: [{ text: `${words} the-end`, chunkSize: 8, chunkDelayMs: 20 }] });
    using term = gongTerminal(ws);
    term.start([...WIRE_APIS[0].flags(fake)], { columns: 100 });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("stream it", "Enter");
    await term.waitFor((s) => s.includes("w3 "), "the answer streaming");
    term.keys("C-o");
    await term.waitFor((s) => /transcript · \d+ messages/.test(s), "the transcript over the stream");
    // The answer ends behind the view: the session file has it.
    const dir = sessionDir(ws.dir, { home: ws.env.GONG_HOME });
    await until(() => {
      const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".jsonl")) : [];
      return files.some((f) => readFileSync(join(dir, f), "utf8").includes("the-end"));
    }, "the answer recorded");
    term.keys("q");
    const back = await term.waitFor((s) => s.includes("the-end") && s.includes("↑"), "the whole answer in the shell");
    expect(back).not.toContain("transcript ·");
    expect(back.split("the-end").length).toBe(2);
    for (const word of ["w0", "w60", "w119"]) expect(back.split(/\s+/)).toContain(word);
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)(
  "issue 40 background: Ctrl-B moves the running command to the background, the model is told its task id, /tasks lists it, shows its output and stops it",
  async () => {
    const fake = await startFakeLlm({
      script: [
        { toolCalls: [{ name: "Bash", arguments: { command: waitingCommand("bg") } }] },
        { text: "left it running" },
      ],
    });
    using term = gongTerminal(ws);
    term.start([...WIRE_APIS[0].flags(fake).slice(0, -1), "anthropic", "--approval", "auto"], { columns: 100 });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("start the server", "Enter");
    await term.waitFor((s) => s.includes("started-bg"), "the command running");
    term.keys("C-b");
    await term.waitFor(
      (s) => s.includes("moved to the background · task 1000") && s.includes("left it running"),
      "the move",
    );
    expect(JSON.stringify(fake.requests[1].body.messages)).toContain(
      "The user moved this command to the background; it is still running with ID: 1000",
    );
    term.keys("/tasks", "Enter");
    await term.waitFor((s) => /1000\s+running/.test(s), "the task listed as running");
    term.keys("/tasks 1000", "Enter");
    await term.waitFor((s) => /task 1000 · running[\s\S]*started-bg/.test(s), "the task's output");
    term.keys("/tasks stop 1000", "Enter");
    await term.waitFor((s) => s.includes("stopped task 1000"), "the task stopped");
    term.keys("/tasks", "Enter");
    await term.waitFor((s) => /1000\s+stopped/.test(s), "the task listed as stopped");
    release("bg");
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)(
  "issue 40 reports: /diff shows this session's changes, /context what fills the window, /usage the tokens and cost, /copy the last answer, /export markdown and HTML",
  async () => {
    writeFileSync(join(ws.dir, "kept.txt"), "alpha\nbeta\n");
    const fake = await startFakeLlm({
      script: [
        { toolCalls: [{ name: "write", arguments: { path: "notes.txt", content: "one\ntwo\n" } }] },
        { toolCalls: [{ name: "edit", arguments: { path: "kept.txt", old_text: "beta", new_text: "gamma" } }] },
        { text: "The answer to copy." },
      ],
    });
    using term = gongTerminal(ws);
    term.start([...WIRE_APIS[0].flags(fake), "--approval", "auto"], { columns: 100 });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.tmux("set-option", "-g", "set-clipboard", "on");
    term.keys("change things", "Enter");
    await term.waitFor((s) => s.includes("The answer to copy.") && s.includes("↑"), "the answer");
    term.keys("/diff", "Enter");
    const diff = await term.waitFor((s) => s.includes("2 files changed since the session began"), "the diff");
    expect(diff).toMatch(/M kept\.txt \+1 −1/);
    expect(diff).toMatch(/A notes\.txt \+2 −0/);
    expect(diff).toContain("-beta");
    expect(diff).toContain("+gamma");
    term.keys("/context", "Enter");
    const context = await term.waitFor((s) => s.includes("tool results (2)") && s.includes("free"), "the context");
    expect(context).toMatch(/system prompt\s+[\d.k]+\s+[\d.]+%/);
    term.keys("/usage", "Enter");
    await term.waitFor((s) => /3 calls · input \d+/.test(s), "the usage");
    term.keys("/copy", "Enter");
    await term.waitFor((s) => s.includes("to the clipboard through the terminal (OSC 52)"), "the copy");
    expect(readFileSync(join(ws.env.GONG_HOME, "clipboard.md"), "utf8")).toBe("The answer to copy.\n");
    // tmux takes OSC 52 into its own buffer when set-clipboard is on.
    expect(term.tmux("show-buffer")).toBe("The answer to copy.");
    term.keys("/export markdown out.md", "Enter");
    await term.waitFor((s) => s.includes(`wrote ${join(ws.dir, "out.md")}`), "the markdown export");
    term.keys("/export html out.html", "Enter");
    await term.waitFor((s) => s.includes(`wrote ${join(ws.dir, "out.html")}`), "the HTML export");
    expect(readFileSync(join(ws.dir, "out.md"), "utf8")).toContain("The answer to copy.");
    expect(readFileSync(join(ws.dir, "out.html"), "utf8")).toMatch(/<html[\s\S]*The answer to copy\./);
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)(
  "issue 40 queued messages: Up while gong works brings the queued steering line back into the input; the edited line is what the model reads",
  async () => {
    const fake = await startFakeLlm({
      script: [{ toolCalls: [{ name: "bash", arguments: { command: waitingCommand("q") } }] }, { text: "steered" }],
    });
    using term = gongTerminal(ws);
    term.start([...WIRE_APIS[0].flags(fake), "--approval", "auto"], { columns: 100 });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("work on it", "Enter");
    await term.waitFor((s) => s.includes("started-q"), "the command running");
    term.keys("-l", "first idea");
    term.keys("Enter");
    await term.waitFor((s) => s.includes("first idea"), "the steering line sent");
    term.keys("Up");
    await term.waitFor((s) => /↳ first idea\s*$/m.test(s), "the queued line back in the input");
    term.keys("C-u");
    term.keys("-l", "better idea");
    term.keys("Enter");
    await term.waitFor((s) => s.includes("better idea"), "the edited line sent");
    release("q");
    await term.waitFor((s) => s.includes("steered") && s.includes("↑"), "the answer");
    const last = JSON.stringify(fake.requests[1].body.messages);
    expect(last).toContain("better idea");
    expect(last).not.toContain("first idea");
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);
