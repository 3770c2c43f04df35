/**
 * Issue 27, the interactive shell's second pass, in a real terminal (./terminal.ts): the live line
 * after an approval, results people read, fitted text, the small commands. Each test has a tmux
 * server of its own, killed afterwards.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { startFakeLlm, WIRE_APIS, useWorkspace } from "./helpers.ts";
import { gongTerminal } from "./terminal.ts";

const hasTmux = Bun.spawnSync(["which", "tmux"]).exitCode === 0;

const ws = useWorkspace();
let fake: FakeLlm;

/** A bash call that prints a line and runs until the test writes the release file (or 30 s pass). */
const longCommand = () => `echo started-the-wait && for _ in $(seq 3000); do [ -e release ] && break; sleep 0.01; done && echo finished-the-wait`;
const release = () => writeFileSync(join(ws.dir, "release"), "");

test.skipIf(!hasTmux)("issue 27: a command approved after 3 s shows its live line (spinner, timer, tail) and its time counts from when it started", async () => {
  using term = gongTerminal(ws);
  fake = await startFakeLlm({ script: [{ toolCalls: [{ name: "bash", arguments: { command: longCommand() } }] }, { text: "approved wait over" }] });
  term.start([...WIRE_APIS[0].flags(fake), "--approval", "ask"], { columns: 100 });
  await term.waitFor((s) => s.includes("›"), "the prompt");
  term.keys("wait after asking", "Enter");
  await term.waitFor((s) => s.includes("allow?"), "the question");
  // The scenario: the user takes 3 s to answer.
  await Bun.sleep(3000);
  const answered = Date.now();
  term.keys("y", "Enter");
  // The live line comes back after the answer: the label, a timer counting from the start, the output's tail.
  const live = await term.waitFor((s) => /bash {2}echo started-the-wait[^\n]*· [1-9]s\n {2}started-the-wait/.test(s), "the live line with its timer and tail");
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
});
