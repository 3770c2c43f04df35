/**
 * The interactive shell in a real terminal: tmux runs `gong`, send-keys types, capture-pane reads
 * the screen. Each test uses its own tmux server socket and kills it afterwards.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { CLI, startFakeLlm, WIRE_APIS, useWorkspace } from "./helpers.ts";

const hasTmux = Bun.spawnSync(["which", "tmux"]).exitCode === 0;

const ws = useWorkspace();
let fake: FakeLlm;
let socket: string;

beforeEach(() => {
  socket = `gong-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
});
afterEach(() => {
  Bun.spawnSync(["tmux", "-L", socket, "kill-server"], { stderr: "ignore" });
});

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function tmux(...args: string[]) {
  return Bun.spawnSync(["tmux", "-L", socket, ...args], { env: ws.env });
}

function startGong(args: string[], columns = 160, color = false): void {
  const envs = Object.entries({ HOME: ws.env.HOME, GONG_HOME: ws.env.GONG_HOME, PATH: ws.env.PATH, TERM: "xterm-256color", ...(color ? {} : { NO_COLOR: "1" }) })
    .map(([k, v]) => `${k}=${quote(String(v))}`)
    .join(" ");
  // Tests of other behaviour run their commands without being asked.
  if (!args.includes("--approval")) args = [...args, "--approval", "auto"];
  const command = `cd ${quote(ws.dir)} && env ${color ? "-u NO_COLOR " : ""}${envs} ${quote(process.execPath)} ${quote(CLI)} ${args.map(quote).join(" ")}`;
  const r = tmux("new-session", "-d", "-s", "t", "-x", String(columns), "-y", "50", command);
  expect(r.exitCode).toBe(0);
}

const screen = () => tmux("capture-pane", "-p", "-t", "t", "-S", "-200").stdout.toString();
const alive = () => tmux("has-session", "-t", "t").exitCode === 0;

async function waitFor(check: (text: string) => boolean, what: string, ms = 15_000): Promise<string> {
  const until = Date.now() + ms;
  let text = "";
  while (Date.now() < until) {
    text = alive() ? screen() : "";
    if (check(text)) return text;
    await Bun.sleep(50);
  }
  throw new Error(`timed out waiting for ${what}; screen:\n${text}`);
}

const keys = (...k: string[]) => tmux("send-keys", "-t", "t", ...k);

test.skipIf(!hasTmux)("cli interactive: a prompt, a streamed answer, a tool line and usage", async () => {
  fake = await startFakeLlm({
    script: [{ toolCalls: [{ name: "bash", arguments: { command: "echo from-the-shell" } }] }, { text: "All done: the shell said from-the-shell.", chunkSize: 3, chunkDelayMs: 5 }],
  });
  startGong(WIRE_APIS[0].flags(fake));
  await waitFor((s) => s.includes("›"), "the prompt");
  keys("run the echo", "Enter");
  const text = await waitFor((s) => s.includes("All done: the shell said from-the-shell.") && s.includes("↑"), "the answer and usage");
  expect(text).toContain("● bash  echo from-the-shell");
  expect(text).toContain("exit 0");
  expect(JSON.stringify(fake.requests[0].body.messages)).toContain("run the echo");

  keys("/tools readonly", "Enter");
  await waitFor((s) => s.includes("tools: read, grep, find, ls"), "the /tools answer");
  // The readonly selection follows the profile into its own tool names.
  keys("/profile anthropic", "Enter");
  await waitFor((s) => s.includes("profile: anthropic") && s.includes("tools: Read, Grep, Glob"), "the /profile answer");
  keys("/quit", "Enter");
  await waitFor(() => !alive(), "gong to exit");
});

test.skipIf(!hasTmux)("cli interactive: Ctrl-C during a sleep interrupts it, the next input continues the conversation, Ctrl-C twice exits", async () => {
  fake = await startFakeLlm({ script: [{ toolCalls: [{ name: "bash", arguments: { command: "sleep 29.5" } }] }, { text: "back again" }] });
  startGong(WIRE_APIS[0].flags(fake));
  await waitFor((s) => s.includes("›"), "the prompt");
  keys("take a nap", "Enter");
  await waitFor(() => fake.requests.length === 1 && pgrepSleep(), "the sleep to start");
  keys("C-c");
  await waitFor((s) => s.includes("interrupted"), "the interruption");
  await waitFor(() => !pgrepSleep(), "the sleep to be killed");
  await waitFor((s) => /interrupted[\s\S]*\n› *(\n|$)/.test(s), "the prompt after the interruption");

  keys("are you there?", "Enter");
  await waitFor((s) => s.includes("back again"), "the next answer");
  // The same session goes on: the second request carries the first input and its interrupted call.
  const sent = JSON.stringify(fake.requests[1].body.messages);
  expect(sent).toContain("take a nap");
  expect(sent).toContain("sleep 29.5");
  expect(sent).toContain("are you there?");

  keys("C-c");
  await waitFor((s) => s.includes("press Ctrl-C again"), "the exit hint");
  keys("C-c");
  await waitFor(() => !alive(), "gong to exit");
});

/** True while a `sleep 29.5` (this test's own command) runs. */
function pgrepSleep(): boolean {
  const out = Bun.spawnSync(["ps", "-eo", "pid,stat,args"]).stdout.toString();
  return out.split("\n").some((l) => /\bsleep 29\.5\b/.test(l) && !/\sZ/.test(l) && !l.includes("bash -c"));
}

