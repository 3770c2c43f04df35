/**
 * The shell's input side in a real terminal (tmux at 80 columns, a private tmux server per test):
 * bracketed paste, the newline keys, Tab completion, Ctrl-R, the per-project history, and the
 * plain input off a terminal.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { CLI, startFakeLlm, WIRE_APIS, useWorkspace } from "./helpers.ts";

const hasTmux = Bun.spawnSync(["which", "tmux"]).exitCode === 0;

const ws = useWorkspace();
let fake: FakeLlm;
let socket: string;

beforeEach(() => {
  socket = `gong-keys-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
});
afterEach(() => {
  Bun.spawnSync(["tmux", "-L", socket, "kill-server"], { stderr: "ignore" });
});

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function tmux(...args: string[]) {
  return Bun.spawnSync(["tmux", "-L", socket, ...args], { env: ws.env });
}

/** Starts gong in `cwd` at 80 columns; `after` runs in the pane once gong has exited; `pipe` takes its stdout. */
function startGong(options: { cwd?: string; after?: string; pipe?: string } = {}): void {
  const envs = Object.entries({ HOME: ws.env.HOME, GONG_HOME: ws.env.GONG_HOME, PATH: ws.env.PATH, TERM: "xterm-256color", NO_COLOR: "1" })
    .map(([k, v]) => `${k}=${quote(String(v))}`)
    .join(" ");
  const args = [...WIRE_APIS[0].flags(fake), "--approval", "auto"];
  let command = `cd ${quote(options.cwd ?? ws.dir)} && env ${envs} ${quote(process.execPath)} ${quote(CLI)} ${args.map(quote).join(" ")}`;
  if (options.pipe) command += ` | ${options.pipe}`;
  if (options.after) command += `; ${options.after}`;
  expect(tmux("new-session", "-d", "-s", "t", "-x", "80", "-y", "40", command).exitCode).toBe(0);
}

const screen = () => tmux("capture-pane", "-p", "-t", "t", "-S", "-200").stdout.toString();
const alive = () => tmux("has-session", "-t", "t").exitCode === 0;
const keys = (...k: string[]) => tmux("send-keys", "-t", "t", ...k);

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

/** The text of the last user message the fake server received in request `n`. */
function userText(n: number): string {
  const messages = fake.requests[n].body.messages as { role: string; content: string | { type: string; text?: string }[] }[];
  const last = messages.filter((m) => m.role === "user").at(-1)!;
  return typeof last.content === "string" ? last.content : last.content.map((p) => p.text ?? "").join("");
}

async function quit(): Promise<void> {
  keys("/quit", "Enter");
  await waitFor(() => !alive(), "gong to exit");
}

test.skipIf(!hasTmux)("cli keys: a bracketed paste without a final newline waits in the input, Enter sends it as one message, the paste mode ends with gong", async () => {
  fake = await startFakeLlm({ script: [{ text: "got the paste" }] });
  startGong({ after: "echo gong-exited; cat -v" });
  await waitFor((s) => s.includes("›"), "the prompt");
  tmux("set-buffer", "line one\nline two\nline three");
  tmux("paste-buffer", "-p", "-t", "t");
  await waitFor((s) => /› line one\n {2}line two\n {2}line three/.test(s), "the paste in the input");
  keys("-l", " and more");
  await waitFor((s) => s.includes("  line three and more"), "typing after the paste, on the same input");
  expect(fake.requests.length).toBe(0);
  keys("Enter");
  await waitFor((s) => s.includes("got the paste"), "the answer");
  expect(fake.requests.length).toBe(1);
  expect(userText(0)).toBe("line one\nline two\nline three and more");

  keys("/quit", "Enter");
  await waitFor((s) => s.includes("gong-exited"), "gong to exit");
  // The terminal no longer wraps a paste in marks: cat -v would show them as ^[[200~.
  tmux("set-buffer", "pasted-after-exit");
  tmux("paste-buffer", "-p", "-t", "t");
  keys("Enter");
  const after = await waitFor((s) => s.split("\n").filter((l) => l.includes("pasted-after-exit")).length === 2, "cat's echo of the paste");
  expect(after).not.toContain("^[[200~");
});

test.skipIf(!hasTmux)("cli keys: Alt+Enter and a backslash before Enter continue the input on a new line", async () => {
  fake = await startFakeLlm({ script: [{ text: "three lines read" }] });
  startGong();
  await waitFor((s) => s.includes("›"), "the prompt");
  keys("-l", "first");
  keys("M-Enter");
  keys("-l", "second\\");
  keys("Enter");
  keys("-l", "third");
  await waitFor((s) => /› first\n {2}second\n {2}third/.test(s), "three lines in the input");
  expect(fake.requests.length).toBe(0);
  keys("Enter");
  await waitFor((s) => s.includes("three lines read"), "the answer");
  expect(userText(0)).toBe("first\nsecond\nthird");
  await quit();
});

