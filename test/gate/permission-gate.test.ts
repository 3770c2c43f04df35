/**
 * Issue 26 (moved with the gate into lib/gate): the approval gate with permission rules — rules
 * apply in every mode, ask rules ask even under `auto`, a hook's allow skips the question but not
 * a deny rule, and "always" never lets a command after an operator through.
 */
import { afterAll, expect, test } from "bun:test";
import {
  approvalGate,
  unattendedGate,
  withGate,
  type ApprovalAnswer,
  type ApprovalRequest,
  type SessionPermissions,
} from "../../lib/gate/approval.ts";
import type { HookDecision } from "../../lib/gate/decide.ts";
import type { ApprovalMode } from "../../lib/gate/modes.ts";
import { HookRunner } from "../../lib/agent/hooks.ts";
import { tempDir } from "../helpers/temp.ts";
import { pending, rules, type RuleSpec } from "./helpers.ts";

const project = tempDir("gong-gate-");
const cwd = project.dir;
afterAll(() => project.cleanup());

function permissions(spec: RuleSpec = {}): SessionPermissions {
  return {
    rules: rules(spec, cwd, undefined, "settings.json"),
    cwd,
    hookDecisions: new WeakMap<object, HookDecision>(),
  };
}

function gate(p: SessionPermissions, mode: ApprovalMode, answer: ApprovalAnswer = { allow: true }) {
  const asked: ApprovalRequest[] = [];
  const g = approvalGate({ mode: () => mode, ask: async (r) => (asked.push(r), answer), permissions: p });
  let id = 0;
  const call = async (toolName: string, args: Record<string, unknown>) =>
    g.hooks.beforeToolCall(toolName, args, pending({ name: toolName, args }, cwd, undefined, `c${++id}`));
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

test("issue 26: print and RPC (the unattended gate) refuse an ask rule, saying what would allow it; a mode's own gate replaces the unattended one", async () => {
  const p = permissions({ ask: ["Bash(git push *)"] });
  const unattended = unattendedGate(p);
  const runner = new HookRunner([unattended], { hookTimeoutMs: 0 }, () => {});
  const run = (command: string) =>
    runner.beforeToolCall("bash", { command }, pending({ name: "bash", args: { command } }, cwd));
  expect(await run("git push")).toEqual({
    block:
      "Permission to use bash needs the user's approval (the rule Bash(git push *) in settings.json), and no one can answer in this mode (print and RPC modes never ask). To let such calls run, the user can move Bash(git push *) to permissions.allow.",
  });
  expect(await run("git status")).toBeNull();
  const own = approvalGate({ mode: () => "ask", ask: async () => ({ allow: true }), permissions: p });
  expect(withGate([unattended], own)).toEqual([own.hooks]);
});
