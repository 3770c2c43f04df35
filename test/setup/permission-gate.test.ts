/**
 * Issue 26: the approval gate with permission rules — rules apply in every mode, ask rules ask even
 * under `auto`, a hook's allow skips the question but not a deny rule, and "always" never lets a
 * command after an operator through.
 */
import { expect, test } from "bun:test";
import {
  approvalGate,
  unattendedGate,
  withGate,
  type ApprovalAnswer,
  type ApprovalMode,
  type ApprovalRequest,
  type SessionPermissions,
} from "../../lib/cli/approval.ts";
import { HookRunner } from "../../lib/agent/hooks.ts";
import { parseRule, PermissionRules, type Behavior } from "../../lib/setup/permission-rules.ts";
import type { HookDecision } from "../../lib/setup/shell-hooks.ts";

const cwd = "/work/project";

function permissions(spec: Partial<Record<Behavior, string[]>> = {}): SessionPermissions {
  const rules = (["deny", "ask", "allow"] as const).flatMap((b) =>
    (spec[b] ?? []).map((raw) => parseRule(raw, b, "settings.json", cwd) as never),
  );
  return { rules: new PermissionRules(rules, cwd), cwd, hookDecisions: new WeakMap<object, HookDecision>() };
}

function gate(p: SessionPermissions, mode: ApprovalMode, answer: ApprovalAnswer = { allow: true }) {
  const asked: ApprovalRequest[] = [];
  const g = approvalGate({ mode: () => mode, ask: async (r) => (asked.push(r), answer), permissions: p });
  let id = 0;
  const call = async (toolName: string, args: Record<string, unknown>, kind: "shell" | "modify" = "shell") => {
    g.observe({
      kind: "tool_call_start",
      timestamp: 0,
      session_id: "s",
      data: {
        call_id: `c${++id}`,
        tool_name: toolName,
        arguments: args,
        kind,
        call_summary: String(args.command ?? ""),
      },
    } as never);
    return g.hooks.beforeToolCall!(toolName, args);
  };
  return { call, asked };
}

test("issue 26: the safety defect through the gate — 'always' for `cd src && ls` does not pass `cd src && touch ../PWNED`", async () => {
  const g = gate(permissions(), "ask", { allow: true, always: true, scope: "project" });
  await g.call("bash", { command: "cd src && ls" });
  expect(g.asked[0].alwaysRules).toEqual(["Bash(cd src *)", "Bash(ls *)"]);
  expect(await g.call("bash", { command: "cd src && ls -la" })).toBeUndefined();
  expect(g.asked.length).toBe(1);
  await g.call("bash", { command: "cd src && touch ../PWNED && echo done" });
  expect(g.asked.length).toBe(2);
  expect(g.asked[1].alwaysRules).toEqual(["Bash(touch *)", "Bash(echo done *)"]);
});

test("issue 26: deny refuses in every mode with the reason the model sees; ask asks even under auto; allow skips the question", async () => {
  const p = permissions({ deny: ["Bash(rm *)"], ask: ["Bash(git push *)"], allow: ["Bash(npm test *)"] });
  for (const mode of ["ask", "edits", "auto"] as const) {
    const g = gate(p, mode);
    expect(await g.call("bash", { command: "ls && rm -rf /" })).toEqual({
      block: "Permission to use bash was denied by the rule Bash(rm *) in settings.json.",
    });
    await g.call("bash", { command: "git push origin" });
    expect(g.asked.at(-1)?.askRule).toBe("the rule Bash(git push *) in settings.json");
    const before = g.asked.length;
    expect(await g.call("bash", { command: "npm test" })).toBeUndefined();
    expect(g.asked.length).toBe(before);
  }
});

test("issue 26: under edits, read-only commands pass without a question; others are asked", async () => {
  const g = gate(permissions(), "edits");
  await g.call("bash", { command: "ls -la && git status | grep x" });
  expect(g.asked.length).toBe(0);
  await g.call("bash", { command: "ls > listing.txt" });
  expect(g.asked.length).toBe(1);
});

test("issue 26: a PreToolUse hook's allow skips the question but not a deny rule; its ask asks under auto", async () => {
  const p = permissions({ deny: ["Bash(rm *)"] });
  const g = gate(p, "ask");
  const allowed = { command: "make" };
  p.hookDecisions.set(allowed, { behavior: "allow" });
  expect(await g.call("bash", allowed)).toBeUndefined();
  expect(g.asked.length).toBe(0);
  const denied = { command: "rm x" };
  p.hookDecisions.set(denied, { behavior: "allow" });
  expect(await g.call("bash", denied)).toMatchObject({ block: expect.stringContaining("Bash(rm *)") });
  const auto = gate(p, "auto");
  const asked = { command: "make deploy" };
  p.hookDecisions.set(asked, { behavior: "ask", reason: "deploys need a look" });
  await auto.call("bash", asked);
  expect(auto.asked[0].askRule).toBe("a PreToolUse hook: deploys need a look");
});

test("issue 26: print and RPC (the unattended gate) refuse an ask rule; a mode's own gate replaces the unattended one", async () => {
  const p = permissions({ ask: ["Bash(git push *)"] });
  const unattended = unattendedGate(p);
  const runner = new HookRunner([unattended], { hookTimeoutMs: 0 }, () => {});
  expect(await runner.beforeToolCall("bash", { command: "git push" })).toEqual({
    block:
      "Permission to use bash needs the user's approval (the rule Bash(git push *) in settings.json), and no one can answer in this mode.",
  });
  expect(await runner.beforeToolCall("bash", { command: "git status" })).toBeNull();
  const own = approvalGate({ mode: () => "ask", ask: async () => ({ allow: true }), permissions: p });
  expect(withGate([unattended], own)).toEqual([own.hooks]);
});