test.skipIf(!hasTmux)("cli keys: Tab completes /mo to /model and @src/ to the workspace's entries; /help lists the keys", async () => {
  mkdirSync(join(ws.dir, "src", "lib"), { recursive: true });
  writeFileSync(join(ws.dir, "src", "alpha.ts"), "");
  writeFileSync(join(ws.dir, "src", "beta.ts"), "");
  fake = await startFakeLlm({ script: [{ text: "looked at alpha" }] });
  startGong();
  await waitFor((s) => s.includes("›"), "the prompt");
  keys("-l", "/mo");
  keys("Tab");
  await waitFor((s) => /› \/model *\n/.test(s), "/mo completed to /model");
  keys("-l", "anthropic/claude-haiku-4-5");
  keys("Enter");
  await waitFor((s) => s.includes("model: anthropic/claude-haiku-4-5"), "the completed command run");

  keys("-l", "read @sr");
  keys("Tab");
  await waitFor((s) => /› read @src\/ *\n/.test(s), "one match completed");
  keys("Tab");
  await waitFor((s) => /› read @src\/ *\nalpha\.ts +beta\.ts +lib\/\n/.test(s), "several matches listed under the input");
  keys("-l", "a");
  keys("Tab");
  const done = await waitFor((s) => /› read @src\/alpha\.ts *\n/.test(s), "@src/a completed");
  // The list went away with the next key.
  expect(done.split("› read @src/alpha.ts")[1]).not.toContain("beta.ts");
  keys("Enter");
  await waitFor((s) => s.includes("looked at alpha"), "the answer");
  expect(userText(0)).toBe("read @src/alpha.ts");

  keys("/help", "Enter");
  await waitFor((s) => s.includes("Ctrl-R") && s.includes("Alt+Enter") && /Tab +complete/.test(s), "the new keys in /help");
  await quit();
});

test.skipIf(!hasTmux)("cli keys: Ctrl-R searches earlier inputs; Enter takes the match into the input, Esc and Ctrl-G cancel", async () => {
  fake = await startFakeLlm({ script: [{ text: "first answer" }, { text: "second answer" }, { text: "third answer" }] });
  startGong();
  await waitFor((s) => s.includes("›"), "the prompt");
  keys("deploy the staging app", "Enter");
  await waitFor((s) => s.includes("first answer"), "the first answer");
  keys("check the deploy logs", "Enter");
  await waitFor((s) => s.includes("second answer"), "the second answer");

  keys("-l", "half");
  keys("C-r");
  keys("-l", "stag");
  await waitFor((s) => s.includes("(reverse-i-search)'stag': deploy the staging app"), "the match");
  keys("Escape");
  await waitFor((s) => /› half *\n/.test(s) && !s.includes("reverse-i-search"), "the input as it was after Esc");

  keys("C-u", "C-r");
  keys("-l", "dep");
  await waitFor((s) => s.includes("(reverse-i-search)'dep': check the deploy logs"), "the newest match");
  keys("C-r");
  await waitFor((s) => s.includes("(reverse-i-search)'dep': deploy the staging app"), "the older match after Ctrl-R again");
  keys("C-g");
  await waitFor((s) => /› *\n/.test(s) && !s.includes("reverse-i-search"), "the empty input after Ctrl-G");

  keys("C-r");
  keys("-l", "staging");
  await waitFor((s) => s.includes("'staging': deploy the staging app"), "the match again");
  keys("Enter");
  await waitFor((s) => /› deploy the staging app *\n/.test(s) && !s.includes("reverse-i-search"), "the match taken into the input");
  expect(fake.requests.length).toBe(2);
  keys("Enter");
  await waitFor((s) => s.includes("third answer"), "the third answer");
  expect(userText(2)).toBe("deploy the staging app");
  await quit();
});

test.skipIf(!hasTmux)("cli keys: the input history is kept per project", async () => {
  const other = join(ws.dir, "other-project");
  mkdirSync(other);
  fake = await startFakeLlm({ script: [{ text: "answer a" }, { text: "answer b" }, { text: "answer a2" }, { text: "answer b2" }] });
  startGong();
  await waitFor((s) => s.includes("›"), "the prompt in project A");
  keys("alpha project input", "Enter");
  await waitFor((s) => s.includes("answer a"), "project A's answer");
  await quit();
  startGong({ cwd: other });
  await waitFor((s) => s.includes("›"), "the prompt in project B");
  keys("beta project input", "Enter");
  await waitFor((s) => s.includes("answer b"), "project B's answer");
  await quit();

  startGong();
  await waitFor((s) => s.includes("›"), "project A again");
  keys("Up", "Up", "Up"); // /quit, then A's input, then nothing older
  await waitFor((s) => /› alpha project input *\n/.test(s), "A's own input recalled");
  keys("Enter");
  await waitFor((s) => s.includes("answer a2"), "the recalled input's answer");
  expect(userText(2)).toBe("alpha project input");
  await quit();

  startGong({ cwd: other });
  await waitFor((s) => s.includes("›"), "project B again");
  keys("Up", "Up", "Up");
  await waitFor((s) => /› beta project input *\n/.test(s), "B's own input recalled");
  keys("Enter");
  await waitFor((s) => s.includes("answer b2"), "the recalled input's answer");
  expect(userText(3)).toBe("beta project input");
  expect(screen()).not.toContain("alpha");
  await quit();
});

test.skipIf(!hasTmux)("cli keys: with stdout not a terminal the shell reads plain lines and writes no escape sequence", async () => {
  fake = await startFakeLlm({ script: [{ text: "plain answer" }] });
  const copy = join(ws.dir, "stdout.txt");
  startGong({ pipe: `tee ${quote(copy)}`, after: "echo gong-exited; sleep 30" });
  await waitFor((s) => s.includes("›"), "the prompt");
  keys("a plain question", "Enter");
  await waitFor((s) => s.includes("plain answer"), "the answer");
  keys("C-d");
  await waitFor((s) => s.includes("gong-exited"), "gong to exit at the end of input");
  expect(userText(0)).toBe("a plain question");
  const written = readFileSync(copy, "utf8");
  expect(written).toContain("plain answer");
  expect(written).not.toContain("\x1b");
});
