/**
 * The interactive shell in a real terminal (./terminal.ts): tmux runs `gong`, send-keys types,
 * capture-pane reads the screen. Each test has a tmux server of its own, killed afterwards.
 */
import { expect, test, setDefaultTimeout } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
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

test.skipIf(!hasTmux)("cli interactive: a prompt, a streamed answer, a tool line and usage", async () => {
  using term = gongTerminal(ws);
  fake = await startFakeLlm({
    script: [
      { toolCalls: [{ name: "bash", arguments: { command: "echo from-the-shell" } }] },
      { text: "All done: the shell said from-the-shell.", chunkSize: 3, chunkDelayMs: 5 },
    ],
  });
  term.start(auto(WIRE_APIS[0].flags(fake)));
  await term.waitFor((s) => s.includes("›"), "the prompt");
  term.keys("run the echo", "Enter");
  const text = await term.waitFor(
    (s) => s.includes("All done: the shell said from-the-shell.") && s.includes("↑"),
    "the answer and usage",
  );
  expect(text).toContain("● bash  echo from-the-shell");
  expect(text).toContain("exit 0");
  expect(JSON.stringify(fake.requests[0].body.messages)).toContain("run the echo");

  term.keys("/tools readonly", "Enter");
  await term.waitFor((s) => s.includes("tools: read, grep, find, ls"), "the /tools answer");
  // The readonly selection follows the profile into its own tool names.
  term.keys("/profile anthropic", "Enter");
  await term.waitFor(
    (s) => s.includes("profile: anthropic") && s.includes("tools: Read, Grep, Glob"),
    "the /profile answer",
  );
  term.keys("/quit", "Enter");
  await term.waitFor(() => !term.alive(), "gong to exit");
});

