/**
 * Issue 28, checkpoints and rewind through the session: a scripted session (fake LLM server over
 * real HTTP, real tools, real commands) edits a file, runs `sed -i` on another, deletes a third,
 * creates a fourth with a command and changes a file's mode; rewinding to each turn puts the tree
 * back byte for byte and mode for mode, under each of the four profiles.
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { harness, type Harness } from "../agent/harness.ts";
import { spawnedId } from "../agent/subagent-calls.ts";
import type { ScriptToolCall, ScriptTurn } from "../../lib/testing/fake-llm/types.ts";
import { RewindConflictError } from "../../lib/checkpoints/restore.ts";
import { tempDir } from "../helpers/temp.ts";
import { treeOf } from "./tree.ts";

interface ProfileCalls {
  model: string;
  profile: string;
  edit(path: string, old: string, now: string): ScriptToolCall;
  shell(command: string): ScriptToolCall;
}

const PROFILE_CALLS: ProfileCalls[] = [
  {
    model: "anthropic/claude-sonnet-4-5",
    profile: "default",
    edit: (path, o, n) => ({ name: "edit", arguments: { path, old_text: o, new_text: n } }),
    shell: (command) => ({ name: "bash", arguments: { command } }),
  },
  {
    model: "anthropic/claude-sonnet-4-5",
    profile: "anthropic",
    edit: (p, o, n) => ({ name: "Edit", arguments: { file_path: p, old_string: o, new_string: n } }),
    shell: (command) => ({ name: "Bash", arguments: { command, description: "run it" } }),
  },
  {
    model: "openai/gpt-5-mini",
    profile: "openai",
    edit: (p, o, n) => ({
      name: "apply_patch",
      arguments: { input: `*** Begin Patch\n*** Update File: ${p}\n@@\n-${o}\n+${n}\n*** End Patch` },
    }),
    shell: (cmd) => ({ name: "exec_command", arguments: { cmd } }),
  },
  {
    model: "gemini/gemini-2.5-flash",
    profile: "gemini",
    edit: (p, o, n) => ({
      name: "replace",
      arguments: { file_path: p, instruction: `Change ${o} to ${n}.`, old_string: o, new_string: n },
    }),
    shell: (command) => ({ name: "run_shell_command", arguments: { command } }),
  },
];

/** Ignored and oversized files: outside every checkpoint, never touched by a rewind. */
const OUTSIDE = (rel: string) =>
  rel === "app.log" || rel === "ignored" || rel.startsWith("ignored/") || rel === "big.bin";

function seed(dir: string): void {
  writeFileSync(join(dir, ".gitignore"), "ignored/\n*.log\n");
  writeFileSync(join(dir, "a.txt"), "alpha\n");
  writeFileSync(join(dir, "b.txt"), "beta\nkeep\n");
  writeFileSync(join(dir, "c.txt"), "gamma\n");
  writeFileSync(join(dir, "run.sh"), "echo hi\n");
  chmodSync(join(dir, "run.sh"), 0o644);
  mkdirSync(join(dir, "ignored"));
  writeFileSync(join(dir, "ignored", "keep.txt"), "ignored v1\n");
  writeFileSync(join(dir, "app.log"), "log v1\n");
  writeFileSync(join(dir, "big.bin"), Buffer.alloc(8192, 7));
}

const turn = (...calls: ScriptToolCall[]): ScriptTurn[] => [{ toolCalls: calls }, { text: "Done." }];

function script(d: ProfileCalls): ScriptTurn[] {
  return [
    ...turn(d.edit("a.txt", "alpha", "ALPHA")),
    // The command also writes to an ignored file, a log and the oversized file: a rewind must leave those as they are.
    ...turn(
      d.shell("sed -i 's/beta/BETA/' b.txt && echo v2 >> ignored/keep.txt && echo v2 >> app.log && echo v2 >> big.bin"),
    ),
    ...turn(d.shell("rm c.txt")),
    ...turn(d.shell("mkdir -p gen && printf 'made\\n' > gen/d.txt")),
    ...turn(d.shell("chmod 755 run.sh")),
  ];
}

async function scriptedSession(
  d: ProfileCalls,
): Promise<{ h: Harness; before: Record<string, string>[]; after: Record<string, string> }> {
  // The checkpoint store lives in a temp GONG_HOME of its own, removed with the harness.
  const home = tempDir("gong-checkpoints-");
  const opened = await harness(script(d), {
    model: d.model,
    profile: d.profile,
    checkpoints: { maxFileBytes: 4096, home: home.dir },
    killGraceMs: 200,
  });
  const h: Harness = { ...opened, cleanup: async () => (await opened.cleanup(), home.cleanup()) };
  seed(h.dir);
  const before: Record<string, string>[] = [];
  for (const prompt of ["edit a", "sed b", "delete c", "create d", "chmod run.sh"]) {
    before.push(treeOf(h.dir, OUTSIDE));
    const result = await h.session.submit(prompt);
    expect(result.stopReason).toBe("completed");
  }
  return { h, before, after: treeOf(h.dir, OUTSIDE) };
}

