/**
 * Issue 23: every row of the spec's limits table (docs/conformance.md: 004 §5.2) is pinned, in
 * every profile — the characters the model sees of read, the shell, grep, glob, edit, apply_patch,
 * write and the subagent tools — through the observer that cuts real outputs.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { startReply } from "../../lib/envelope.ts";
import { createObserver, type TruncationInfo } from "../../lib/output/policy.ts";
import { getProfileFactory } from "../../lib/profiles/index.ts";
import { CAPABILITY_LIMITS } from "../../lib/profiles/tool-limits.ts";
import { tempDir } from "../helpers/temp.ts";

/**
 * The limits table (docs/conformance.md: 004 §5.2), row by row: the capability a profile names its
 * tool for, and the characters kept.
 */
const TABLE = [
  { row: "read_file", capability: "read", chars: 50_000 },
  { row: "shell", capability: "bash", chars: 30_000 },
  { row: "grep", capability: "grep", chars: 20_000 },
  { row: "glob", capability: "find", chars: 20_000 },
  { row: "edit_file", capability: "edit", chars: 10_000 },
  { row: "write_file", capability: "write", chars: 1_000 },
] as const;

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir("gong-limits-");
});
afterEach(() => dir.cleanup());

/** What the model is told of a 200,000-character output of `tool` under `profile` (short lines, so the character cut decides). */
async function cutOf(profileId: string, tool: string, kindLimits?: typeof CAPABILITY_LIMITS.agent) {
  const profile = getProfileFactory(profileId)({ model: "example/model" });
  const observer = createObserver({ root: dir.dir, env: {}, perTool: profile.toolLimits });
  const text = Array.from({ length: 20_000 }, (_, i) => `row ${String(i).padStart(5, "0")}`).join("\n");
  const { forModel } = await observer.observe(tool, startReply({}).success({ content: text }, text), { kindLimits });
  return forModel.data.truncation as TruncationInfo;
}

const PROFILES = ["default", "anthropic", "openai", "gemini"] as const;

describe("issue 23 004 §5.2 limits table pinned in every profile", () => {
  for (const id of PROFILES) {
    const profile = getProfileFactory(id)({ model: "example/model" });
    for (const { row, capability, chars } of TABLE) {
      const tool = profile.capabilityTools[capability][0];
      test(`004-5.2 ${id}: ${row} (${tool}) keeps ${chars} characters`, async () => {
        expect((await cutOf(id, tool)).max_chars).toBe(chars);
      });
    }
    test(`004-5.2 ${id}: apply_patch keeps 10000 characters`, async () => {
      expect((await cutOf(id, "apply_patch")).max_chars).toBe(10_000);
    });
    test(`004-5.2 ${id}: spawn_agent (every subagent tool of the profile) keeps 20000 characters from both ends`, async () => {
      const tools = profile.subagentTools(undefined as never, { parentModel: "" });
      expect(tools.length).toBeGreaterThan(0);
      for (const t of tools) {
        // The limit comes by the tool's kind (the session passes it), so no profile entry may shadow it.
        expect(t.kind).toBe("agent");
        expect(profile.toolLimits[t.name]).toBeUndefined();
        const cut = await cutOf(id, t.name, CAPABILITY_LIMITS.agent);
        expect(cut).toMatchObject({ max_chars: 20_000, direction: "head_tail" });
      }
    });
  }
});
