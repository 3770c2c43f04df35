/**
 * Issue 26: shell hooks in Claude Code's format — each event, exit code and JSON field, with real
 * hook processes (sh scripts written into a temp project), through gong's hook pipeline (HookRunner).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HookRunner } from "../../lib/agent/hooks.ts";
import type { HookErrorReport } from "../../lib/agent/vocabulary.ts";
import { parseHookConfig, type HookConfig } from "../../lib/setup/hook-config.ts";
import { ShellHooks, type HookDecision } from "../../lib/setup/shell-hooks.ts";
import { tempDir, type TempDir } from "../helpers/temp.ts";
import { pending } from "../gate/helpers.ts";

let dir: TempDir;
/** Every project a test set up (some set up several): all removed after it. */
const made: TempDir[] = [];
afterEach(() => {
  for (const d of made.splice(0)) d.cleanup();
});

function setup(hooks: unknown) {
  dir = tempDir("gong-hooks-");
  made.push(dir);
  const notices: string[] = [];
  const config: HookConfig = parseHookConfig(hooks, join(dir.dir, ".claude/settings.json"), notices);
  const lines: string[] = [];
  const decisions = new WeakMap<object, HookDecision>();
  const shell = new ShellHooks({
    config,
    cwd: dir.dir,
    env: process.env,
    permissionMode: () => "default",
    report: (l) => void lines.push(l),
    decisions,
  });
  const errors: HookErrorReport[] = [];
  const runner = new HookRunner([shell.hooks], { hookTimeoutMs: 5000 }, (e) => void errors.push(e));
  return { shell, runner, lines, notices, decisions, errors };
}

/** A hook entry running `script` (a shell script body) for `event`, matching `matcher`. */
const on = (event: string, script: string, matcher?: string, timeout?: number) => ({
  [event]: [
    {
      ...(matcher !== undefined ? { matcher } : {}),
      hooks: [{ type: "command", command: script, ...(timeout ? { timeout } : {}) }],
    },
  ],
});
const input = () => JSON.parse(readFileSync(join(dir.dir, "input.json"), "utf8"));
/** A call reaching the hooks as a session hands it over: with its tool and environment. */
const before = (h: ReturnType<typeof setup>, tool: string, args: Record<string, unknown>) =>
  h.runner.beforeToolCall(tool, args, pending({ name: tool, args }, dir.dir));
const SAVE = "cat > input.json";

