/**
 * Issue 40: Claude Code's statusLine setting — the command reads the session as JSON (Claude Code's
 * field names) and its first line is the status line; a command that hangs, fails or prints 1 MB
 * is one line, said once, and gong's own status line stays.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { StatusCommand, type StatusFacts } from "../../lib/cli/status-command.ts";
import { tempDir } from "../helpers/temp.ts";

const facts = (cwd: string): StatusFacts => ({
  sessionId: "3f2a9c1e-0000-4000-8000-000000000001",
  transcriptPath: join(cwd, "session.jsonl"),
  cwd,
  projectDir: cwd,
  model: "anthropic/claude-haiku-4-5",
  sessionName: "my-feature",
  cost: 0.0123,
  lastUsage: { input: 1000, output: 200, cacheRead: 3000, cacheWrite: 500, reasoning: 0, cost: 0.01 },
  reasoningEffort: "high",
});

function statusCommand(command: string, cwd: string) {
  const warnings: string[] = [];
  let changes = 0;
  const status = new StatusCommand(
    { type: "command", command },
    () => facts(cwd),
    () => changes++,
    (line) => warnings.push(line),
  );
  return { status, warnings, changes: () => changes };
}

test("issue 40 statusLine: the command reads Claude Code's JSON on stdin and its first line is the status line", async () => {
  using dir = tempDir("gong-status-");
  const { status, warnings } = statusCommand(`cat > payload.json; printf 'first line\\nsecond line\\n'`, dir.dir);
  status.idle();
  await status.whenSettled();
  status.stop();
  expect(status.text).toBe("first line");
  expect(warnings).toEqual([]);
  const payload = JSON.parse(readFileSync(join(dir.dir, "payload.json"), "utf8"));
  expect(Object.keys(payload)).toEqual(
    expect.arrayContaining([
      "session_id",
      "transcript_path",
      "cwd",
      "session_name",
      "model",
      "workspace",
      "version",
      "output_style",
      "cost",
      "context_window",
      "exceeds_200k_tokens",
    ]),
  );
  expect(payload.model).toEqual({ id: "anthropic/claude-haiku-4-5", display_name: expect.any(String) });
  expect(payload.workspace).toEqual({ current_dir: dir.dir, project_dir: dir.dir, added_dirs: [] });
  expect(Object.keys(payload.cost).sort()).toEqual(
    ["total_api_duration_ms", "total_cost_usd", "total_duration_ms", "total_lines_added", "total_lines_removed"].sort(),
  );
  expect(payload.context_window).toMatchObject({
    total_input_tokens: 4500,
    total_output_tokens: 200,
    context_window_size: 200000,
    current_usage: {
      input_tokens: 1000,
      output_tokens: 200,
      cache_creation_input_tokens: 500,
      cache_read_input_tokens: 3000,
    },
    used_percentage: 2,
    remaining_percentage: 98,
  });
  expect(payload.exceeds_200k_tokens).toBe(false);
});

test("issue 40 statusLine: a command that hangs, fails or prints 1 MB is one line each, once, and gong's own line stays", async () => {
  using dir = tempDir("gong-status-");
  const cases = [
    { command: "sleep 60", says: "did not finish within 5 s and was stopped", text: null },
    { command: "echo broken >&2; exit 3", says: "exited with code 3 (broken)", text: null },
    { command: "head -c 1048576 /dev/zero | tr '\\0' x", says: "printed over 64 KB on its first line", text: "x" },
    { command: "true", says: "printed nothing", text: null },
  ];
  for (const c of cases) {
    const { status, warnings } = statusCommand(c.command, dir.dir);
    status.idle();
    await status.whenSettled();
    // Run again: the same problem is not said twice.
    status.idle();
    await status.whenSettled();
    status.stop();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(c.says);
    if (c.text === null) expect(status.text).toBeNull();
    else expect(status.text?.startsWith(c.text)).toBe(true);
  }
}, 60_000);
