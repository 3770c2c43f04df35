/**
 * Running `gong -p` under a profile against the fake model, with settings files in the project or
 * the user's home: how the gate's end-to-end tests drive the real tools.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import type { ScriptTurn } from "../../lib/testing/fake-llm/types.ts";
import { fakeFlags, startFakeLlm, type RunResult, type Workspace } from "../cli/helpers.ts";
import type { ProfileCall, ProfileId } from "./helpers.ts";

/** Writes `settings` to a `.claude/settings.json` under `dir` (the project, or the home for the user's file). */
export function claudeSettings(dir: string, settings: unknown): string {
  mkdirSync(join(dir, ".claude"), { recursive: true });
  const file = join(dir, ".claude", "settings.json");
  writeFileSync(file, JSON.stringify(settings));
  return file;
}

/** A turn making these calls at once, then one answering "done". */
export function callsThenDone(calls: ProfileCall[]): ScriptTurn[] {
  return [{ toolCalls: calls.map((c) => ({ name: c.name, arguments: c.args })) }, { text: "done" }];
}

export interface ProfileRun extends RunResult {
  fake: FakeLlm;
  /** Everything the model was sent after the calls ran: the tool results. */
  sent: string;
}

/** `gong -p` under `profile` with the scripted turns; `flags` go before `-p`. */
export async function runUnder(
  ws: Pick<Workspace, "run">,
  profile: ProfileId,
  script: ScriptTurn[],
  flags: string[] = [],
): Promise<ProfileRun> {
  const fake = await startFakeLlm({ script });
  const r = await ws.run([
    ...fakeFlags("anthropic/claude-haiku-4-5", fake.baseUrls.anthropic, profile),
    ...flags,
    "-p",
    "go",
  ]);
  const last = fake.requests.at(-1);
  return { ...r, fake, sent: JSON.stringify(last?.body.messages ?? []) };
}

/** How many times `needle` occurs in `text`. */
export function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}