test.skipIf(!hasTmux)("cli interactive: keys typed while the answer streams stay off the answer and are sent as steering", async () => {
  const answer = "The quick brown fox jumps over the lazy dog and keeps on running far away.";
  fake = await startFakeLlm({ script: [{ text: answer, chunkSize: 2, chunkDelayMs: 40 }, { text: "steered answer" }] });
  startGong(WIRE_APIS[0].flags(fake));
  await waitFor((s) => s.includes("›"), "the prompt");
  keys("tell me a story", "Enter");
  await waitFor((s) => s.includes("The quick"), "the answer to start streaming");
  keys("-l", "XYZ");
  await waitFor((s) => s.includes("↳ XYZ"), "the steering line");
  keys("-l", "QW");
  keys("Enter");
  const text = await waitFor((s) => /steered answer\s+↑/.test(s), "the steered answer and usage");
  // The answer, reassembled from the screen's lines, has none of the typed keys inside it.
  const streamed = text.slice(text.indexOf("The quick"), text.indexOf("↳ XYZQW")) + text.slice(text.indexOf("↳ XYZQW") + "↳ XYZQW".length, text.indexOf("steered answer"));
  expect(streamed.replace(/\s+/g, "")).toBe(answer.replace(/\s+/g, ""));
  expect(streamed).not.toMatch(/[XYZQW]/);
  expect(JSON.stringify(fake.requests[1].body.messages)).toContain("XYZQW");
  keys("/quit", "Enter");
  await waitFor(() => !alive(), "gong to exit");
});

