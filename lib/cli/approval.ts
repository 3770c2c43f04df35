/**
 * Approvals: which tool calls wait for the user's consent, as a beforeToolCall gate any host (the
 * ACP server, a terminal) plugs its own way of asking into. Modes: `ask` confirms every file
 * change and command, `edits` lets file changes inside the workspace pass and confirms commands,
 * `auto` asks nothing. What a call is comes from the tool itself (its kind and one-line summary,
 * carried by the tool_call_start event), never from a list of tool names. Permission rules
 * (lib/setup/permission-rules.ts) come first in every mode: deny refuses, ask asks even under `auto`
 * (and refuses where no one answers), allow passes. An "always" answer adds allow rules for the
 * command's parts (`Bash(npm test *)`) — never a raw prefix — or, without rules, for the tool.
 */
import type { Hooks, SessionEvent } from "../agent/index.ts";
import type { ToolKind } from "../../tools/types.ts";
import { claudeCalls } from "../setup/claude-view.ts";
import { parseRule, suggestRules, type PermissionRules } from "../setup/permission-rules.ts";
import type { HookDecision, ShellHooks } from "../setup/shell-hooks.ts";

export const APPROVAL_MODES = ["ask", "edits", "auto"] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/** What each mode asks, in a few words (the shell's Shift+Tab line, the modes an editor lists). */
export const APPROVAL_MODE_HELP: Record<ApprovalMode, string> = {
  ask: "commands, web fetches and file changes are confirmed",
  edits: "file changes pass, commands and web fetches are confirmed",
  auto: "nothing is asked",
};

export function isApprovalMode(value: unknown): value is ApprovalMode {
  return typeof value === "string" && (APPROVAL_MODES as readonly string[]).includes(value);
}

/** Whether a call of this kind waits for consent in this mode. */
export function needsApproval(mode: ApprovalMode, kind: ToolKind): boolean {
  if (mode === "auto") return false;
  // Commands and reads from the network reach outside the workspace: both are confirmed unless nothing is asked.
  if (kind === "shell" || kind === "web") return true;
  return mode === "ask" && kind === "modify";
}

export interface ApprovalRequest {
  callId: string;
  toolName: string;
  kind: ToolKind;
  /** The tool's one-line description of the call. */
  summary: string;
  args: Record<string, unknown>;
  /** The allow rules an "always" answer adds (`Bash(npm test *)`, one per part of a command). */
  alwaysRules?: string[];
  /** What asks, when a rule or a hook does rather than the mode ("the rule Bash(git push *) in …"). */
  askRule?: string;
}

export type ApprovalScope = "project" | "user";
export type ApprovalAnswer =
  | { allow: true; always?: boolean; scope?: ApprovalScope }
  | { allow: false; reason?: string };

export interface ApprovalGate {
  /** Register on the session: the gate itself. */
  hooks: Hooks;
  /** Feed every session event: the gate learns each call's kind and summary from tool_call_start. */
  observe(event: SessionEvent): void;
}

/** Gates made for modes where no one answers: a mode with its own gate replaces them (withGate). */
const unattendedGates = new WeakSet<Hooks>();

/**
 * A session's hooks with the gate last: the settings' hooks run first, so a call one of them
 * blocks is never put to the user. An unattended gate among them gives way to this one.
 */
export function withGate(hooks: Hooks | Hooks[] | undefined, gate: ApprovalGate): Hooks[] {
  const list = hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
  return [...list.filter((h) => !unattendedGates.has(h)), gate.hooks];
}

export interface GateOptions {
  mode(): ApprovalMode;
  /** Asks the user; absent where no one can answer (print, RPC): a call an ask rule covers is refused. */
  ask?(request: ApprovalRequest): Promise<ApprovalAnswer>;
  /** The permission rules of the settings files; "always" answers add to them for the session. */
  permissions?: SessionPermissions;
  /** A call the mode would have asked about passed without a question: why ("allowed by Bash(npm test *)", "read-only"). */
  passed?(callId: string, why: string): void;
}

/** What the gate needs of the setup (lib/setup): the rules, and what the shell hooks said and want to hear. */
export interface SessionPermissions {
  rules: PermissionRules;
  cwd: string;
  /** Calls a PreToolUse hook allowed (they pass without a question; deny and ask rules still hold) or wants asked about, by arguments object. */
  hookDecisions: WeakMap<object, HookDecision>;
  /** PermissionRequest and Notification hooks, when the settings have any. */
  hookEvents?: Pick<ShellHooks, "permissionRequest" | "notify">;
  /** The current approval mode, as the hooks' `permission_mode` (set by the gate in use). */
  mode?: () => ApprovalMode;
}

