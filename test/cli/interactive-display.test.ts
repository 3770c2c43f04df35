/**
 * The interactive shell in a real terminal, continued: markdown and colour, rate limits and /name,
 * reasoning, continuity (-c, /new), /plan, long lines, resizes of the idle terminal, and stop
 * reasons. tmux runs `gong`, send-keys types, capture-pane reads the screen (./terminal.ts).
 */
import { expect, test, setDefaultTimeout } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { startFakeLlm, WIRE_APIS, useWorkspace } from "./helpers.ts";
import { gongTerminal } from "./terminal.ts";

// A terminal test waits for many screens; on a crowded machine each may take seconds.
setDefaultTimeout(120_000);

const hasTmux = Bun.spawnSync(["which", "tmux"]).exitCode === 0;

const ws = useWorkspace();
let fake: FakeLlm;

/** Tests of other behaviour run their commands without being asked. */
const auto = (args: string[]) => [...args, "--approval", "auto"];

test.skipIf(!hasTmux)(
  "cli interactive: an answer's markdown is rendered in color, and laid out without escapes under NO_COLOR",
  async () => {
    using term = gongTerminal(ws);
    const answer = "## Summary\nFixed **calc.py**: run `pytest`.\n- one change\n```py\nx = 1  # **kept**\n```\nDone.";
    fake = await startFakeLlm({ script: [{ text: answer, chunkSize: 4, chunkDelayMs: 5 }, { text: answer }] });
    term.start(auto(WIRE_APIS[0].flags(fake)), { columns: 80, color: true });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("summarise", "Enter");
    const text = await term.waitFor((s) => s.includes("Done.") && s.includes("↑"), "the rendered answer");
    expect(text).toMatch(/^Summary$/m);
    expect(text).toContain("Fixed calc.py: run pytest.");
    expect(text).toContain("• one change");
    expect(text).toMatch(/╭─ py\n│ x = 1 {2}# \*\*kept\*\*\n╰─/);
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");

    term.start(auto(WIRE_APIS[0].flags(fake)), { columns: 80 });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("again", "Enter");
    // Without colors the answer is laid out all the same; inline code keeps its marks.
    const plain = await term.waitFor((s) => s.includes("Done.") && s.includes("↑"), "the plain answer");
    expect(plain).toMatch(/^Summary$/m);
    expect(plain).toContain("Fixed calc.py: run `pytest`.");
    expect(plain).toMatch(/╭─ py\n│ x = 1 {2}# \*\*kept\*\*\n╰─/);
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)(
  "cli interactive: a rate limit being waited out is one line; /name names the session for -r",
  async () => {
    using term = gongTerminal(ws);
    fake = await startFakeLlm({
      script: [{ fault: { type: "http", status: 429, retryAfterMs: 800 } }, { text: "after the wait" }],
    });
    term.start(auto(WIRE_APIS[0].flags(fake)));
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("hello", "Enter");
    const text = await term.waitFor((s) => s.includes("after the wait"), "the answer after the wait");
    expect(text.split("\n").filter((l) => l.includes("retrying in 1 s (attempt 1): anthropic 429")).length).toBe(1);
    // The live line was erased before the retry line: no spinner frame is left in the scrollback.
    expect(text).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    term.keys("/name my-feature", "Enter");
    await term.waitFor((s) => s.includes("name: my-feature"), "the /name answer");
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
    const list = await ws.run(["sessions"]);
    expect(list.stdout).toContain("my-feature");
  },
);

test.skipIf(!hasTmux)(
  "cli interactive: the model's reasoning is shown before its answer, and not with showThinking false",
  async () => {
    using term = gongTerminal(ws);
    fake = await startFakeLlm({
      script: [
        { thinking: "weighing the two options", text: "option two" },
        { thinking: "hidden musing", text: "option one" },
      ],
    });
    term.start(auto(WIRE_APIS[0].flags(fake)));
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("pick one", "Enter");
    const text = await term.waitFor((s) => s.includes("option two") && s.includes("↑"), "the answer");
    expect(text).toMatch(/weighing the two options\noption two/);
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");

    mkdirSync(join(ws.dir, ".gong"), { recursive: true });
    writeFileSync(join(ws.dir, ".gong", "settings.json"), JSON.stringify({ showThinking: false }));
    term.start(auto(WIRE_APIS[0].flags(fake)));
    await term.waitFor((s) => s.includes("›"), "the prompt again");
    term.keys("pick again", "Enter");
    const quiet = await term.waitFor((s) => s.includes("option one") && s.includes("↑"), "the second answer");
    expect(quiet).not.toContain("hidden musing");
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)(
  "cli interactive continuity: -c shows the earlier transcript, leaving prints the resume command, /compact on a short chat is one line, /new resets the totals",
  async () => {
    using term = gongTerminal(ws);
    fake = await startFakeLlm({
      script: [
        { toolCalls: [{ name: "bash", arguments: { command: "echo from-the-first-run" } }] },
        { text: "The pelican is noted." },
        { text: "Still here after -c." },
        { text: "A fresh start." },
      ],
    });
    term.start(auto(WIRE_APIS[0].flags(fake)), { keepPane: true });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("remember the pelican", "Enter");
    await term.waitFor((s) => s.includes("The pelican is noted.") && s.includes("↑"), "the first answer");
    term.keys("/quit", "Enter");
    const left = await term.waitFor(
      (s) => /\nresume this session: gong -r [0-9a-f-]{36}\n/.test(s) && term.exited(),
      "the resume command",
    );
    const id = /gong -r ([0-9a-f-]{36})/.exec(left)![1];
    expect((await ws.run(["sessions"])).stdout).toContain(id.slice(0, 8));
    term.close();

    term.start(auto([...WIRE_APIS[0].flags(fake), "-c"]), { keepPane: true });
    const shown = await term.waitFor(
      (s) => /The pelican is noted\.\n›/.test(s),
      "the earlier transcript above the prompt",
    );
    // The earlier turn as it looked live: the input, the tool line and its result, the answer.
    expect(shown).toContain(`continuing session ${id}`);
    expect(shown).toMatch(
      /\n› remember the pelican\n● bash {2}echo from-the-first-run\n {2}⎿ 1 line of output\nThe pelican is noted\.\n/,
    );

    term.keys("/compact", "Enter");
    await term.waitFor((s) => /› \/compact\nnothing to compact: [^\n]+ anyway\.\n›/.test(s), "one line for /compact");
    term.keys("are you there?", "Enter");
    const again = await term.waitFor(
      (s) => s.includes("Still here after -c.") && /Still here after -c\.\n↑/.test(s),
      "the answer after -c",
    );
    expect(JSON.stringify(fake.requests[2].body.messages)).toContain("remember the pelican");
    // The session's totals start from what its file recorded (issue 40: a resumed session has cost something); after /new they start again.
    expect(again.split("\n").findLast((l) => l.startsWith("↑"))).toMatch(/^↑ [^(]+ · \d+s {2}\(session ↑ [^)]+\)$/);
    term.keys("/new", "Enter");
    await term.waitFor((s) => s.includes("new session "), "the /new answer");
    term.keys("start over", "Enter");
    const fresh = await term.waitFor((s) => /A fresh start\.\n↑[^\n]*\n/.test(s), "the answer in the new session");
    expect(fresh.split("\n").findLast((l) => l.startsWith("↑"))).toMatch(/^↑ [^(]+ · \d+s$/);
    expect(JSON.stringify(fake.requests[3].body.messages)).not.toContain("remember the pelican");
    term.keys("/quit", "Enter");
    const second = await term.waitFor(
      (s) => term.exited() && (s.match(/resume this session: gong -r/g) ?? []).length === 1,
      "the second resume command",
    );
    expect(second).not.toContain(`gong -r ${id}`);
    term.close();

    // Without a session file there is nothing to resume.
    term.start(auto([...WIRE_APIS[0].flags(fake), "--no-session"]), { keepPane: true });
    await term.waitFor((s) => s.includes("›"), "the prompt without a session");
    term.keys("/quit", "Enter");
    await term.waitFor(() => term.exited(), "gong to exit");
    expect(term.screen()).not.toContain("gong -r");
  },
);

test.skipIf(!hasTmux)(
  "cli interactive /plan: the model gets only reading tools and the profile's plan tool until the plan is accepted",
  async () => {
    using term = gongTerminal(ws);
    fake = await startFakeLlm({ script: [{ text: "Plan: read the parser, then fix it." }, { text: "Fixed." }] });
    const flags = [
      "--model",
      "anthropic/claude-haiku-4-5",
      "--base-url",
      fake.baseUrls.anthropic,
      "--api-key",
      "test",
      "--profile",
      "anthropic",
    ];
    term.start(auto(flags));
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("/plan", "Enter");
    const entered = await term.waitFor(
      (s) => s.includes("plan mode: the model only reads and plans (tools: "),
      "plan mode",
    );
    await term.waitFor(
      (s) => /\nanthropic\/claude-haiku-4-5 \(anthropic\) · plan mode \(\/plan accepts\) · approval/.test(s),
      "plan mode in the status line",
    );
    const planTools = /\(tools: ([^)]*)\)/.exec(entered)![1].split(", ");
    term.keys("make a plan", "Enter");
    await term.waitFor((s) => s.includes("Plan: read the parser"), "the plan");
    const offered = (fake.requests[0].body.tools as { name: string }[]).map((t) => t.name);
    expect(offered.sort()).toEqual([...planTools].sort());
    expect(offered).toContain("TodoWrite");
    expect(offered).toContain("Read");
    for (const writer of ["Bash", "Edit", "Write"]) expect(offered).not.toContain(writer);

    term.keys("/plan", "Enter");
    await term.waitFor((s) => s.includes("plan accepted; tools: "), "the accepted plan");
    term.keys("go ahead", "Enter");
    await term.waitFor((s) => s.includes("Fixed."), "the answer after the plan");
    const after = (fake.requests[1].body.tools as { name: string }[]).map((t) => t.name);
    for (const writer of ["Bash", "Edit", "Write", "TodoWrite"]) expect(after).toContain(writer);
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)(
  "cli interactive: a failed command's long last line is cut to the terminal's width on its ⎿ line",
  async () => {
    using term = gongTerminal(ws);
    const long = `error: ${"the-build-failed-".repeat(8)}`;
    fake = await startFakeLlm({
      script: [
        { toolCalls: [{ name: "bash", arguments: { command: `echo ${long}; exit 3` } }] },
        { text: "it failed" },
      ],
    });
    term.start(auto(WIRE_APIS[0].flags(fake)), { columns: 40 });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("build it", "Enter");
    const text = await term.waitFor((s) => s.includes("it failed") && s.includes("↑"), "the answer");
    const result = text.split("\n").find((l) => l.includes("⎿"))!;
    expect(result).toMatch(/^ {2}⎿ exit 3 · error: the-build-fai/);
    expect(result.endsWith("…")).toBe(true);
    expect(result.length).toBeLessThan(40);
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)(
  "cli interactive: the status line shortens by whole parts when the idle terminal narrows, leaves when it is too narrow, and comes back when it widens",
  async () => {
    using term = gongTerminal(ws);
    fake = await startFakeLlm({ script: [] });
    term.start(auto(WIRE_APIS[0].flags(fake)), { columns: 100 });
    const statusLine =
      /›[^\n]*\nanthropic\/claude-haiku-4-5 \(default\) · approval: auto \(Shift\+Tab\) · context 0% · \$0\.0000/;
    await term.waitFor((s) => statusLine.test(s), "the status line");
    // Narrower, its parts shorten and leave whole (never cut mid-phrase).
    term.resize(50);
    await term.waitFor(
      (s) => /›\s*\nanthropic\/claude-haiku-4-5 · approval: auto\s*$/.test(s) && !/Shift\+Tab|\$0\.|context \d/.test(s),
      "the status line shortened at 50 columns",
    );
    term.resize(30);
    // No piece of it is left, wrapped or not.
    await term.waitFor(
      (s) => /›\s*$/.test(s) && !/approval|Shift\+Tab|\$0\.|context \d/.test(s),
      "the status line gone at 30 columns",
    );
    term.resize(100);
    const back = await term.waitFor((s) => statusLine.test(s), "the status line back at 100 columns");
    expect(back.match(/approval: auto/g)!.length).toBe(1);
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)(
  "cli interactive: a long markdown line shows while it streams and is redrawn rendered in its place once it ends",
  async () => {
    using term = gongTerminal(ws);
    const paragraph = `Intro **bold** ${"words that keep the line going ".repeat(6)}end.`;
    fake = await startFakeLlm({
      script: [
        {
          text: `${paragraph}\n| k | v |\n|---|--:|\n| alpha | 1 |\n| b | 1000 |\nDone.`,
          chunkSize: 4,
          chunkDelayMs: 25,
        },
      ],
    });
    term.start(auto(WIRE_APIS[0].flags(fake)), { columns: 80, color: true });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("explain", "Enter");
    // Before its line ends, the paragraph's first words are on screen, rendered.
    const streaming = await term.waitFor((s) => s.includes("Intro bold words"), "the unfinished line");
    expect(streaming).not.toContain("Done.");
    expect(streaming).not.toContain("thinking…");
    const text = await term.waitFor((s) => s.includes("Done.") && s.includes("↑"), "the whole answer");
    expect(text).toContain("Intro bold words that keep");
    expect(text).not.toContain("**");
    expect(text.split("\n").filter((l) => l.includes("Intro")).length).toBe(1);
    // The table's columns line up, numbers to the right.
    expect(text).toMatch(/\n k {5}│ {4}v\n─{7}┼─{6}\n alpha │ {4}1\n b {5}│ 1000\n/);
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)("issue 24: the shell says in one line why an answer stopped, and goes on", async () => {
  using term = gongTerminal(ws);
  fake = await startFakeLlm({
    script: [{ text: "I can't help with that.", finishReason: "refusal" }, { text: "second answer" }],
  });
  term.start(auto(WIRE_APIS[0].flags(fake)));
  await term.waitFor((s) => s.includes("›"), "the prompt");
  term.keys("something", "Enter");
  await term.waitFor((s) => s.includes("stopped (refusal): The model refused to answer."), "the stop line");
  term.keys("something else", "Enter");
  await term.waitFor((s) => s.includes("second answer"), "the next answer");
  term.keys("/quit", "Enter");
  await term.waitFor(() => !term.alive(), "gong to exit");
});
