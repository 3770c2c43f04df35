/**
 * What a Claude Code user's setup costs: the overhead one shell hook (`true` on PreToolUse) adds to
 * every tool call, and one permission decision against 1,000 rules — the call's declaration read
 * and resolved (paths through the environment, the command line parsed) and the rules matched.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HookRunner } from "../../lib/agent/hooks.ts";
import { parseHookConfig } from "../../lib/setup/hook-config.ts";
import { LocalEnvironment } from "../../lib/env/local.ts";
import { declareCall } from "../../lib/gate/declare.ts";
import { parseRule, PermissionRules, type PermissionRule } from "../../lib/gate/rules.ts";
import { bashTool } from "../../tools/bash.ts";
import { execCommandTool } from "../../lib/profiles/openai/exec-command.ts";
import { editTool } from "../../tools/edit.ts";
import { ShellHooks, type HookDecision } from "../../lib/setup/shell-hooks.ts";
import { type BenchRow, medianMs, ms } from "./measure.ts";

export async function rows(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "gong-bench-setup-"));
  const out: BenchRow[] = [];
  try {
    const config = parseHookConfig(
      { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true" }] }] },
      "bench",
      [],
    );
    const shell = new ShellHooks({
      config,
      cwd: dir,
      env: process.env,
      permissionMode: () => "default",
      report: () => {},
      decisions: new WeakMap<object, HookDecision>(),
    });
    const withHook = new HookRunner([shell.hooks], { hookTimeoutMs: 0 }, () => {});
    const without = new HookRunner([], { hookTimeoutMs: 0 }, () => {});
    const env = new LocalEnvironment({ root: dir });
    const call = { id: "bench", tool: execCommandTool, env };
    const hooked = await medianMs(() => withHook.beforeToolCall("exec_command", { cmd: "npm test" }, call), {
      warmup: 5,
      runs: 40,
    });
    const bare = await medianMs(() => without.beforeToolCall("exec_command", { cmd: "npm test" }, call), {
      warmup: 5,
      runs: 40,
    });
    out.push({
      area: "setup-hooks",
      name: "one `true` PreToolUse hook, overhead per tool call",
      value: ms(hooked - bare),
      target: "≤ 20 ms",
    });

    const rules: PermissionRule[] = [];
    for (let i = 0; i < 1000; i++) {
      const raw =
        i % 4 === 0
          ? `Bash(tool${i} *)`
          : i % 4 === 1
            ? `Bash(tool${i} sub:*)`
            : i % 4 === 2
              ? `Edit(src/dir${i}/**)`
              : `mcp__server${i}__tool`;
      rules.push(
        parseRule(raw, i % 10 === 0 ? "deny" : i % 10 === 1 ? "ask" : "allow", "bench", dir) as PermissionRule,
      );
    }
    const set = new PermissionRules(rules, dir);
    // Each decision reads a fresh line, so nothing the parser remembers helps it.
    let n = 0;
    const decideCommand = async () => {
      const command = `cd src && timeout 60 npm run test -- --watch=false 2>&1 | tee $(mktemp) && echo 'done; ok ${n++}'`;
      set.decide(await declareCall("bash", { command }, bashTool, { env, cwd: dir }));
    };
    const perCall = await medianMs(
      async () => {
        for (let i = 0; i < 100; i++) await decideCommand();
      },
      { warmup: 3, runs: 15 },
    );
    out.push({
      area: "setup-hooks",
      name: "rule matching, 1,000 rules, a 6-part command",
      value: ms(perCall / 100),
      target: "≤ 1 ms",
    });
    const editArgs = { path: "lib/deep/file.ts", old_text: "a", new_text: "b" };
    const edit = await medianMs(
      async () => {
        for (let i = 0; i < 100; i++) set.decide(await declareCall("edit", editArgs, editTool, { env, cwd: dir }));
      },
      { warmup: 3, runs: 15 },
    );
    out.push({
      area: "setup-hooks",
      name: "rule matching, 1,000 rules, an edit",
      value: ms(edit / 100),
      target: "≤ 1 ms",
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