/** Claude Code's name for an approval mode (a hook's `permission_mode`). */
export function claudePermissionMode(mode: ApprovalMode | undefined): string {
  return mode === "edits" ? "acceptEdits" : mode === "auto" ? "bypassPermissions" : "default";
}

/** The gate of print and RPC mode: deny rules refuse, ask rules refuse (no one answers), the rest passes. */
export function unattendedGate(permissions: SessionPermissions): Hooks {
  const gate = approvalGate({ mode: () => "auto", permissions }).hooks;
  unattendedGates.add(gate);
  return gate;
}

export function approvalGate(options: GateOptions): ApprovalGate {
  // The gate receives the very arguments object the start event carried: that identifies the call.
  const calls = new WeakMap<object, ApprovalRequest>();
  const alwaysAllowed = new Set<string>();
  const p = options.permissions;
  if (p && options.ask) p.mode = options.mode;
  return {
    observe(event) {
      // Child agents' calls (forwarded with their agent_id) pass the same gate.
      if (event.kind !== "tool_call_start") return;
      const { call_id, tool_name, kind, call_summary, arguments: args } = event.data;
      calls.set(args, { callId: call_id, toolName: tool_name, kind, summary: call_summary, args });
    },
    hooks: {
      name: "approval",
      // A person answers: no time limit.
      timeoutMs: 0,
      async beforeToolCall(toolName, args) {
        const decision = p?.rules.decide(toolName, args);
        if (decision?.behavior === "deny")
          return {
            block: `Permission to use ${toolName} was denied by the rule ${decision.rule.raw} in ${decision.rule.source}.`,
          };
        const byHook = p?.hookDecisions.get(args);
        const known = calls.get(args);
        const asks = known !== undefined && needsApproval(options.mode(), known.kind);
        if (decision?.behavior === "allow" || (decision === undefined && byHook?.behavior === "allow")) {
          if (asks)
            options.passed?.(
              known.callId,
              decision ? `allowed by ${decision.rule.raw}` : "allowed by a PreToolUse hook",
            );
          return;
        }
        const why =
          decision?.behavior === "ask"
            ? `the rule ${decision.rule.raw} in ${decision.rule.source}`
            : byHook?.behavior === "ask"
              ? `a PreToolUse hook${byHook.reason ? `: ${byHook.reason}` : ""}`
              : undefined;
        if (!why && (!known || !needsApproval(options.mode(), known.kind) || alwaysAllowed.has(toolName))) return;
        // Under `edits`, a command that only reads passes (the built-in read-only list and the settings' additions).
        if (!why && known?.kind === "shell" && options.mode() === "edits" && p && isReadOnlyCall(p, toolName, args)) {
          options.passed?.(known.callId, "read-only");
          return;
        }
        // A PermissionRequest hook may answer in the user's place.
        const hookAnswer = await p?.hookEvents?.permissionRequest(toolName, args);
        if (hookAnswer) return hookAnswer.allow ? undefined : { block: hookAnswer.reason };
        if (!options.ask)
          return {
            block: `Permission to use ${toolName} needs the user's approval (${why}), and no one can answer in this mode.`,
          };
        const request: ApprovalRequest = {
          ...(known ?? { callId: "", toolName, kind: "shell", summary: toolName, args }),
          alwaysRules: p ? suggestRules(p.rules, toolName, args, p.cwd) : undefined,
          askRule: why,
        };
        p?.hookEvents?.notify(`gong needs your permission to use ${toolName}`, "permission_prompt");
        const answer = await options.ask(request);
        if (answer.allow) {
          if (answer.always) remember(request);
          return;
        }
        return {
          block: answer.reason ? `The user declined this call: ${answer.reason}` : "The user declined this call.",
        };
      },
    },
  };

  /** An "always" answer holds for the rest of the session (the shell also writes it to a settings file). */
  function remember(request: ApprovalRequest): void {
    if (!p || !request.alwaysRules?.length) {
      alwaysAllowed.add(request.toolName);
      return;
    }
    const rules = request.alwaysRules.flatMap((raw) => {
      const rule = parseRule(raw, "allow", "this session", p.cwd);
      return "error" in rule ? [] : [rule];
    });
    p.rules.add(rules);
  }
}

function isReadOnlyCall(p: SessionPermissions, toolName: string, args: Record<string, unknown>): boolean {
  const calls = claudeCalls(toolName, args, p.cwd);
  return (
    calls.length > 0 &&
    calls.every((c) => c.tool_name === "Bash" && p.rules.isReadOnly(String(c.tool_input.command ?? "")))
  );
}