test.skipIf(!hasTmux)("cli interactive slash commands: /model /reasoning /compact /tree /fork /sessions /new /resume", async () => {
  // Keep almost nothing verbatim, so /compact has something to summarise after two exchanges.
  mkdirSync(join(ws.dir, ".gong"));
  writeFileSync(join(ws.dir, ".gong", "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 1 } }));
  fake = await startFakeLlm({
    script: [{ text: "noted the pelican" }, { text: "second answer" }, { text: "SUMMARY: the user named a pelican." }, { text: "third answer" }, { text: "branch answer" }],
  });
  startGong(WIRE_APIS[0].flags(fake));
  await waitFor((s) => s.includes("›"), "the prompt");
  keys("remember the word pelican", "Enter");
  await waitFor((s) => s.includes("noted the pelican"), "the first answer");

  // /model lists the models whose key is set; a filter narrows; an exact id switches.
  keys("/model", "Enter");
  const listed = await waitFor((s) => s.includes("/model <filter> narrows the list"), "the /model list");
  expect(listed).toMatch(/^\* anthropic\/claude-haiku-4-5 /m);
  expect(listed).toMatch(/^ {2}anthropic\/claude-opus-4-6 /m);
  expect(listed).not.toMatch(/^ {2}openai\//m);
  expect(listed).toMatch(/no key set for [a-z, ]*openai/);
  keys("/model gpt", "Enter");
  await waitFor((s) => s.includes("no model with a key set matches 'gpt'; these need one:\n  openai/gpt-5.2 ") && /openai\/gpt-5 +\d+k context \(set OPENAI_API_KEY\)/.test(s), "the filtered list");
  keys("/model opus", "Enter");
  await waitFor((s) => /\/model opus\n {2}anthropic\/claude-opus-4-6 [^\n]*\n {2}anthropic\/claude-opus-4-5 /.test(s), "the opus models");
  keys("/model claude-opus-4-6", "Enter");
  await waitFor((s) => s.includes("model: anthropic/claude-opus-4-6"), "the /model answer");
  keys("/reasoning high", "Enter");
  await waitFor((s) => s.includes("reasoning effort: high"), "the /reasoning answer");
  keys("what was the word?", "Enter");
  await waitFor((s) => s.includes("second answer"), "the second answer");
  expect(fake.requests[1].body.model).toBe("claude-opus-4-6");
  expect(fake.requests[1].body.thinking?.type).toMatch(/enabled|adaptive/);

  keys("/compact", "Enter");
  await waitFor((s) => /^compacted: \d+ → \d+ tokens\.$/m.test(s), "the /compact answer");
  expect(JSON.stringify(fake.requests[2].body)).toContain("remember the word pelican");
  keys("and now?", "Enter");
  await waitFor((s) => s.includes("third answer"), "the answer after compaction");
  expect(JSON.stringify(fake.requests[3].body.messages)).toContain("SUMMARY: the user named a pelican.");

  keys("/tree", "Enter");
  const tree = await waitFor((s) => /\* \w{8} assistant: third answer/.test(s), "the /tree listing");
  const firstUser = /(\w{8}) user: remember the word pelican/.exec(tree)![1];

  // A branch: the tree draws both paths from where they part, with connectors.
  const afterFirst = /(\w{8}) assistant: noted the pelican/.exec(tree)![1];
  keys("/tree " + afterFirst, "Enter");
  await waitFor((s) => s.includes(`continuing from ${afterFirst}`), "the /tree answer");
  keys("take the other path", "Enter");
  await waitFor((s) => s.includes("branch answer"), "the answer on the branch");
  keys("/tree", "Enter");
  const branched = await waitFor((s) => /\n\* {4}\w{8} assistant: branch answer/.test(s), "the branched /tree");
  expect(branched).toMatch(new RegExp(`  ${afterFirst} assistant: noted the pelican\\n {2}├─ \\w{8} [^\\n]*\\n {2}│  \\w{8} `));
  expect(branched).toMatch(/\n {2}│  \w{8} assistant: third answer\n {2}└─ \w{8} user: take the other path\n\* {4}\w{8} assistant: branch answer/);

  keys("/fork " + firstUser, "Enter");
  const forked = await waitFor((s) => s.includes("forked into"), "the /fork answer");
  const forkId = /forked into ([0-9a-f-]{36})/.exec(forked)![1];
  keys("/sessions", "Enter");
  // The current session is marked; a fork names the session it came from.
  const listedSessions = await waitFor((s) => s.includes(`* ${forkId.slice(0, 8)}  `), "both sessions listed");
  const forkLine = listedSessions.split("\n").find((l) => l.startsWith(`* ${forkId.slice(0, 8)}`))!;
  expect(forkLine).toMatch(/\(fork of [0-9a-f]{8}\) ← this session$/);
  const parent = /fork of ([0-9a-f]{8})/.exec(forkLine)![1];
  expect(listedSessions).toMatch(new RegExp(`^ {2}${parent} {2}\\d{4}-`, "m"));

  keys("/new", "Enter");
  const fresh = await waitFor((s) => s.includes("new session "), "the /new answer");
  expect(/new session ([0-9a-f-]{36})/.exec(fresh)![1]).not.toBe(forkId);
  keys("/resume " + forkId.slice(0, 8), "Enter");
  await waitFor((s) => s.includes(`resumed ${forkId} (1 messages)`), "the /resume answer");
  keys("/quit", "Enter");
  await waitFor(() => !alive(), "gong to exit");
});

test.skipIf(!hasTmux)("cli interactive: a multi-line paste is one input", async () => {
  fake = await startFakeLlm({ script: [{ text: "read your trace" }] });
  startGong(WIRE_APIS[0].flags(fake));
  await waitFor((s) => s.includes("›"), "the prompt");
  // paste-buffer -p sends the text between bracketed-paste marks, as a terminal paste does; it
  // waits in the input until Enter.
  tmux("set-buffer", "why does this fail?\n  at parse (src/a.ts:3)\n  at main (src/b.ts:9)\n");
  tmux("paste-buffer", "-p", "-t", "t");
  await waitFor((s) => s.includes("  at main (src/b.ts:9)"), "the pasted text in the input");
  keys("Enter");
  await waitFor((s) => s.includes("read your trace"), "the answer");
  expect(fake.requests.length).toBe(1);
  const sent = JSON.stringify(fake.requests[0].body.messages);
  expect(sent).toContain("why does this fail?\\n  at parse (src/a.ts:3)\\n  at main (src/b.ts:9)");
  keys("/quit", "Enter");
  await waitFor(() => !alive(), "gong to exit");
});

test.skipIf(!hasTmux)("cli interactive: a spinner says the model is thinking until its first words", async () => {
  fake = await startFakeLlm({ script: [{ text: "slow and steady", chunkSize: 4, chunkDelayMs: 150 }] });
  startGong(WIRE_APIS[0].flags(fake));
  await waitFor((s) => s.includes("›"), "the prompt");
  keys("take your time", "Enter");
  await waitFor((s) => s.includes("thinking…"), "the thinking spinner");
  const text = await waitFor((s) => s.includes("slow and steady") && s.includes("↑"), "the answer");
  expect(text).not.toContain("thinking…");
  keys("/quit", "Enter");
  await waitFor(() => !alive(), "gong to exit");
});

test.skipIf(!hasTmux)("cli interactive: the up arrow recalls inputs from an earlier run", async () => {
  fake = await startFakeLlm({ script: [{ text: "first answer" }, { text: "second answer" }] });
  startGong(WIRE_APIS[0].flags(fake));
  await waitFor((s) => s.includes("›"), "the prompt");
  keys("remember this prompt", "Enter");
  await waitFor((s) => s.includes("first answer") && s.includes("↑"), "the first answer");
  keys("/quit", "Enter");
  await waitFor(() => !alive(), "gong to exit");

  startGong(WIRE_APIS[0].flags(fake));
  await waitFor((s) => s.includes("›"), "the prompt again");
  keys("Up", "Up"); // the newest entry is the /quit that ended the first run
  await waitFor((s) => s.includes("› remember this prompt"), "the recalled input");
  keys("Enter");
  await waitFor((s) => s.includes("second answer"), "the recalled input's answer");
  expect(JSON.stringify(fake.requests[1].body.messages)).toContain("remember this prompt");
  keys("/quit", "Enter");
  await waitFor(() => !alive(), "gong to exit");
});

test.skipIf(!hasTmux)("cli interactive: the plan tool's update is shown as a checklist", async () => {
  fake = await startFakeLlm({
    script: [
      { toolCalls: [{ name: "TodoWrite", arguments: { todos: [{ content: "Inspect", status: "completed", activeForm: "Inspecting" }, { content: "Repair", status: "in_progress", activeForm: "Repairing" }] } }] },
      { text: "Plan made." },
    ],
  });
  startGong([...WIRE_APIS[0].flags(fake), "--tools", "default,TodoWrite"]);
  await waitFor((s) => s.includes("›"), "the prompt");
  keys("make a plan", "Enter");
  const text = await waitFor((s) => s.includes("Plan made.") && s.includes("↑"), "the answer");
  expect(text).toContain("● TodoWrite  2 items");
  expect(text).toContain("⎿ 1/2 done");
  expect(text).toMatch(/✔ Inspect\n\s+◼ Repairing/);
  keys("/plan", "Enter");
  await waitFor((s) => s.split("◼ Repairing").length === 3, "the /plan checklist");
  keys("/quit", "Enter");
  await waitFor(() => !alive(), "gong to exit");
});

test.skipIf(!hasTmux)("cli interactive: a 401 is one error line; the same session goes on with its history, /model and /compact", async () => {
  fake = await startFakeLlm({
    script: [{ fault: { type: "http", status: 401, message: "invalid x-api-key" } }, { text: "good answer" }, { text: "SUMMARY: hello." }],
  });
  startGong(WIRE_APIS[0].flags(fake));
  await waitFor((s) => s.includes("›"), "the prompt");
  keys("hello there", "Enter");
  const failed = await waitFor((s) => /error: .*(401|invalid x-api-key)[^\n]*\n›\s*\n[^\n]*approval/.test(s), "the error line and the prompt");
  expect(failed).not.toContain("↑ 0 ↓ 0");
  expect(failed).not.toContain("Session is closed");
  // A model whose provider has no key fails the same way and the shell stays usable.
  keys("/model openai/gpt-5", "Enter");
  await waitFor((s) => s.includes("model: openai/gpt-5"), "the /model answer");
  keys("try the other one", "Enter");
  const noKey = await waitFor((s) => /No API key for openai[^\n]*\n›\s*\n[^\n]*approval/.test(s), "the missing-key error and the prompt");
  // In gong's words: the variable to set and gong's own flag, not the SDK's option.
  expect(noKey).toContain("set OPENAI_API_KEY (or pass one: gong --model openai/… --api-key KEY)");
  expect(noKey).not.toContain("createClient");
  keys("/model anthropic/claude-haiku-4-5", "Enter");
  await waitFor((s) => s.includes("model: anthropic/claude-haiku-4-5"), "the /model answer");
  keys("again please", "Enter");
  const text = await waitFor((s) => s.includes("good answer") && s.includes("↑"), "the good answer");
  expect(text).not.toContain("Session is closed");
  expect(JSON.stringify(fake.requests[1].body.messages)).toContain("hello there");
  keys("/compact", "Enter");
  await waitFor((s) => /compacted\.|nothing to compact\./.test(s), "the /compact answer");
  expect(screen()).not.toContain("Session is closed");
  keys("/quit", "Enter");
  await waitFor(() => !alive(), "gong to exit");
});

/** A bash call of about 120 characters that runs for `seconds`. */
function longCommand(seconds: number): string {
  return `echo started-${"the-quick-brown-fox-".repeat(5)} && sleep ${seconds} && echo finished-the-long-wait`;
}

for (const columns of [40, 80]) {
  test.skipIf(!hasTmux)(`cli interactive: the live line of a 3 s command at ${columns} columns is one line, never repeated`, async () => {
    const command = longCommand(3);
    fake = await startFakeLlm({ script: [{ toolCalls: [{ name: "bash", arguments: { command } }] }, { text: "long wait over" }] });
    startGong(WIRE_APIS[0].flags(fake), columns);
    await waitFor((s) => s.includes("›"), "the prompt");
    keys("wait a while", "Enter");
    await waitFor((s) => s.includes("bash  echo"), "the live line");
    let seen = 0;
    let tailSeen = false;
    let timerSeen = false;
    while (!screen().includes("long wait over")) {
      const now = screen();
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
      timerSeen ||= lines.some((l) => /· [1-9]s$/.test(l.trimEnd()));
      seen++;
      await Bun.sleep(100);
    }
    expect(seen).toBeGreaterThan(5);
    expect(tailSeen).toBe(true);
    expect(timerSeen).toBe(true);
    const text = await waitFor((s) => s.includes("↑"), "the usage line");
    const toolLines = text.split("\n").filter((l) => l.includes("bash  echo"));
    expect(toolLines.length).toBe(1);
    expect(toolLines[0]).toMatch(/^● bash {2}echo started-the-quick/);
    expect(toolLines[0].length).toBeLessThan(columns);
    // The result: the time it took and the first lines of what it printed.
    expect(text).toMatch(/⎿ exit 0 · 2 lines · [3-9]s/);
    expect(text).toMatch(/\n {4}started-the-quick[^\n]*\n {4}finished-the-long-wait/);
    expect(text).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    keys("/quit", "Enter");
    await waitFor(() => !alive(), "gong to exit");
  });
}

test.skipIf(!hasTmux)("cli interactive: the live line is re-fitted when the terminal is resized to 60 columns and back", async () => {
  const command = longCommand(4);
  fake = await startFakeLlm({ script: [{ toolCalls: [{ name: "bash", arguments: { command } }] }, { text: "resized fine" }] });
  startGong(WIRE_APIS[0].flags(fake), 80);
  await waitFor((s) => s.includes("›"), "the prompt");
  keys("wait a while", "Enter");
  await waitFor((s) => s.includes("bash  echo"), "the live line");
  await Bun.sleep(300);
  tmux("resize-window", "-t", "t", "-x", "60", "-y", "50");
  await Bun.sleep(500);
  let lines = screen().split("\n").filter((l) => l.includes("bash  echo"));
  expect(lines.length).toBe(1);
  expect(lines[0].length).toBeLessThan(60);
  expect(screen().split("\n").filter((l) => l.startsWith("  started-the-quick")).length).toBe(1);
  tmux("resize-window", "-t", "t", "-x", "80", "-y", "50");
  await Bun.sleep(500);
  lines = screen().split("\n").filter((l) => l.includes("bash  echo"));
  expect(lines.length).toBe(1);
  const text = await waitFor((s) => s.includes("resized fine") && s.includes("↑"), "the answer");
  expect(text.split("\n").filter((l) => l.includes("bash  echo")).length).toBe(1);
  expect(text.split("\n").filter((l) => l.includes("wait a while")).length).toBe(1);
  keys("/quit", "Enter");
  await waitFor(() => !alive(), "gong to exit");
});

test.skipIf(!hasTmux)("cli interactive keys: /tools and /compact typed mid-run stay local, Ctrl-C clears a half-typed line, Esc interrupts, /quit mid-run leaves", async () => {
  fake = await startFakeLlm({
    script: [
      { toolCalls: [{ name: "bash", arguments: { command: "sleep 29.5" } }] },
      { text: "after the escape" },
      { toolCalls: [{ name: "bash", arguments: { command: "sleep 29.5" } }] },
    ],
  });
  startGong(WIRE_APIS[0].flags(fake));
  await waitFor((s) => s.includes("›"), "the prompt");
  keys("take a nap", "Enter");
  await waitFor(() => fake.requests.length === 1 && pgrepSleep(), "the sleep to start");
  keys("/tools", "Enter");
  await waitFor((s) => s.includes("tools: "), "the /tools answer while the agent works");
  keys("/compact", "Enter");
  await waitFor((s) => s.includes("/compact runs when the agent is done"), "the /compact notice");
  keys("half typed");
  await waitFor((s) => s.includes("↳ half typed"), "the steering line");
  keys("C-c");
  await waitFor((s) => !s.includes("↳ half typed"), "the cleared line");
  expect(pgrepSleep()).toBe(true);
  keys("Escape");
  await waitFor((s) => s.includes("interrupted"), "the interruption");
  await waitFor(() => !pgrepSleep(), "the sleep to be killed");
  await waitFor((s) => /nothing to compact\.|compacted\./.test(s), "the deferred /compact");
  // None of the typed lines reached the model.
  expect(fake.requests.length).toBe(1);
  keys("go on", "Enter");
  await waitFor((s) => s.includes("after the escape"), "the next answer");
  expect(JSON.stringify(fake.requests[1].body.messages)).not.toMatch(/\/tools|\/compact|half typed/);
  expect(screen()).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);

  keys("/help", "Enter");
  await waitFor((s) => s.includes("Esc") && s.includes("interrupt the running input"), "the keys in /help");
  keys("nap again", "Enter");
  await waitFor(() => fake.requests.length === 3 && pgrepSleep(), "the second sleep");
  keys("/quit", "Enter");
  await waitFor(() => !alive(), "gong to exit");
  await waitFor(() => !pgrepSleep(), "the sleep to be killed on exit");
  expect(fake.requests.length).toBe(3);
});

test.skipIf(!hasTmux)("cli interactive approvals: a declined command's reason reaches the model, always is remembered across runs, Shift+Tab cycles the mode", async () => {
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
  startGong([...WIRE_APIS[0].flags(fake), "--approval", "ask"]);
  await waitFor((s) => s.includes("›"), "the prompt");
  keys("run the first", "Enter");
  await waitFor((s) => s.includes("run this command?") && s.includes("$ echo first-call") && s.includes("allow?"), "the confirmation");
  keys("n not on a Monday", "Enter");
  await waitFor((s) => s.includes("declined, fine"), "the answer after the refusal");
  expect(JSON.stringify(fake.requests[1].body.messages)).toContain("not on a Monday");
  expect(JSON.stringify(fake.requests[1].body.messages)).not.toContain("first-call\\n");

  keys("run the second", "Enter");
  await waitFor((s) => s.includes("$ echo second-call") && /always \(bash: echo second-call\)/.test(s), "the second confirmation");
  keys("a", "Enter");
  await waitFor((s) => s.includes("second ran"), "the answer after always");
  expect(JSON.stringify(fake.requests[3].body.messages)).toContain("second-call\\n");

  // The status line under the input: model, approval mode, context used, cost.
  await waitFor((s) => /›[^\n]*\nanthropic\/claude-haiku-4-5 \(\w+\) · approval: ask \(Shift\+Tab\) · context \d+% · \$\d/.test(s), "the status line");
  keys("BTab");
  await waitFor((s) => /\nanthropic\/claude-haiku-4-5 \(\w+\) · approval: edits/.test(s), "the mode cycled by Shift+Tab in the status line");
  keys("/quit", "Enter");
  await waitFor(() => !alive(), "gong to exit");

  // A new run in the same project: the remembered prefix passes without a question.
  startGong([...WIRE_APIS[0].flags(fake), "--approval", "ask"]);
  await waitFor((s) => s.includes("›"), "the prompt again");
  keys("run it again", "Enter");
  const text = await waitFor((s) => s.includes("third ran"), "the answer without a question");
  expect(text).not.toContain("allow?");
  keys("/quit", "Enter");
  await waitFor(() => !alive(), "gong to exit");
});

test.skipIf(!hasTmux)("cli interactive: an answer's markdown is rendered in color, and left as written under NO_COLOR", async () => {
  const answer = "## Summary\nFixed **calc.py**: run `pytest`.\n- one change\n```py\nx = 1  # **kept**\n```\nDone.";
  fake = await startFakeLlm({ script: [{ text: answer, chunkSize: 4, chunkDelayMs: 5 }, { text: answer }] });
  startGong(WIRE_APIS[0].flags(fake), 80, true);
  await waitFor((s) => s.includes("›"), "the prompt");
  keys("summarise", "Enter");
  const text = await waitFor((s) => s.includes("Done.") && s.includes("↑"), "the rendered answer");
  expect(text).toMatch(/^Summary$/m);
  expect(text).toContain("Fixed calc.py: run pytest.");
  expect(text).toContain("• one change");
  expect(text).toMatch(/╭─ py\n│ x = 1 {2}# \*\*kept\*\*\n╰─/);
  keys("/quit", "Enter");
  await waitFor(() => !alive(), "gong to exit");

  startGong(WIRE_APIS[0].flags(fake), 80);
  await waitFor((s) => s.includes("›"), "the prompt");
  keys("again", "Enter");
  const raw = await waitFor((s) => s.includes("Done.") && s.includes("↑"), "the plain answer");
  expect(raw).toContain("## Summary");
  expect(raw).toContain("Fixed **calc.py**: run `pytest`.");
  keys("/quit", "Enter");
  await waitFor(() => !alive(), "gong to exit");
});

test.skipIf(!hasTmux)("cli interactive: a rate limit being waited out is one line; /name names the session for -r", async () => {
  fake = await startFakeLlm({ script: [{ fault: { type: "http", status: 429, retryAfterMs: 800 } }, { text: "after the wait" }] });
  startGong(WIRE_APIS[0].flags(fake));
  await waitFor((s) => s.includes("›"), "the prompt");
  keys("hello", "Enter");
  const text = await waitFor((s) => s.includes("after the wait"), "the answer after the wait");
  expect(text.split("\n").filter((l) => l.includes("retrying in 1 s (attempt 1): anthropic 429")).length).toBe(1);
  // The live line was erased before the retry line: no spinner frame is left in the scrollback.
  expect(text).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
  keys("/name my-feature", "Enter");
  await waitFor((s) => s.includes("name: my-feature"), "the /name answer");
  keys("/quit", "Enter");
  await waitFor(() => !alive(), "gong to exit");
  const list = await ws.run(["sessions"]);
  expect(list.stdout).toContain("my-feature");
});

test.skipIf(!hasTmux)("cli interactive: the model's reasoning is shown before its answer, and not with showThinking false", async () => {
  fake = await startFakeLlm({ script: [{ thinking: "weighing the two options", text: "option two" }, { thinking: "hidden musing", text: "option one" }] });
  startGong(WIRE_APIS[0].flags(fake));
  await waitFor((s) => s.includes("›"), "the prompt");
  keys("pick one", "Enter");
  const text = await waitFor((s) => s.includes("option two") && s.includes("↑"), "the answer");
  expect(text).toMatch(/weighing the two options\noption two/);
  keys("/quit", "Enter");
  await waitFor(() => !alive(), "gong to exit");

  mkdirSync(join(ws.dir, ".gong"), { recursive: true });
  writeFileSync(join(ws.dir, ".gong", "settings.json"), JSON.stringify({ showThinking: false }));
  startGong(WIRE_APIS[0].flags(fake));
  await waitFor((s) => s.includes("›"), "the prompt again");
  keys("pick again", "Enter");
  const quiet = await waitFor((s) => s.includes("option one") && s.includes("↑"), "the second answer");
  expect(quiet).not.toContain("hidden musing");
  keys("/quit", "Enter");
  await waitFor(() => !alive(), "gong to exit");
});

/** True once gong's pane has ended (remain-on-exit keeps its last screen for capture-pane). */
const paneDead = () => tmux("display-message", "-p", "-t", "t", "#{pane_dead}").stdout.toString().trim() === "1";

test.skipIf(!hasTmux)("cli interactive continuity: -c shows the earlier transcript, leaving prints the resume command, /compact on a short chat is one line, /new resets the totals", async () => {
  fake = await startFakeLlm({
    script: [
      { toolCalls: [{ name: "bash", arguments: { command: "echo from-the-first-run" } }] },
      { text: "The pelican is noted." },
      { text: "Still here after -c." },
      { text: "A fresh start." },
    ],
  });
  startGong(WIRE_APIS[0].flags(fake));
  tmux("set-option", "-t", "t", "remain-on-exit", "on");
  await waitFor((s) => s.includes("›"), "the prompt");
  keys("remember the pelican", "Enter");
  await waitFor((s) => s.includes("The pelican is noted.") && s.includes("↑"), "the first answer");
  keys("/quit", "Enter");
  const left = await waitFor((s) => /\nresume this session: gong -r [0-9a-f-]{36}\n/.test(s) && paneDead(), "the resume command");
  const id = /gong -r ([0-9a-f-]{36})/.exec(left)![1];
  expect((await ws.run(["sessions"])).stdout).toContain(id.slice(0, 8));
  tmux("kill-session", "-t", "t");

  startGong([...WIRE_APIS[0].flags(fake), "-c"]);
  tmux("set-option", "-t", "t", "remain-on-exit", "on");
  const shown = await waitFor((s) => /The pelican is noted\.\n›/.test(s), "the earlier transcript above the prompt");
  // The earlier turn as it looked live: the input, the tool line and its result, the answer.
  expect(shown).toContain(`continuing session ${id}`);
  expect(shown).toMatch(/\n› remember the pelican\n● bash {2}echo from-the-first-run\n {2}⎿ 1 line of output\nThe pelican is noted\.\n/);

  keys("/compact", "Enter");
  await waitFor((s) => /› \/compact\nnothing to compact\.\n›/.test(s), "one line for /compact");
  keys("are you there?", "Enter");
  const again = await waitFor((s) => s.includes("Still here after -c.") && /Still here after -c\.\n↑/.test(s), "the answer after -c");
  expect(JSON.stringify(fake.requests[2].body.messages)).toContain("remember the pelican");
  // The session totals carried the earlier usage of this run only; after /new they start again.
  expect(again.split("\n").find((l) => l.includes("(session"))).toMatch(/^(↑ .+?) {2}\(session \1\)$/);
  keys("/new", "Enter");
  await waitFor((s) => s.includes("new session "), "the /new answer");
  keys("start over", "Enter");
  const fresh = await waitFor((s) => /A fresh start\.\n↑[^\n]*\n/.test(s), "the answer in the new session");
  expect(fresh.split("\n").findLast((l) => l.includes("(session"))).toMatch(/^(↑ .+?) {2}\(session \1\)$/);
  expect(JSON.stringify(fake.requests[3].body.messages)).not.toContain("remember the pelican");
  keys("/quit", "Enter");
  const second = await waitFor((s) => paneDead() && (s.match(/resume this session: gong -r/g) ?? []).length === 1, "the second resume command");
  expect(second).not.toContain(`gong -r ${id}`);
  tmux("kill-session", "-t", "t");

  // Without a session file there is nothing to resume.
  startGong([...WIRE_APIS[0].flags(fake), "--no-session"]);
  tmux("set-option", "-t", "t", "remain-on-exit", "on");
  await waitFor((s) => s.includes("›"), "the prompt without a session");
  keys("/quit", "Enter");
  await waitFor(() => paneDead(), "gong to exit");
  expect(screen()).not.toContain("gong -r");
});

test.skipIf(!hasTmux)("cli interactive /plan: the model gets only reading tools and the profile's plan tool until the plan is accepted", async () => {
  fake = await startFakeLlm({ script: [{ text: "Plan: read the parser, then fix it." }, { text: "Fixed." }] });
  const flags = ["--model", "anthropic/claude-haiku-4-5", "--base-url", fake.baseUrls.anthropic, "--api-key", "test", "--profile", "anthropic"];
  startGong(flags);
  await waitFor((s) => s.includes("›"), "the prompt");
  keys("/plan", "Enter");
  const entered = await waitFor((s) => s.includes("plan mode: the model only reads and plans (tools: "), "plan mode");
  await waitFor((s) => /\nanthropic\/claude-haiku-4-5 \(anthropic\) · plan mode \(\/plan accepts\) · approval/.test(s), "plan mode in the status line");
  const planTools = /\(tools: ([^)]*)\)/.exec(entered)![1].split(", ");
  keys("make a plan", "Enter");
  await waitFor((s) => s.includes("Plan: read the parser"), "the plan");
  const offered = (fake.requests[0].body.tools as { name: string }[]).map((t) => t.name);
  expect(offered.sort()).toEqual([...planTools].sort());
  expect(offered).toContain("TodoWrite");
  expect(offered).toContain("Read");
  for (const writer of ["Bash", "Edit", "Write"]) expect(offered).not.toContain(writer);

  keys("/plan", "Enter");
  await waitFor((s) => s.includes("plan accepted; tools: "), "the accepted plan");
  keys("go ahead", "Enter");
  await waitFor((s) => s.includes("Fixed."), "the answer after the plan");
  const after = (fake.requests[1].body.tools as { name: string }[]).map((t) => t.name);
  for (const writer of ["Bash", "Edit", "Write", "TodoWrite"]) expect(after).toContain(writer);
  keys("/quit", "Enter");
  await waitFor(() => !alive(), "gong to exit");
});

test.skipIf(!hasTmux)("cli interactive: a failed command's long last line is cut to the terminal's width on its ⎿ line", async () => {
  const long = `error: ${"the-build-failed-".repeat(8)}`;
  fake = await startFakeLlm({ script: [{ toolCalls: [{ name: "bash", arguments: { command: `echo ${long}; exit 3` } }] }, { text: "it failed" }] });
  startGong(WIRE_APIS[0].flags(fake), 40);
  await waitFor((s) => s.includes("›"), "the prompt");
  keys("build it", "Enter");
  const text = await waitFor((s) => s.includes("it failed") && s.includes("↑"), "the answer");
  const result = text.split("\n").find((l) => l.includes("⎿"))!;
  expect(result).toMatch(/^ {2}⎿ exit 3 · error: the-build-fai/);
  expect(result.endsWith("…")).toBe(true);
  expect(result.length).toBeLessThan(40);
  keys("/quit", "Enter");
  await waitFor(() => !alive(), "gong to exit");
});

test.skipIf(!hasTmux)("cli interactive: the status line leaves when the idle terminal is resized narrower and comes back when it widens", async () => {
  fake = await startFakeLlm({ script: [] });
  startGong(WIRE_APIS[0].flags(fake), 80);
  const statusLine = /›[^\n]*\nanthropic\/claude-haiku-4-5 \(default\) · approval: auto \(Shift\+Tab\)/;
  await waitFor((s) => statusLine.test(s), "the status line");
  tmux("resize-window", "-t", "t", "-x", "50", "-y", "50");
  // No piece of it is left, wrapped or not.
  await waitFor((s) => /›\s*$/.test(s) && !/approval|Shift\+Tab|\$0\.|context \d/.test(s), "the status line gone at 50 columns");
  tmux("resize-window", "-t", "t", "-x", "80", "-y", "50");
  const back = await waitFor((s) => statusLine.test(s), "the status line back at 80 columns");
  expect(back.match(/approval: auto/g)!.length).toBe(1);
  keys("/quit", "Enter");
  await waitFor(() => !alive(), "gong to exit");
});

test.skipIf(!hasTmux)("cli interactive: a long markdown line shows while it streams and is redrawn rendered in its place once it ends", async () => {
  const paragraph = `Intro **bold** ${"words that keep the line going ".repeat(6)}end.`;
  fake = await startFakeLlm({ script: [{ text: `${paragraph}\n| k | v |\n|---|--:|\n| alpha | 1 |\n| b | 1000 |\nDone.`, chunkSize: 4, chunkDelayMs: 25 }] });
  startGong(WIRE_APIS[0].flags(fake), 80, true);
  await waitFor((s) => s.includes("›"), "the prompt");
  keys("explain", "Enter");
  // Before its line ends, the paragraph's first words are on screen as they came.
  const streaming = await waitFor((s) => s.includes("Intro **bold** words"), "the unfinished line");
  expect(streaming).not.toContain("Done.");
  expect(streaming).not.toContain("thinking…");
  const text = await waitFor((s) => s.includes("Done.") && s.includes("↑"), "the whole answer");
  expect(text).toContain("Intro bold words that keep");
  expect(text).not.toContain("**");
  expect(text.split("\n").filter((l) => l.includes("Intro")).length).toBe(1);
  // The table's columns line up, numbers to the right.
  expect(text).toMatch(/\n k {5}│ {4}v\n─{7}┼─{6}\n alpha │ {4}1\n b {5}│ 1000\n/);
  keys("/quit", "Enter");
  await waitFor(() => !alive(), "gong to exit");
});
