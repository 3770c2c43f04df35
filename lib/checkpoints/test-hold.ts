/**
 * A test hook for crash tests: with `GONG_TEST_HOLD=<phase>:<marker file>` in the environment, the
 * process writes the marker file when it reaches `phase` ("checkpoint": while storing files;
 * "rewind": halfway through putting files in place) and then stops there until it is killed. A test
 * waits for the marker and sends SIGKILL: the crash lands at a known point, not at a guessed time.
 */
import { writeFileSync } from "node:fs";
import process from "node:process";

export type HoldPhase = "checkpoint" | "rewind";

export function holdIfAsked(phase: HoldPhase): void {
  const spec = process.env.GONG_TEST_HOLD;
  if (!spec?.startsWith(`${phase}:`)) return;
  writeFileSync(spec.slice(phase.length + 1), String(process.pid));
  const cell = new Int32Array(new SharedArrayBuffer(4));
  for (;;) Atomics.wait(cell, 0, 0, 60_000);
}
