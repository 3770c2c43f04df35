/**
 * Issue 28 in the interactive shell (tmux runs `gong`): Esc Esc on an empty input lists the turns,
 * `/rewind N` shows what would change, `/rewind N both` puts the files and the conversation back.
 */
import { expect, test, setDefaultTimeout } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeLlm, WIRE_APIS, useWorkspace } from "../cli/helpers.ts";
import { gongTerminal } from "../cli/terminal.ts";

// A terminal test waits for many screens; on a crowded machine each may take seconds.
setDefaultTimeout(120_000);

const hasTmux = Bun.spawnSync(["which", "tmux"]).exitCode === 0;
const ws = useWorkspace();

test.skipIf(!hasTmux)(
  "issue-28 /rewind: pick a turn, see the change, rewind code and conversation; Esc Esc lists the turns",
  async () => {
    using term = gongTerminal(ws);
    writeFileSync(join(ws.dir, "notes.txt"), "one\n");
    const fake = await startFakeLlm({
      script: [
        { toolCalls: [{ name: "bash", arguments: { command: "echo two >> notes.txt" } }] },
        { text: "Appended." },
      ],
    });
    term.start([...WIRE_APIS[0].flags(fake), "--approval", "auto"]);
    await term.waitFor((s) => s.includes("›"), "the prompt");
    term.keys("append a line", "Enter");
    await term.waitFor((s) => s.includes("Appended."), "the answer");
    expect(readFileSync(join(ws.dir, "notes.txt"), "utf8")).toBe("one\ntwo\n");

    term.keys("Escape");
    term.keys("Escape");
    await term.waitFor((s) => /^ +1 {2}\w{8} .*append a line$/m.test(s), "the turns listed by Esc Esc");

    term.keys("/rewind 1", "Enter");
    await term.waitFor((s) => s.includes("M notes.txt (+0 -1)") && s.includes("choose: /rewind 1 code"), "the preview");
    expect(readFileSync(join(ws.dir, "notes.txt"), "utf8")).toBe("one\ntwo\n");

    term.keys("/rewind 1 both", "Enter");
    await term.waitFor((s) => s.includes("rewound the code and the conversation"), "the rewind");
    expect(readFileSync(join(ws.dir, "notes.txt"), "utf8")).toBe("one\n");
    term.keys("/quit", "Enter");
    await term.waitFor(() => !term.alive(), "gong to exit");
  },
  60_000,
);