for (const d of PROFILE_CALLS) {
  describe(`issue-28 rewind [${d.profile}]`, () => {
    test(`rewinding to each turn restores every byte and mode; ignored and oversized files are left alone; a rewind is undone [${d.profile}]`, async () => {
      const { h, before, after } = await scriptedSession(d);
      try {
        expect(after["a.txt"]).toBe(`file:644:${Buffer.from("ALPHA\n").toString("base64")}`);
        expect(after["c.txt"]).toBeUndefined();
        expect(after["gen/d.txt"]).toBeDefined();
        expect(after["run.sh"]?.startsWith("file:755:")).toBe(true);
        const created = h.of("checkpoint_created");
        expect(created).toHaveLength(5);
        expect(created[0].data.skipped).toEqual([{ path: "big.bin", reason: "too-large" }]);
        expect(created[0].data.ignored).toBe(2);
        const checkpoints = h.session.checkpoints();
        expect(checkpoints.map((c) => [c.turn, c.prompt])).toEqual([
          [1, "edit a"],
          [2, "sed b"],
          [3, "delete c"],
          [4, "create d"],
          [5, "chmod run.sh"],
        ]);
        const outsideBefore = treeOf(h.dir, (rel) => !OUTSIDE(rel) && rel !== "ignored");
        let lastUndo = "";
        for (let k = 5; k >= 1; k--) {
          const result = await h.session.rewind(checkpoints[k - 1].id);
          expect(treeOf(h.dir, OUTSIDE)).toEqual(before[k - 1]);
          // The conversation is back to just before turn k: 4 messages per earlier turn (input, call, result, answer).
          expect(h.session.messages).toHaveLength(4 * (k - 1));
          lastUndo = result.undoId;
        }
        expect(h.of("rewind")).toHaveLength(5);
        // Ignored, log and oversized files kept what the command wrote.
        expect(treeOf(h.dir, (rel) => !OUTSIDE(rel) && rel !== "ignored")).toEqual(outsideBefore);
        // Undo the last rewind (to turn 1): files and conversation as they were just before it.
        await h.session.rewind(lastUndo);
        expect(treeOf(h.dir, OUTSIDE)).toEqual(before[1]);
        expect(h.session.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
      } finally {
        await h.cleanup();
      }
    }, 60_000);
  });
}

describe("issue-28 changed outside gong", () => {
  test("a file changed behind gong's back is reported, not overwritten; force overwrites it", async () => {
    const { h, before } = await scriptedSession(PROFILE_CALLS[0]);
    try {
      writeFileSync(join(h.dir, "b.txt"), "edited by hand\n");
      appendFileSync(join(h.dir, "a.txt"), "hand\n");
      const tree = treeOf(h.dir, OUTSIDE);
      let error: unknown;
      try {
        await h.session.rewind(h.session.checkpoints()[0].id);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(RewindConflictError);
      expect((error as RewindConflictError).paths).toEqual(["a.txt", "b.txt"]);
      expect((error as Error).message).toContain("a.txt, b.txt");
      expect(treeOf(h.dir, OUTSIDE)).toEqual(tree);
      expect(h.session.messages).toHaveLength(20);
      const preview = h.session.previewRewind(1);
      expect(preview.conflicts).toEqual(["a.txt", "b.txt"]);
      await h.session.rewind(1, { force: true });
      expect(treeOf(h.dir, OUTSIDE)).toEqual(before[0]);
    } finally {
      await h.cleanup();
    }
  }, 60_000);

  test("files-only and conversation-only rewinds", async () => {
    const { h, before, after } = await scriptedSession(PROFILE_CALLS[0]);
    try {
      await h.session.rewind(3, { conversation: false });
      expect(treeOf(h.dir, OUTSIDE)).toEqual(before[2]);
      expect(h.session.messages).toHaveLength(20);
      await h.session.rewind(2, { files: false });
      expect(treeOf(h.dir, OUTSIDE)).toEqual(before[2]);
      expect(h.session.messages).toHaveLength(4);
      expect(treeOf(h.dir, OUTSIDE)).not.toEqual(after);
    } finally {
      await h.cleanup();
    }
  }, 60_000);
});

describe("issue-28 subagents", () => {
  test("a subagent's turn is checkpointed too; rewinding the parent's turn undoes what its child did", async () => {
    const { routeByPrompt } = await import("../../lib/testing/fake-llm/route.ts");
    const home = tempDir("gong-checkpoints-");
    const call = (name: string, args: Record<string, unknown>): ScriptTurn => ({
      toolCalls: [{ name, arguments: args }],
    });
    const h = await harness(
      routeByPrompt({
        PARENT: [
          call("spawn_agent", { task: "CHILD: append to a.txt" }),
          (r) => call("wait", { agent_id: spawnedId(r) }),
          { text: "done" },
        ],
        CHILD: [call("bash", { command: "echo child >> a.txt" }), { text: "appended" }],
      }),
      { checkpoints: { home: home.dir } },
    );
    try {
      writeFileSync(join(h.dir, "a.txt"), "start\n");
      const start = treeOf(h.dir);
      await h.session.submit("PARENT: delegate");
      expect(treeOf(h.dir)).not.toEqual(start);
      const created = h.of("checkpoint_created");
      // The parent's turn first; then the child's (a child's report may also come back as a follow-up turn of the parent's).
      expect(created[0].agent_id).toBeUndefined();
      expect(created.filter((e) => e.agent_id !== undefined)).toHaveLength(1);
      await h.session.rewind(1);
      expect(treeOf(h.dir)).toEqual(start);
    } finally {
      await h.cleanup();
      home.cleanup();
    }
  }, 60_000);
});
