/**
 * The shell's input side in a real terminal (tmux at 80 columns, a private tmux server per test):
 * bracketed paste, the newline keys, Tab completion, Ctrl-R, the per-project history, and the
 * plain input off a terminal.
 */
import { expect, test, setDefaultTimeout } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { startFakeLlm, WIRE_APIS, useWorkspace } from "./helpers.ts";
import { type GongTerminal, gongTerminal, quote, type StartOptions } from "./terminal.ts";

// A terminal test waits for many screens; on a crowded machine each may take seconds.
setDefaultTimeout(120_000);

const hasTmux = Bun.spawnSync(["which", "tmux"]).exitCode === 0;

const ws = useWorkspace();
let fake: FakeLlm;

/** Starts gong in `term` at 80 × 40 against the test's fake server. */
function startGong(term: GongTerminal, options: StartOptions = {}): void {
  term.start([...WIRE_APIS[0].flags(fake), "--approval", "auto"], { columns: 80, rows: 40, ...options });
}

/** The text of the last user message the fake server received in request `n`. */
function userText(n: number): string {
  const messages = fake.requests[n].body.messages as {
    role: string;
    content: string | { type: string; text?: string }[];
  }[];
  const last = messages.filter((m) => m.role === "user").at(-1)!;
  return typeof last.content === "string" ? last.content : last.content.map((p) => p.text ?? "").join("");
}

async function quit(term: GongTerminal): Promise<void> {
  term.keys("/quit", "Enter");
  await term.waitFor(() => !term.alive(), "gong to exit");
}

test.skipIf(!hasTmux)(
  "cli keys: a bracketed paste without a final newline waits in the input, Enter sends it as one message, the paste mode ends with gong",
  async () => {
    using term = gongTerminal(ws);
    fake = await startFakeLlm({ script: [{ text: "got the paste" }] });
    startGong(term, { after: "echo gong-exited; cat -v" });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.paste("line one\nline two\nline three");
    await term.waitFor((s) => /› line one\n {2}line two\n {2}line three/.test(s), "the paste in the input");
    term.keys("-l", " and more");
    await term.waitFor((s) => s.includes("  line three and more"), "typing after the paste, on the same input");
    expect(fake.requests.length).toBe(0);
    term.keys("Enter");
    await term.waitFor((s) => s.includes("got the paste"), "the answer");
    expect(fake.requests.length).toBe(1);
    expect(userText(0)).toBe("line one\nline two\nline three and more");

    term.keys("/quit", "Enter");
    await term.waitFor((s) => s.includes("gong-exited"), "gong to exit");
    // The terminal no longer wraps a paste in marks: cat -v would show them as ^[[200~.
    term.paste("pasted-after-exit");
    term.keys("Enter");
    const after = await term.waitFor(
      (s) => s.split("\n").filter((l) => l.includes("pasted-after-exit")).length === 2,
      "cat's echo of the paste",
    );
    expect(after).not.toContain("^[[200~");
  },
);

test.skipIf(!hasTmux)("cli keys: Alt+Enter and a backslash before Enter continue the input on a new line", async () => {
  using term = gongTerminal(ws);
  fake = await startFakeLlm({ script: [{ text: "three lines read" }] });
  startGong(term);
  await term.waitFor((s) => s.includes("›"), "the prompt");
  term.keys("-l", "first");
  term.keys("M-Enter");
  term.keys("-l", "second\\");
  term.keys("Enter");
  term.keys("-l", "third");
  await term.waitFor((s) => /› first\n {2}second\n {2}third/.test(s), "three lines in the input");
  expect(fake.requests.length).toBe(0);
  term.keys("Enter");
  await term.waitFor((s) => s.includes("three lines read"), "the answer");
  expect(userText(0)).toBe("first\nsecond\nthird");
  await quit(term);
});

test.skipIf(!hasTmux)(
  "cli keys: Tab completes /mo to /model and @src/ to the workspace's entries; /help lists the keys",
  async () => {
    using term = gongTerminal(ws);
    mkdirSync(join(ws.dir, "src", "lib"), { recursive: true });
    writeFileSync(join(ws.dir, "src", "alpha.ts"), "");
    writeFileSync(join(ws.dir, "src", "beta.ts"), "");
    fake = await startFakeLlm({ script: [{ text: "looked at alpha" }] });
    startGong(term);
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("-l", "/mo");
    term.keys("Tab");
    await term.waitFor((s) => /› \/model *\n/.test(s), "/mo completed to /model");
    term.keys("-l", "anthropic/claude-haiku-4-5");
    term.keys("Enter");
    await term.waitFor((s) => s.includes("model: anthropic/claude-haiku-4-5"), "the completed command run");

    term.keys("-l", "read @sr");
    term.keys("Tab");
    await term.waitFor((s) => /› read @src\/ *\n/.test(s), "one match completed");
    term.keys("Tab");
    await term.waitFor(
      (s) => /› read @src\/ *\nalpha\.ts +beta\.ts +lib\/\n/.test(s),
      "several matches listed under the input",
    );
    term.keys("-l", "a");
    term.keys("Tab");
    const done = await term.waitFor((s) => /› read @src\/alpha\.ts *\n/.test(s), "@src/a completed");
    // The list went away with the next key.
    expect(done.split("› read @src/alpha.ts")[1]).not.toContain("beta.ts");
    term.keys("Enter");
    await term.waitFor((s) => s.includes("looked at alpha"), "the answer");
    expect(userText(0)).toBe("read @src/alpha.ts");

    term.keys("/help", "Enter");
    await term.waitFor(
      (s) => s.includes("Ctrl-R") && s.includes("Alt+Enter") && /Tab +complete/.test(s),
      "the new keys in /help",
    );
    await quit(term);
  },
);