test.skipIf(!hasTmux)(
  "cli interactive: Ctrl-C during a sleep interrupts it, the next input continues the conversation, Ctrl-C twice exits",
  async () => {
    using term = gongTerminal(ws);
    fake = await startFakeLlm({
      script: [{ toolCalls: [{ name: "bash", arguments: { command: "sleep 29.5" } }] }, { text: "back again" }],
    });
    term.start(auto(WIRE_APIS[0].flags(fake)));
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("take a nap", "Enter");
    await term.waitFor(() => fake.requests.length === 1 && pgrepSleep(), "the sleep to start");
    term.keys("C-c");
    await term.waitFor((s) => s.includes("interrupted"), "the interruption");
    await term.waitFor(() => !pgrepSleep(), "the sleep to be killed");
    await term.waitFor((s) => /interrupted[\s\S]*\n› *(\n|$)/.test(s), "the prompt after the interruption");

    term.keys("are you there?", "Enter");
    await term.waitFor((s) => s.includes("back again"), "the next answer");
    // The same session goes on: the second request carries the first input and its interrupted call.
    const sent = JSON.stringify(fake.requests[1].body.messages);
    expect(sent).toContain("take a nap");
    expect(sent).toContain("sleep 29.5");
    expect(sent).toContain("are you there?");

    term.keys("C-c");
    await term.waitFor((s) => s.includes("press Ctrl-C again"), "the exit hint");
    term.keys("C-c");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

/** True while a `sleep 29.5` (this test's own command) runs. */
function pgrepSleep(): boolean {
  const out = Bun.spawnSync(["ps", "-eo", "pid,stat,args"]).stdout.toString();
  return out.split("\n").some((l) => /\bsleep 29\.5\b/.test(l) && !/\sZ/.test(l) && !l.includes("bash -c"));
}

test.skipIf(!hasTmux)(
  "cli interactive: keys typed while the answer streams stay off the answer and are sent as steering",
  async () => {
    using term = gongTerminal(ws);
    const answer = "The quick brown fox jumps over the lazy dog and keeps on running far away.";
    fake = await startFakeLlm({
      script: [{ text: answer, chunkSize: 2, chunkDelayMs: 40 }, { text: "steered answer" }],
    });
    term.start(auto(WIRE_APIS[0].flags(fake)));
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("tell me a story", "Enter");
    await term.waitFor((s) => s.includes("The quick"), "the answer to start streaming");
    term.keys("-l", "XYZ");
    await term.waitFor((s) => s.includes("↳ XYZ"), "the steering line");
    term.keys("-l", "QW");
    term.keys("Enter");
    const text = await term.waitFor((s) => /steered answer\s+↑/.test(s), "the steered answer and usage");
    // The answer, reassembled from the screen's lines, has none of the typed keys inside it.
    const streamed = text.slice(text.indexOf("The quick"), text.indexOf("› XYZQW"));
    // Where the steering reaches the model it is shown as the user's turn, and only there.
    expect(text).toContain("› XYZQW\nsteered answer");
    expect(text).not.toContain("↳ XYZQW");
    expect(streamed.replace(/\s+/g, "")).toBe(answer.replace(/\s+/g, ""));
    expect(streamed).not.toMatch(/[XYZQW]/);
    expect(JSON.stringify(fake.requests[1].body.messages)).toContain("XYZQW");
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)(
  "cli interactive slash commands: /model /reasoning /compact /tree /fork /sessions /new /resume",
  async () => {
    using term = gongTerminal(ws);
    // Keep almost nothing verbatim, so /compact has something to summarise after two exchanges.
    mkdirSync(join(ws.dir, ".gong"));
    writeFileSync(join(ws.dir, ".gong", "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 1 } }));
    fake = await startFakeLlm({
      script: [
        { text: "noted the pelican" },
        { text: "second answer" },
        { text: "SUMMARY: the user named a pelican." },
        { text: "third answer" },
        { text: "branch answer" },
      ],
    });
    term.start(auto(WIRE_APIS[0].flags(fake)));
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("remember the word pelican", "Enter");
    await term.waitFor((s) => s.includes("noted the pelican"), "the first answer");

    // /model opens a menu of the models whose key is set, the current one selected; typing
    // narrows it, Enter switches; Esc leaves the model as it is. An exact id switches at once.
    term.keys("/model", "Enter");
    const listed = await term.waitFor((s) => /\n❯ anthropic\/claude-haiku-4-5 /.test(s), "the /model menu");
    expect(listed).toMatch(/^ {2}anthropic\/claude-opus-4-6 /m);
    expect(listed).not.toMatch(/^ {2}openai\//m);
    expect(listed).toMatch(/no key set for [a-z, ]*openai/);
    term.keys("-l", "opus-4-5");
    await term.waitFor(
      (s) => /\n› opus-4-5\n❯ anthropic\/claude-opus-4-5 /.test(s) && !s.includes("  anthropic/claude-haiku"),
      "the narrowed menu",
    );
    term.keys("Escape");
    await term.waitFor((s) => s.includes("model: anthropic/claude-haiku-4-5 (unchanged)"), "the menu closed");
    term.keys("/model gpt", "Enter");
    await term.waitFor(
      (s) =>
        s.includes("models that need a key matching 'gpt'") &&
        /openai\/gpt-5 +\d+k context \(set OPENAI_API_KEY\)|openai\/gpt-5 \d+k context \(set OPENAI_API_KEY\)/.test(s),
      "the models that need a key",
    );
    term.keys("C-c");
    await term.waitFor((s) => (s.match(/\(unchanged\)/g) ?? []).length === 2, "the menu closed by Ctrl-C");
    term.keys("/model opus", "Enter");
    await term.waitFor(
      (s) => /\n❯ anthropic\/claude-opus-4-6 [^\n]*\n {2}anthropic\/claude-opus-4-5 /.test(s),
      "the opus models",
    );
    term.keys("Down", "Enter");
    await term.waitFor((s) => s.includes("model: anthropic/claude-opus-4-5\n"), "the model picked with the arrows");
    term.keys("/model claude-opus-4-6", "Enter");
    await term.waitFor((s) => s.includes("model: anthropic/claude-opus-4-6"), "the /model answer");
    term.keys("/reasoning high", "Enter");
    await term.waitFor((s) => s.includes("reasoning effort: high"), "the /reasoning answer");
    term.keys("what was the word?", "Enter");
    await term.waitFor((s) => s.includes("second answer"), "the second answer");
    expect(fake.requests[1].body.model).toBe("claude-opus-4-6");
    expect(fake.requests[1].body.thinking?.type).toMatch(/enabled|adaptive/);

    term.keys("/compact", "Enter");
    await term.waitFor((s) => /^compacted: \d+ → \d+ tokens\.$/m.test(s), "the /compact answer");
    expect(JSON.stringify(fake.requests[2].body)).toContain("remember the word pelican");
    term.keys("and now?", "Enter");
    await term.waitFor((s) => s.includes("third answer"), "the answer after compaction");
    expect(JSON.stringify(fake.requests[3].body.messages)).toContain("SUMMARY: the user named a pelican.");

    term.keys("/tree", "Enter");
    const tree = await term.waitFor((s) => /\* \w{8} assistant: third answer/.test(s), "the /tree listing");
    const firstUser = /(\w{8}) user: remember the word pelican/.exec(tree)![1];

    // A branch: the tree draws both paths from where they part, with connectors.
    const afterFirst = /(\w{8}) assistant: noted the pelican/.exec(tree)![1];
    term.keys(`/tree ${afterFirst}`, "Enter");
    await term.waitFor((s) => s.includes(`continuing from ${afterFirst}`), "the /tree answer");
    term.keys("take the other path", "Enter");
    await term.waitFor((s) => s.includes("branch answer"), "the answer on the branch");
    term.keys("/tree", "Enter");
    const branched = await term.waitFor((s) => /\n\* {4}\w{8} assistant: branch answer/.test(s), "the branched /tree");
    expect(branched).toMatch(
      new RegExp(`  ${afterFirst} assistant: noted the pelican\\n {2}├─ \\w{8} [^\\n]*\\n {2}│  \\w{8} `),
    );
    expect(branched).toMatch(
      /\n {2}│ {2}\w{8} assistant: third answer\n {2}└─ \w{8} user: take the other path\n\* {4}\w{8} assistant: branch answer/,
    );

    term.keys(`/fork ${firstUser}`, "Enter");
    const forked = await term.waitFor((s) => s.includes("forked into"), "the /fork answer");
    const forkId = /forked into ([0-9a-f-]{36})/.exec(forked)![1];
    term.keys("/sessions", "Enter");
    // The current session is marked; a fork names the session it came from.
    const listedSessions = await term.waitFor((s) => s.includes(`* ${forkId.slice(0, 8)}  `), "both sessions listed");
    const forkLine = listedSessions.split("\n").find((l) => l.startsWith(`* ${forkId.slice(0, 8)}`))!;
    expect(forkLine).toMatch(/\(fork of [0-9a-f]{8}\) ← this session$/);
    const parent = /fork of ([0-9a-f]{8})/.exec(forkLine)![1];
    expect(listedSessions).toMatch(new RegExp(`^ {2}${parent} {2}\\d{4}-`, "m"));

    term.keys("/new", "Enter");
    const fresh = await term.waitFor((s) => s.includes("new session "), "the /new answer");
    expect(/new session ([0-9a-f-]{36})/.exec(fresh)![1]).not.toBe(forkId);
    term.keys(`/resume ${forkId.slice(0, 8)}`, "Enter");
    await term.waitFor((s) => s.includes(`resumed ${forkId} (1 messages)`), "the /resume answer");
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)("cli interactive: a multi-line paste is one input", async () => {
  using term = gongTerminal(ws);
  fake = await startFakeLlm({ script: [{ text: "read your trace" }] });
  term.start(auto(WIRE_APIS[0].flags(fake)));
  await term.waitFor((s) => s.includes("›"), "the prompt");
  // paste-buffer -p sends the text between bracketed-paste marks, as a terminal paste does; it
  // waits in the input until Enter.
  term.paste("why does this fail?\n  at parse (src/a.ts:3)\n  at main (src/b.ts:9)\n");
  await term.waitFor((s) => s.includes("  at main (src/b.ts:9)"), "the pasted text in the input");
  term.keys("Enter");
  await term.waitFor((s) => s.includes("read your trace"), "the answer");
  expect(fake.requests.length).toBe(1);
  const sent = JSON.stringify(fake.requests[0].body.messages);
  expect(sent).toContain("why does this fail?\\n  at parse (src/a.ts:3)\\n  at main (src/b.ts:9)");
  term.keys("/quit", "Enter");
  await term.waitFor(() => !term.alive(), "gong to exit");
});

test.skipIf(!hasTmux)(
  "cli interactive: a line starting with // goes to the model as typed; /help names the commands that run while the agent works",
  async () => {
    using term = gongTerminal(ws);
    fake = await startFakeLlm({ script: [{ text: "a comment, then" }] });
    term.start(auto(WIRE_APIS[0].flags(fake)));
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("/help", "Enter");
    await term.waitFor(
      (s) =>
        s.includes(
          "/help /model /tools /reasoning /plan /export /copy /context /usage /tasks /sessions /skills /quit run at once",
        ),
      "the /help keys",
    );
    term.keys("// is this a comment?", "Enter");
    await term.waitFor((s) => s.includes("a comment, then"), "the answer");
    expect(JSON.stringify(fake.requests[0].body.messages)).toContain("// is this a comment?");
    expect(term.screen()).not.toContain("unknown command");
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)("cli interactive: a spinner says the model is thinking until its first words", async () => {
  using term = gongTerminal(ws);
  fake = await startFakeLlm({ script: [{ text: "slow and steady", chunkSize: 4, chunkDelayMs: 150 }] });
  term.start(auto(WIRE_APIS[0].flags(fake)));
  await term.waitFor((s) => s.includes("›"), "the prompt");
  term.keys("take your time", "Enter");
  await term.waitFor((s) => s.includes("thinking…"), "the thinking spinner");
  const text = await term.waitFor((s) => s.includes("slow and steady") && s.includes("↑"), "the answer");
  expect(text).not.toContain("thinking…");
  term.keys("/quit", "Enter");
  await term.waitFor(() => !term.alive(), "gong to exit");
});

test.skipIf(!hasTmux)("cli interactive: the up arrow recalls inputs from an earlier run", async () => {
  using term = gongTerminal(ws);
  fake = await startFakeLlm({ script: [{ text: "first answer" }, { text: "second answer" }] });
  term.start(auto(WIRE_APIS[0].flags(fake)));
  await term.waitFor((s) => s.includes("›"), "the prompt");
  term.keys("remember this prompt", "Enter");
  await term.waitFor((s) => s.includes("first answer") && s.includes("↑"), "the first answer");
  term.keys("/quit", "Enter");
  await term.waitFor(() => !term.alive(), "gong to exit");

  term.start(auto(WIRE_APIS[0].flags(fake)));
  await term.waitFor((s) => s.includes("›"), "the prompt again");
  term.keys("Up", "Up"); // the newest entry is the /quit that ended the first run
  await term.waitFor((s) => s.includes("› remember this prompt"), "the recalled input");
  term.keys("Enter");
  await term.waitFor((s) => s.includes("second answer"), "the recalled input's answer");
  expect(JSON.stringify(fake.requests[1].body.messages)).toContain("remember this prompt");
  term.keys("/quit", "Enter");
  await term.waitFor(() => !term.alive(), "gong to exit");
});

test.skipIf(!hasTmux)("cli interactive: the plan tool's update is shown as a checklist", async () => {
  using term = gongTerminal(ws);
  fake = await startFakeLlm({
    script: [
      {
        toolCalls: [
          {
            name: "TodoWrite",
            arguments: {
              todos: [
                { content: "Inspect", status: "completed", activeForm: "Inspecting" },
                { content: "Repair", status: "in_progress", activeForm: "Repairing" },
              ],
            },
          },
        ],
      },
      { text: "Plan made." },
    ],
  });
  term.start(auto([...WIRE_APIS[0].flags(fake), "--tools", "default,TodoWrite"]));
  await term.waitFor((s) => s.includes("›"), "the prompt");
  term.keys("make a plan", "Enter");
  const text = await term.waitFor((s) => s.includes("Plan made.") && s.includes("↑"), "the answer");
  expect(text).toContain("● TodoWrite  2 items");
  expect(text).toContain("⎿ 1/2 done");
  expect(text).toMatch(/✔ Inspect\n\s+◼ Repairing/);
  term.keys("/plan", "Enter");
  await term.waitFor((s) => s.split("◼ Repairing").length === 3, "the /plan checklist");
  term.keys("/quit", "Enter");
  await term.waitFor(() => !term.alive(), "gong to exit");
});

test.skipIf(!hasTmux)(
  "cli interactive: a 401 is one error line; the same session goes on with its history, /model and /compact",
  async () => {
    using term = gongTerminal(ws);
    fake = await startFakeLlm({
      script: [
        { fault: { type: "http", status: 401, message: "invalid x-api-key" } },
        { text: "good answer" },
        { text: "SUMMARY: hello." },
      ],
    });
    term.start(auto(WIRE_APIS[0].flags(fake)));
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("hello there", "Enter");
    const failed = await term.waitFor(
      (s) => /error: .*(401|invalid x-api-key)[^\n]*\n\n›\s*\n[^\n]*approval/.test(s),
      "the error line and the prompt",
    );
    expect(failed).not.toContain("↑ 0 ↓ 0");
    expect(failed).not.toContain("Session is closed");
    // A model whose provider has no key fails the same way and the shell stays usable.
    term.keys("/model openai/gpt-5", "Enter");
    await term.waitFor((s) => s.includes("model: openai/gpt-5"), "the /model answer");
    term.keys("try the other one", "Enter");
    const noKey = await term.waitFor(
      (s) => /No API key for openai[^\n]*\n\n›\s*\n[^\n]*approval/.test(s),
      "the missing-key error and the prompt",
    );
    // In gong's words: the variable to set and gong's own flag, not the SDK's option.
    expect(noKey).toContain("set OPENAI_API_KEY (or pass one: gong --model openai/… --api-key KEY)");
    expect(noKey).not.toContain("createClient");
    term.keys("/model anthropic/claude-haiku-4-5", "Enter");
    await term.waitFor((s) => s.includes("model: anthropic/claude-haiku-4-5"), "the /model answer");
    term.keys("again please", "Enter");
    const text = await term.waitFor((s) => s.includes("good answer") && s.includes("↑"), "the good answer");
    expect(text).not.toContain("Session is closed");
    expect(JSON.stringify(fake.requests[1].body.messages)).toContain("hello there");
    term.keys("/compact", "Enter");
    await term.waitFor((s) => /compacted\.|nothing to compact: /.test(s), "the /compact answer");
    expect(term.screen()).not.toContain("Session is closed");
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

/**
 * A bash call of about 120 characters that runs until the test releases it (or 30 s pass): the test
 * watches the live line as long as it needs, however slow the machine, then lets it finish.
 */
const longCommand = () =>
  `echo started-${"the-quick-brown-fox-".repeat(5)} && for _ in $(seq 3000); do [ -e release ] && break; sleep 0.01; done && echo finished-the-long-wait`;
const release = () => writeFileSync(join(ws.dir, "release"), "");

for (const columns of [40, 80]) {
  test.skipIf(!hasTmux)(
    `cli interactive: the live line of a long command at ${columns} columns is one line, never repeated`,
    async () => {
      using term = gongTerminal(ws);
      const command = longCommand();
      fake = await startFakeLlm({
        script: [{ toolCalls: [{ name: "bash", arguments: { command } }] }, { text: "long wait over" }],
      });
      term.start(auto(WIRE_APIS[0].flags(fake)), { columns });
      await term.waitFor((s) => s.includes("›"), "the prompt");
      term.keys("wait a while", "Enter");
      await term.waitFor((s) => s.includes("bash  echo"), "the live line");
      let tailSeen = false;
      let timerSeen = false;
      while (!term.screen().includes("long wait over")) {
        const now = term.screen();
        const lines = now.split("\n").filter((l) => l.includes("bash  echo"));
        // One live line, cut to the width: never wrapped, never left behind.
        expect(lines.length).toBeLessThanOrEqual(1);
        for (const line of lines) expect(line.length).toBeLessThan(columns);
        // Under it, the command's output so far, replaced in place; the live line counts the seconds.
        const tail = now.split("\n").filter((l) => l.startsWith("  started-the-quick"));
        // Each line of output once: the tail is replaced in place, never printed again below itself.
        expect(tail.length).toBeLessThanOrEqual(1);
        expect(now.split("\n").filter((l) => l.startsWith("  finished-the-long-wait")).length).toBeLessThanOrEqual(1);
        tailSeen ||= tail.length === 1;
        timerSeen ||= lines.some((l) => /· [1-9]s\b/.test(l));
        if (tailSeen && timerSeen) release();
        await Bun.sleep(100);
      }
      expect(tailSeen).toBe(true);
      expect(timerSeen).toBe(true);
      const text = await term.waitFor((s) => s.includes("↑"), "the usage line");
      const toolLines = text.split("\n").filter((l) => l.includes("bash  echo"));
      expect(toolLines.length).toBe(1);
      expect(toolLines[0]).toMatch(/^● bash {2}echo started-the-quick/);
      expect(toolLines[0].length).toBeLessThan(columns);
      // The result: the time it took and the first lines of what it printed.
      expect(text).toMatch(/⎿ exit 0 · 2 lines · [1-9]\d*s/);
      expect(text).toMatch(/\n {4}started-the-quick[^\n]*\n {4}finished-the-long-wait/);
      expect(text).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
      term.keys("/quit", "Enter");
      await term.waitFor(() => !term.alive(), "gong to exit");
    },
  );
}

test.skipIf(!hasTmux)(
  "cli interactive: the live line is re-fitted when the terminal is resized to 60 columns and back",
  async () => {
    using term = gongTerminal(ws);
    const command = longCommand();
    fake = await startFakeLlm({
      script: [{ toolCalls: [{ name: "bash", arguments: { command } }] }, { text: "resized fine" }],
    });
    term.start(auto(WIRE_APIS[0].flags(fake)), { columns: 80 });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("wait a while", "Enter");
    const liveLines = (screen: string) => screen.split("\n").filter((l) => l.includes("bash  echo"));
    await term.waitFor((s) => s.includes("  started-the-quick"), "the command's output under the live line");
    term.resize(60);
    const narrow = await term.waitFor(
      (s) => liveLines(s).length === 1 && liveLines(s)[0].length < 60,
      "the live line fitted to 60 columns",
    );
    expect(narrow.split("\n").filter((l) => l.startsWith("  started-the-quick")).length).toBe(1);
    term.resize(80);
    await term.waitFor(
      (s) => liveLines(s).length === 1 && liveLines(s)[0].length >= 60,
      "the live line fitted to 80 columns again",
    );
    release();
    const text = await term.waitFor((s) => s.includes("resized fine") && s.includes("↑"), "the answer");
    expect(text.split("\n").filter((l) => l.includes("bash  echo")).length).toBe(1);
    expect(text.split("\n").filter((l) => l.includes("wait a while")).length).toBe(1);
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)(
  "cli interactive keys: /tools and /compact typed mid-run stay local, Ctrl-C clears a half-typed line, Esc interrupts, /quit mid-run leaves",
  async () => {
    using term = gongTerminal(ws);
    fake = await startFakeLlm({
      script: [
        { toolCalls: [{ name: "bash", arguments: { command: "sleep 29.5" } }] },
        { text: "after the escape" },
        { toolCalls: [{ name: "bash", arguments: { command: "sleep 29.5" } }] },
      ],
    });
    term.start(auto(WIRE_APIS[0].flags(fake)));
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("take a nap", "Enter");
    await term.waitFor(() => fake.requests.length === 1 && pgrepSleep(), "the sleep to start");
    term.keys("/tools", "Enter");
    await term.waitFor((s) => s.includes("tools: "), "the /tools answer while the agent works");
    term.keys("/compact", "Enter");
    await term.waitFor((s) => s.includes("/compact runs when the agent is done"), "the /compact notice");
    term.keys("half typed");
    await term.waitFor((s) => s.includes("↳ half typed"), "the steering line");
    term.keys("C-c");
    await term.waitFor((s) => !s.includes("↳ half typed"), "the cleared line");
    expect(pgrepSleep()).toBe(true);
    term.keys("Escape");
    await term.waitFor((s) => s.includes("interrupted"), "the interruption");
    await term.waitFor(() => !pgrepSleep(), "the sleep to be killed");
    await term.waitFor((s) => /nothing to compact: |compacted\./.test(s), "the deferred /compact");
    // None of the typed lines reached the model.
    expect(fake.requests.length).toBe(1);
    term.keys("go on", "Enter");
    await term.waitFor((s) => s.includes("after the escape"), "the next answer");
    expect(JSON.stringify(fake.requests[1].body.messages)).not.toMatch(/\/tools|\/compact|half typed/);
    expect(term.screen()).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);

    term.keys("/help", "Enter");
    await term.waitFor((s) => s.includes("Esc") && s.includes("interrupt the running input"), "the keys in /help");
    term.keys("nap again", "Enter");
    await term.waitFor(() => fake.requests.length === 3 && pgrepSleep(), "the second sleep");
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
    await term.waitFor(() => !pgrepSleep(), "the sleep to be killed on exit");
    expect(fake.requests.length).toBe(3);
  },
);

test.skipIf(!hasTmux)(
  "cli interactive approvals: a declined command's reason reaches the model, always is written as a rule and holds across runs, Shift+Tab cycles the mode",
  async () => {
    using term = gongTerminal(ws);
    fake = await startFakeLlm({
      script: [
        { toolCalls: [{ name: "bash", arguments: { command: "echo first-call" } }] },
        { text: "declined, fine" },
        { toolCalls: [{ name: "bash", arguments: { command: "echo second-call" } }] },
        { text: "second ran" },
        { toolCalls: [{ name: "bash", arguments: { command: "echo second-call once more" } }] },
        { text: "third ran" },
      ],
    });
    term.start([...WIRE_APIS[0].flags(fake), "--approval", "ask"]);
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("run the first", "Enter");
    await term.waitFor(
      (s) => s.includes("run this command?") && s.includes("$ echo first-call") && s.includes("❯ 1. Yes"),
      "the confirmation",
    );
    term.keys("n not on a Monday", "Enter");
    await term.waitFor((s) => s.includes("declined, fine"), "the answer after the refusal");
    expect(JSON.stringify(fake.requests[1].body.messages)).toContain("not on a Monday");
    expect(JSON.stringify(fake.requests[1].body.messages)).not.toContain("first-call\\n");

    term.keys("run the second", "Enter");
    await term.waitFor(
      (s) =>
        s.includes("$ echo second-call") &&
        s.includes("2. Yes, always in this project: Bash(echo second-call *) (.gong/settings.local.json)") &&
        s.includes("3. Yes, always for you (~/.gong/settings.json)"),
      "the second confirmation",
    );
    term.keys("a");
    await term.waitFor((s) => s.includes("second ran"), "the answer after always");
    expect(JSON.parse(readFileSync(join(ws.dir, ".gong", "settings.local.json"), "utf8"))).toEqual({
      permissions: { allow: ["Bash(echo second-call *)"] },
    });
    expect(JSON.stringify(fake.requests[3].body.messages)).toContain("second-call\\n");

    // The status line under the input: model, approval mode, context used, cost.
    await term.waitFor(
      (s) =>
        /›[^\n]*\nanthropic\/claude-haiku-4-5 \(\w+\) · approval: ask \(Shift\+Tab\) · context \d+% · \$\d/.test(s),
      "the status line",
    );
    term.keys("BTab");
    await term.waitFor(
      (s) => /\nanthropic\/claude-haiku-4-5 \(\w+\) · approval: edits/.test(s),
      "the mode cycled by Shift+Tab in the status line",
    );
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");

    // A new run in the same project: the project's allow rule needs its trust, asked once; then the rule passes the command.
    term.start([...WIRE_APIS[0].flags(fake), "--approval", "ask"]);
    await term.waitFor(
      (s) => s.includes("settings.local.json sets permissions.allow") && s.includes("Trust this project"),
      "the trust question",
    );
    term.keys("y", "Enter");
    await term.waitFor((s) => s.includes("›"), "the prompt again");
    term.keys("run it again", "Enter");
    const text = await term.waitFor((s) => s.includes("third ran"), "the answer without a question");
    expect(text).not.toContain("run this command?");
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);
