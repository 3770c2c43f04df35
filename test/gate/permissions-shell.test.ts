/** Issue 26: the interactive shell asks for a call an ask rule covers even under `auto`, naming the rule. */
import { expect, test, setDefaultTimeout } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeLlm, useWorkspace, WIRE_APIS } from "../cli/helpers.ts";
import { gongTerminal } from "../cli/terminal.ts";

// A terminal test waits for many screens; on a crowded machine each may take seconds.
setDefaultTimeout(120_000);

const hasTmux = Bun.spawnSync(["which", "tmux"]).exitCode === 0;
const ws = useWorkspace();

test.skipIf(!hasTmux)(
  "issue 26: the shell asks for an ask rule's command under auto; a declined one does not run",
  async () => {
    mkdirSync(join(ws.dir, ".claude"));
    writeFileSync(
      join(ws.dir, ".claude", "settings.json"),
      JSON.stringify({ permissions: { ask: ["Bash(touch *)"] } }),
    );
    const fake = await startFakeLlm({
      script: [
        { toolCalls: [{ name: "bash", arguments: { command: "echo fine && touch asked.txt" } }] },
        { text: "not made" },
      ],
    });
    using term = gongTerminal(ws);
    term.start([...WIRE_APIS[0].flags(fake), "--approval", "auto"]);
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("make it", "Enter");
    await term.waitFor(
      (s) =>
        s.includes("run this command?") &&
        s.includes("asked by the rule Bash(touch *)") &&
        s.includes("$ echo fine && touch asked.txt"),
      "the question naming the rule",
    );
    term.keys("n", "Enter");
    await term.waitFor((s) => s.includes("not made"), "the answer");
    expect(existsSync(join(ws.dir, "asked.txt"))).toBe(false);
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
);