test.skipIf(!hasTmux)(
  "cli keys: Ctrl-R searches earlier inputs; Enter takes the match into the input, Esc and Ctrl-G cancel",
  async () => {
    using term = gongTerminal(ws);
    fake = await startFakeLlm({
      script: [{ text: "first answer" }, { text: "second answer" }, { text: "third answer" }],
    });
    startGong(term);
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("deploy the staging app", "Enter");
    await term.waitFor((s) => s.includes("first answer"), "the first answer");
    term.keys("check the deploy logs", "Enter");
    await term.waitFor((s) => s.includes("second answer"), "the second answer");

    term.keys("-l", "half");
    term.keys("C-r");
    term.keys("-l", "stag");
    await term.waitFor((s) => s.includes("(reverse-i-search)'stag': deploy the staging app"), "the match");
    term.keys("Escape");
    await term.waitFor((s) => /› half *\n/.test(s) && !s.includes("reverse-i-search"), "the input as it was after Esc");

    term.keys("C-u", "C-r");
    term.keys("-l", "dep");
    await term.waitFor((s) => s.includes("(reverse-i-search)'dep': check the deploy logs"), "the newest match");
    term.keys("C-r");
    await term.waitFor(
      (s) => s.includes("(reverse-i-search)'dep': deploy the staging app"),
      "the older match after Ctrl-R again",
    );
    term.keys("C-g");
    await term.waitFor((s) => /› *\n/.test(s) && !s.includes("reverse-i-search"), "the empty input after Ctrl-G");

    term.keys("C-r");
    term.keys("-l", "staging");
    await term.waitFor((s) => s.includes("'staging': deploy the staging app"), "the match again");
    term.keys("Enter");
    await term.waitFor(
      (s) => /› deploy the staging app *\n/.test(s) && !s.includes("reverse-i-search"),
      "the match taken into the input",
    );
    expect(fake.requests.length).toBe(2);
    term.keys("Enter");
    await term.waitFor((s) => s.includes("third answer"), "the third answer");
    expect(userText(2)).toBe("deploy the staging app");
    await quit(term);
  },
);

test.skipIf(!hasTmux)("cli keys: the input history is kept per project", async () => {
  using term = gongTerminal(ws);
  const other = join(ws.dir, "other-project");
  mkdirSync(other);
  fake = await startFakeLlm({
    script: [{ text: "answer a" }, { text: "answer b" }, { text: "answer a2" }, { text: "answer b2" }],
  });
  startGong(term);
  await term.waitFor((s) => s.includes("›"), "the prompt in project A");
  term.keys("alpha project input", "Enter");
  await term.waitFor((s) => s.includes("answer a"), "project A's answer");
  await quit(term);
  startGong(term, { cwd: other });
  await term.waitFor((s) => s.includes("›"), "the prompt in project B");
  term.keys("beta project input", "Enter");
  await term.waitFor((s) => s.includes("answer b"), "project B's answer");
  await quit(term);

  startGong(term);
  await term.waitFor((s) => s.includes("›"), "project A again");
  term.keys("Up", "Up", "Up"); // /quit, then A's input, then nothing older
  await term.waitFor((s) => /› alpha project input *\n/.test(s), "A's own input recalled");
  term.keys("Enter");
  await term.waitFor((s) => s.includes("answer a2"), "the recalled input's answer");
  expect(userText(2)).toBe("alpha project input");
  await quit(term);

  startGong(term, { cwd: other });
  await term.waitFor((s) => s.includes("›"), "project B again");
  term.keys("Up", "Up", "Up");
  await term.waitFor((s) => /› beta project input *\n/.test(s), "B's own input recalled");
  term.keys("Enter");
  await term.waitFor((s) => s.includes("answer b2"), "the recalled input's answer");
  expect(userText(3)).toBe("beta project input");
  expect(term.screen()).not.toContain("alpha");
  await quit(term);
});

test.skipIf(!hasTmux)(
  "cli keys: with stdout not a terminal the shell reads plain lines and writes no escape sequence",
  async () => {
    using term = gongTerminal(ws);
    fake = await startFakeLlm({ script: [{ text: "plain answer" }] });
    const copy = join(ws.dir, "stdout.txt");
    startGong(term, { pipe: `tee ${quote(copy)}`, after: "echo gong-exited; sleep 30" });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("a plain question", "Enter");
    await term.waitFor((s) => s.includes("plain answer"), "the answer");
    term.keys("C-d");
    await term.waitFor((s) => s.includes("gong-exited"), "gong to exit at the end of input");
    expect(userText(0)).toBe("a plain question");
    const written = readFileSync(copy, "utf8");
    expect(written).toContain("plain answer");
    expect(written).not.toContain("\x1b");
  },
);
