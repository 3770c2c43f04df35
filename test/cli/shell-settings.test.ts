/**
 * Issue 40 in a real terminal (./terminal.ts): Claude Code's statusLine setting, its keybindings
 * file, and images pasted into the input — each with the bad input that must cost one line and
 * leave the shell usable. Each test has a tmux server of its own, killed afterwards.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { closeSync, mkdirSync, openSync, writeFileSync, ftruncateSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makePng } from "../helpers/images.ts";
import { startFakeLlm, useWorkspace, WIRE_APIS } from "./helpers.ts";
import { gongTerminal } from "./terminal.ts";
import { until } from "../helpers/wait.ts";

/** The screen's rows joined where the shell word-wrapped a line (a sentence reads whole). */
const joined = (screen: string) => screen.replace(/\n(?=\S)/g, " ");

setDefaultTimeout(180_000);

const hasTmux = Bun.spawnSync(["which", "tmux"]).exitCode === 0;
const ws = useWorkspace();

function claudeFile(name: string, value: unknown): void {
  mkdirSync(join(ws.home, ".claude"), { recursive: true });
  writeFileSync(join(ws.home, ".claude", name), typeof value === "string" ? value : JSON.stringify(value));
}

for (const { columns, color } of [
  { columns: 100, color: false },
  { columns: 60, color: true },
]) {
  test.skipIf(!hasTmux)(
    `issue 40 statusLine: the command's first line is the status line under the prompt, given the session as JSON, at ${columns} columns (colours ${color ? "on" : "off"})`,
    async () => {
      claudeFile("settings.json", {
        statusLine: {
          type: "command",
          command: `cat > "${ws.dir}/payload.json"; printf 'custom-status ok\\nsecond\\n'`,
        },
      });
      const fake = await startFakeLlm({ script: [{ text: "first answer" }] });
      using term = gongTerminal(ws);
      term.start([...WIRE_APIS[0].flags(fake)], { columns, color });
      await term.waitFor((s) => /›[^\n]*\ncustom-status ok/.test(s), "the command's status line");
      term.keys("hello", "Enter");
      await term.waitFor(
        (s) => s.includes("first answer") && /›[^\n]*\ncustom-status ok\s*$/.test(s),
        "the status line back",
      );
      // The command ran again once the answer came: the payload has its cost.
      const payload = await until(() => {
        try {
          const read = JSON.parse(readFileSync(join(ws.dir, "payload.json"), "utf8"));
          return read.cost.total_cost_usd > 0 ? read : null;
        } catch {
          return null; // being written
        }
      }, "the payload after the answer");
      expect(payload.model.id).toBe("anthropic/claude-haiku-4-5");
      expect(payload.workspace.current_dir).toBe(ws.dir);
      expect(payload.context_window.context_window_size).toBeGreaterThan(0);
      term.keys("/quit", "Enter");
      await term.waitFor(() => !term.alive(), "gong to exit");
    },
  );
}