describe("issue 26: PreToolUse", () => {
  test("the event JSON on stdin: common fields, Claude Code's tool name and input, gong's in extra fields; cwd and $CLAUDE_PROJECT_DIR are the project", async () => {
    const h = setup(on("PreToolUse", `${SAVE}; echo "$PWD|$CLAUDE_PROJECT_DIR|$GONG_PROJECT_DIR" > env.txt`, "Bash"));
    expect(await before(h, "exec_command", { cmd: "npm test" })).toBeNull();
    expect(input()).toMatchObject({
      session_id: "",
      cwd: dir.dir,
      permission_mode: "default",
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "npm test" },
      gong_tool_name: "exec_command",
      gong_tool_input: { cmd: "npm test" },
    });
    expect(readFileSync(join(dir.dir, "env.txt"), "utf8").trim()).toBe(`${dir.dir}|${dir.dir}|${dir.dir}`);
  });

  test("the matcher is a regular expression over Claude Code's tool names; a plain name matches exactly", async () => {
    const h = setup({
      PreToolUse: [
        { matcher: "Edit|Write", hooks: [{ type: "command", command: "echo $$ >> edits" }] },
        { matcher: "Bas", hooks: [{ type: "command", command: "echo x >> partial" }] },
      ],
    });
    await before(h, "replace", { file_path: "a.ts", instruction: "rename", old_string: "a", new_string: "b" });
    await before(h, "write_file", { file_path: "b.ts", content: "" });
    await before(h, "read_file", { file_path: "b.ts" });
    await before(h, "bash", { command: "ls" });
    expect(readFileSync(join(dir.dir, "edits"), "utf8").trim().split("\n").length).toBe(2);
    expect(() => readFileSync(join(dir.dir, "partial"))).toThrow();
  });

  test("an apply_patch reaches the hook as the Edit and Write calls it amounts to, one per file", async () => {
    const h = setup(on("PreToolUse", `jq -c '[.tool_name, .tool_input.file_path]' >> calls`, "Edit|Write"));
    const patch = "*** Begin Patch\n*** Add File: new.ts\n+x\n*** Update File: old.ts\n@@\n-a\n+b\n*** End Patch";
    await before(h, "apply_patch", { input: patch });
    const calls = readFileSync(join(dir.dir, "calls"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .sort();
    expect(calls).toEqual([
      ["Edit", join(dir.dir, "old.ts")],
      ["Write", join(dir.dir, "new.ts")],
    ]);
  });

  test("exit 2 blocks with stderr as the reason; other exit codes are one line and the call goes on", async () => {
    const h = setup({ PreToolUse: [{ hooks: [{ type: "command", command: "echo 'not this one' >&2; exit 2" }] }] });
    expect(await before(h, "bash", { command: "ls" })).toEqual({ block: "not this one" });
    const g = setup(on("PreToolUse", "echo oops >&2; exit 1"));
    expect(await before(g, "bash", { command: "ls" })).toBeNull();
    expect(g.lines).toEqual([
      `PreToolUse hook "echo oops >&2; exit 1" (${join(dir.dir, ".claude/settings.json")}) failed with exit code 1: oops`,
    ]);
  });

  test("hookSpecificOutput.permissionDecision deny / allow / ask with its reason; the legacy decision block denies", async () => {
    const json = (o: unknown) => `echo '${JSON.stringify(o)}'`;
    const deny = setup(
      on(
        "PreToolUse",
        json({
          hookSpecificOutput: {
            hookEventName: "PreToolUse",
            permissionDecision: "deny",
            permissionDecisionReason: "use the test script",
          },
        }),
      ),
    );
    expect(await before(deny, "bash", { command: "ls" })).toEqual({ block: "use the test script" });
    const legacy = setup(on("PreToolUse", json({ decision: "block", reason: "old style" })));
    expect(await before(legacy, "bash", { command: "ls" })).toEqual({ block: "old style" });
    for (const behavior of ["allow", "ask"] as const) {
      const h = setup(
        on(
          "PreToolUse",
          json({
            hookSpecificOutput: {
              hookEventName: "PreToolUse",
              permissionDecision: behavior,
              permissionDecisionReason: "why",
            },
          }),
        ),
      );
      const args = { command: "ls" };
      expect(await before(h, "bash", args)).toBeNull();
      expect(h.decisions.get(args)).toEqual({ behavior, reason: "why" });
    }
  });

  test("updatedInput rewrites the call in gong's own argument names (codex's cmd)", async () => {
    const h = setup(
      on(
        "PreToolUse",
        `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"npm test -- --ci"}}}'`,
      ),
    );
    const args = { cmd: "npm test", yield_time_ms: 1000 };
    await before(h, "exec_command", args);
    expect(args).toEqual({ cmd: "npm test -- --ci", yield_time_ms: 1000 });
  });

  test("continue false stops the call with stopReason; systemMessage is shown; additionalContext reaches the model with the result", async () => {
    const stop = setup(on("PreToolUse", `echo '{"continue":false,"stopReason":"frozen for release"}'`));
    expect(await before(stop, "bash", { command: "ls" })).toEqual({ block: "frozen for release" });
    const h = setup(
      on(
        "PreToolUse",
        `echo '{"systemMessage":"checked by policy","hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"the tests take 2 minutes"}}'`,
      ),
    );
    const args = { command: "ls" };
    await before(h, "bash", args);
    const result = await h.runner.onToolResult("bash", { status: "success", text: "a.txt" } as never, args);
    expect(result.text).toBe("a.txt\n\nthe tests take 2 minutes");
    expect(h.lines).toEqual(["checked by policy"]);
  });

  test("several hooks of one event run in parallel (each waits for the other's mark)", async () => {
    const wait = (mine: string, other: string) =>
      `touch ${mine}; for i in $(seq 1 300); do [ -e ${other} ] && exit 0; sleep 0.1; done; exit 1`;
    const h = setup({
      PreToolUse: [
        {
          hooks: [
            { type: "command", command: wait("one", "two") },
            { type: "command", command: wait("two", "one") },
          ],
        },
      ],
    });
    expect(await before(h, "bash", { command: "ls" })).toBeNull();
    expect(h.lines).toEqual([]);
  });
});

describe("issue 26: the other events", () => {
  test("PostToolUse: exit 2 and decision block give the model feedback; PostToolUseFailure sees the error", async () => {
    const h = setup({
      ...on("PostToolUse", "cat > post.json; echo 'lint: 3 problems' >&2; exit 2"),
      ...on("PostToolUseFailure", `${SAVE}`),
    });
    const written = { path: "a.ts", content: "x" };
    await before(h, "write", written);
    const ok = await h.runner.onToolResult("write", { status: "success", text: "wrote a.ts" } as never, written);
    expect(ok.text).toBe("wrote a.ts\n\nlint: 3 problems");
    expect(JSON.parse(readFileSync(join(dir.dir, "post.json"), "utf8"))).toMatchObject({
      hook_event_name: "PostToolUse",
      tool_name: "Write",
      tool_input: { file_path: join(dir.dir, "a.ts"), content: "x" },
      tool_response: { success: true, filePath: join(dir.dir, "a.ts") },
    });
    const failed = { command: "false" };
    await before(h, "bash", failed);
    await h.runner.onToolResult(
      "bash",
      { status: "error", text: "boom", error: { code: "EXECUTION_ERROR", message: "exit 1" } } as never,
      failed,
    );
    expect(input()).toMatchObject({
      hook_event_name: "PostToolUseFailure",
      tool_name: "Bash",
      error: "exit 1",
      is_interrupt: false,
    });
  });

  test("UserPromptSubmit: exit 0 stdout is context; exit 2 drops the prompt and shows stderr to the user", async () => {
    const h = setup(on("UserPromptSubmit", `${SAVE}; echo "ticket ABC-1 is open"`));
    expect(await h.runner.onInput("fix it", [])).toEqual({ handled: false, text: "fix it", images: [] });
    expect(input()).toMatchObject({ hook_event_name: "UserPromptSubmit", prompt: "fix it" });
    const prepared = await h.runner.onBeforeAgent("fix it", "system");
    expect(prepared.messages.map((m) => m.content)).toEqual(["ticket ABC-1 is open"]);
    const b = setup(on("UserPromptSubmit", "echo 'no secrets in prompts' >&2; exit 2"));
    expect(await b.runner.onInput("my password is x", [])).toEqual({ handled: true });
    expect(b.lines).toEqual(["prompt blocked by a UserPromptSubmit hook: no secrets in prompts"]);
  });

  test("SessionStart: runs once before the first request, with source startup; its stdout or additionalContext is context", async () => {
    const h = setup(
      on(
        "SessionStart",
        `${SAVE}; echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"branch: main"}}'`,
        "startup",
      ),
    );
    const first = await h.runner.onBeforeAgent("a", "s");
    const second = await h.runner.onBeforeAgent("b", "s");
    expect(first.messages.map((m) => m.content)).toEqual(["branch: main"]);
    expect(second.messages).toEqual([]);
    expect(input()).toMatchObject({ hook_event_name: "SessionStart", source: "startup" });
  });

  test("Stop: exit 2 (or decision block) keeps the agent going with the reason; stop_hook_active tells the hook it already did", async () => {
    const h = setup(
      on(
        "Stop",
        `${SAVE}; if jq -e '.stop_hook_active' input.json >/dev/null; then exit 0; fi; echo 'run the tests first' >&2; exit 2`,
      ),
    );
    expect(await h.runner.onStop("done")).toBe("run the tests first");
    expect(input()).toMatchObject({ hook_event_name: "Stop", stop_hook_active: false, last_assistant_message: "done" });
    expect(await h.runner.onStop("done again")).toBeUndefined();
    expect(input().stop_hook_active).toBe(true);
  });

  test("PreCompact, SubagentStart, SubagentStop, SessionEnd and Notification run with their fields", async () => {
    const save = (name: string) => `cat > ${name}.json`;
    const h = setup({
      ...on("PreCompact", save("precompact"), "manual"),
      ...on("SubagentStart", save("substart")),
      ...on("SubagentStop", save("substop")),
      ...on("SessionEnd", save("end")),
      ...on("Notification", save("note")),
    });
    await h.runner.beforeSessionOp("compact", { reason: "manual", tokens: 10 });
    const ev = (kind: string, data: unknown) => ({ kind, data, timestamp: 0, session_id: "s-1" }) as never;
    h.shell.observe(ev("subagent_start", { agent_id: "a1", name: "explorer", task: "look" }));
    h.shell.observe(ev("subagent_end", { agent_id: "a1", name: "explorer" }));
    h.shell.observe(ev("session_end", { state: "CLOSED", reason: "closed", turns: 1 }));
    h.shell.notify("gong needs your permission to use bash", "permission_prompt");
    await h.shell.settle();
    const read = (name: string) => JSON.parse(readFileSync(join(dir.dir, `${name}.json`), "utf8"));
    expect(read("precompact")).toMatchObject({
      hook_event_name: "PreCompact",
      trigger: "manual",
      custom_instructions: "",
    });
    expect(read("substart")).toMatchObject({
      hook_event_name: "SubagentStart",
      agent_id: "a1",
      agent_type: "explorer",
      session_id: "s-1",
    });
    expect(read("substop")).toMatchObject({ hook_event_name: "SubagentStop", agent_id: "a1", stop_hook_active: false });
    expect(read("end")).toMatchObject({ hook_event_name: "SessionEnd", reason: "prompt_input_exit" });
    expect(read("note")).toMatchObject({
      hook_event_name: "Notification",
      message: "gong needs your permission to use bash",
      notification_type: "permission_prompt",
    });
  });

  test("PermissionRequest: the hook's decision answers in the user's place", async () => {
    const h = setup(
      on(
        "PermissionRequest",
        `echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not on main"}}}'`,
        "Bash",
      ),
    );
    const push = { command: "git push" };
    await before(h, "run_shell_command", push);
    expect(await h.shell.permissionRequest("run_shell_command", push)).toEqual({
      allow: false,
      reason: "not on main",
    });
  });
});

describe("issue 26: bad hook configuration and bad hooks", () => {
  test("events gong has no moment for are listed once as ignored; other handler types and malformed entries are one line each", () => {
    const h = setup({
      PostCompact: [],
      TeammateIdle: [],
      PreToolUse: [{ matcher: "(", hooks: [] }, { hooks: [{ type: "prompt", prompt: "x" }, { type: "command" }] }],
      Stop: "no",
    });
    const file = join(dir.dir, ".claude/settings.json");
    expect(h.notices[0]).toStartWith(`${file}: hooks.PreToolUse[0].matcher is not a valid regular expression (`);
    expect(h.notices.slice(1)).toEqual([
      `${file}: hooks.PreToolUse[1].hooks[0] is a "prompt" hook; gong runs "command" hooks only, so it was ignored.`,
      `${file}: hooks.PreToolUse[1].hooks[1] needs a "command"; it was skipped.`,
      `${file}: hooks.Stop must be a list of matcher groups; it was skipped.`,
      `${file}: hooks for PostCompact, TeammateIdle are ignored: gong has no such moment.`,
    ]);
  });

  test("malformed JSON output is one line and read as text; a PreToolUse hook that fails this way does not block", async () => {
    const h = setup(on("PreToolUse", `echo '{"hookSpecificOutput": {"permissionDecision": "deny"'`));
    expect(await before(h, "bash", { command: "ls" })).toBeNull();
    expect(h.lines[0]).toContain("printed malformed JSON");
  });

  test("a hook that hangs is stopped at its timeout (seconds) and the call goes on", async () => {
    const h = setup(on("PreToolUse", "sleep 300", undefined, 1));
    expect(await before(h, "bash", { command: "ls" })).toBeNull();
    expect(h.lines[0]).toContain("did not finish within its timeout and was stopped");
    expect(h.errors).toEqual([]);
  });

  test("a hook that prints 100 MB is read up to 1 MB; a hook killed with exit 137 is one line", async () => {
    const big = setup(on("PostToolUse", "head -c 104857600 /dev/zero | tr '\\0' x"));
    const result = await big.runner.onToolResult("bash", { status: "success", text: "ok" } as never, { command: "ls" });
    expect(result.text).toBe("ok");
    expect(big.lines[0]).toContain("printed more than 1 MB");
    const killed = setup(on("PreToolUse", "kill -9 $$"));
    expect(await before(killed, "bash", { command: "ls" })).toBeNull();
    expect(killed.lines[0]).toContain("failed with exit code 137");
  });
});

test("issue 26: Claude Code's published Bash command validator blocks under every profile's shell tool", async () => {
  const fixture = join(import.meta.dir, "..", "fixtures", "claude-code", "bash_command_validator_example.py");
  const h = setup(on("PreToolUse", `python3 ${fixture}`, "Bash"));
  for (const [tool, args] of [
    ["bash", { command: "grep -r foo ." }],
    ["Bash", { command: "grep -r foo ." }],
    ["exec_command", { cmd: "grep -r foo ." }],
    ["run_shell_command", { command: "grep -r foo ." }],
  ] as const) {
    const gate = await before(h, tool, { ...args });
    expect(gate).toEqual({ block: "• Use 'rg' (ripgrep) instead of 'grep' for better performance and features" });
  }
  expect(await before(h, "exec_command", { cmd: "rg foo" })).toBeNull();
  expect(await before(h, "read_file", { file_path: "grep" })).toBeNull();
  writeFileSync(join(dir.dir, "x"), "");
});