test.skipIf(!hasTmux)(
  "issue 40 statusLine: a command that fails is one line, gong's own status line stays and the shell goes on",
  async () => {
    claudeFile("settings.json", { statusLine: { type: "command", command: "echo no-such-thing >&2; exit 3" } });
    const fake = await startFakeLlm({ script: [{ text: "still answering" }] });
    using term = gongTerminal(ws);
    term.start([...WIRE_APIS[0].flags(fake)], { columns: 100 });
    const said = await term.waitFor((s) => s.includes("statusLine:"), "the line about the command");
    expect(joined(said)).toContain("exited with code 3 (no-such-thing); gong's own status line shows");
    expect(said).toMatch(/›[^\n]*\nanthropic\/claude-haiku-4-5 \(default\) · approval/);
    term.keys("hello", "Enter");
    const after = await term.waitFor((s) => s.includes("still answering") && s.includes("↑"), "the answer");
    expect(after.split("\n").filter((l) => l.includes("statusLine:")).length).toBe(1);
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)(
  "issue 40 keybindings: ~/.claude/keybindings.json moves the transcript to Ctrl-T and unbinds Ctrl-O",
  async () => {
    claudeFile("keybindings.json", {
      $schema: "https://www.schemastore.org/claude-code-keybindings.json",
      bindings: [{ context: "Global", bindings: { "ctrl+t": "app:toggleTranscript", "ctrl+o": null } }],
    });
    const fake = await startFakeLlm({ script: [{ text: "an answer to look at" }] });
    using term = gongTerminal(ws);
    term.start([...WIRE_APIS[0].flags(fake)], { columns: 100 });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("hello", "Enter");
    await term.waitFor((s) => s.includes("an answer to look at") && s.includes("↑"), "the answer");
    term.keys("C-o");
    term.keys("-l", "typed");
    await term.waitFor((s) => /› typed/.test(s), "Ctrl-O doing nothing");
    term.keys("C-u");
    term.keys("C-t");
    await term.waitFor((s) => /transcript · \d+ messages/.test(s), "Ctrl-T opening the transcript");
    term.keys("q");
    await term.waitFor((s) => !s.includes("transcript ·") && s.includes("an answer to look at"), "back in the shell");
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)(
  "issue 40 keybindings: a file that does not parse and one key bound twice are one line each; the default keys stay and the shell works",
  async () => {
    claudeFile("keybindings.json", "{ bindings: [ not json");
    mkdirSync(ws.env.GONG_HOME, { recursive: true });
    writeFileSync(
      join(ws.env.GONG_HOME, "keybindings.json"),
      '{"bindings": [{"context": "Chat", "bindings": {"ctrl+e": "chat:externalEditor", "ctrl+e": "chat:cancel"}}]}',
    );
    const fake = await startFakeLlm({ script: [{ text: "works anyway" }] });
    using term = gongTerminal(ws);
    term.start([...WIRE_APIS[0].flags(fake)], { columns: 100 });
    const start = await term.waitFor((s) => s.includes("›") && s.includes("written twice"), "the two lines");
    expect(joined(start)).toContain("keybindings.json is not valid JSON");
    expect(joined(start)).toContain('"ctrl+e" is written twice in one block; the last one is used.');
    term.keys("hello", "Enter");
    await term.waitFor((s) => s.includes("works anyway"), "the answer");
    term.keys("C-o");
    await term.waitFor((s) => /transcript · \d+ messages/.test(s), "the default Ctrl-O");
    term.keys("q");
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);

test.skipIf(!hasTmux)(
  "issue 40 images: a pasted image path becomes [Image #1] and goes with the input; a path that is not an image, a 100 MB file and an empty clipboard are one line each",
  async () => {
    writeFileSync(join(ws.dir, "shot.png"), makePng(40, 30));
    writeFileSync(join(ws.dir, "fake.png"), "this is text, not a picture\n");
    const big = openSync(join(ws.dir, "huge.png"), "w");
    ftruncateSync(big, 100 * 1024 * 1024);
    closeSync(big);
    const fake = await startFakeLlm({ script: [{ text: "a small gradient" }] });
    using term = gongTerminal(ws);
    // No clipboard reaches this terminal: no display, no Wayland.
    term.start([...WIRE_APIS[0].flags(fake)], { columns: 100, env: { DISPLAY: "", WAYLAND_DISPLAY: "" } });
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.paste(join(ws.dir, "fake.png"));
    await term.waitFor((s) => s.includes("fake.png is not an image gong can attach"), "the not-an-image line");
    term.keys("C-u");
    term.paste(join(ws.dir, "huge.png"));
    await term.waitFor(
      (s) => s.includes("huge.png is 100 MB; images over 20 MB are not attached"),
      "the too-large line",
    );
    term.keys("C-u");
    term.keys("C-v");
    await term.waitFor((s) => s.includes("no clipboard to read an image from here"), "the no-clipboard line");
    term.paste(`'${join(ws.dir, "shot.png")}'`);
    await term.waitFor((s) => /› \[Image #1\]\s*$/m.test(s), "the image's mark in the input");
    term.keys("-l", " what is this?");
    term.keys("Enter");
    await term.waitFor((s) => s.includes("a small gradient"), "the answer");
    const sent = JSON.stringify(fake.requests[0].body.messages);
    expect(sent).toContain('"type":"image"');
    expect(sent).toContain("[Image #1] what is this?");
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);
