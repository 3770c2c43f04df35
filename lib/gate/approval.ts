/**
 * The gate as a session's beforeToolCall hook: it resolves what the call declares it touches
 * (declare.ts), takes the one decision (decide.ts) and, for what the decision says to ask, asks
 * the host's `Asker` — the shell's question, the editor's permission request, an SDK callback —
 * or, where no one can answer (print, RPC), refuses with a sentence the model reads naming the rule
 * or flag that would allow the call. An "always" answer adds allow rules for the command's parts
 * (`Bash(npm test *)`) — never a raw prefix — or, without rules, for the tool.
 */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import type { ExecutionEnvironment } from "../env/types.ts";
import { describeCall } from "../../tools/metadata.ts";
import type { PendingCall, Tool, ToolKind } from "../../tools/types.ts";
import type { DeclaredCall } from "./declare.ts";
import type { AskReason, HookDecision } from "./decide.ts";
import type { ApprovalMode } from "./modes.ts";
import { parseRule, type PermissionRules } from "./rules.ts";

/** What reads and decides a call loads with the first call that needs it (a print run without rules never does). */
const deciding = () =>
  Promise.all([import("./declare.ts"), import("./decide.ts"), import("./suggest.ts")]).then(
    ([{ declareCall }, { decide }, { suggestRules }]) => ({ declareCall, decide, suggestRules }),
  );

export interface ApprovalRequest {
  callId: string;
  toolName: string;
  kind: ToolKind;
  /** The tool's one-line description of the call. */
  summary: string;
  args: Record<string, unknown>;
  /** The command line a shell call runs, as the model wrote it. */
  command?: string;
  /** The allow rules an "always" answer adds (`Bash(npm test *)`, one per part of a command). */
  alwaysRules?: string[];
  /** What asks, when a rule or a hook does rather than the mode ("the rule Bash(git push *) in …"). */
  askRule?: string;
}

export type ApprovalScope = "project" | "user";
export type ApprovalAnswer =
  /** `updatedArgs`: the call runs with these arguments instead (an SDK's canUseTool may rewrite it). */
  | { allow: true; always?: boolean; scope?: ApprovalScope; updatedArgs?: Record<string, unknown> }
  | { allow: false; reason?: string };

/** How a host asks its user about a call: the shell's question, ACP's request to the editor, an SDK's callback. */
export type Asker = (request: ApprovalRequest) => Promise<ApprovalAnswer>;

/** The hook a session registers (structurally the agent's `Hooks`: the gate sits below the agent). */
export interface GateHooks {
  name: string;
  timeoutMs: number;
  beforeToolCall(
    toolName: string,
    args: Record<string, unknown>,
    call?: PendingCall,
  ): Promise<{ block: string } | undefined>;
}

export interface ApprovalGate {
  /** Register on the session: the gate itself. */
  hooks: GateHooks;
}

/** What shell hooks add to the decision: a PermissionRequest hook may answer, Notification hooks hear of a question. */
export interface PermissionHooks {
  permissionRequest(
    tool: string,
    params: Record<string, unknown>,
  ): Promise<{ allow: true } | { allow: false; reason: string } | undefined>;
  notify(message: string, type: string): void;
}

/** What the gate needs of the setup: the rules, and what the shell hooks said and want to hear. */
export interface SessionPermissions {
  rules: PermissionRules;
  cwd: string;
  /** What `~` stands for in the commands' environment (default the user's home). */
  home?: string;
  /** Calls a PreToolUse hook allowed (they pass without a question; deny and ask rules still hold) or wants asked about, by arguments object. */
  hookDecisions: WeakMap<object, HookDecision>;
  /** PermissionRequest and Notification hooks, when the settings have any. */
  hookEvents?: PermissionHooks;
  /** The current approval mode, as the hooks' `permission_mode` (set by the gate in use). */
  mode?: () => ApprovalMode;
}

export interface GateOptions {
  mode(): ApprovalMode;
  /** Asks the user; absent where no one can answer (print, RPC): what would be asked is refused. */
  ask?: Asker;
  /** The permission rules of the settings files; "always" answers add to them for the session. */
  permissions?: SessionPermissions;
  /** A call the mode would have asked about passed without a question: why ("allowed by Bash(npm test *)", "read-only"). */
  passed?(callId: string, why: string): void;
}

/** Gates made for modes where no one answers: a mode with its own gate replaces them (withGate). */
const unattendedGates = new WeakSet<object>();

/**
 * A session's hooks with the gate last: the settings' hooks run first, so a call one of them
 * blocks is never put to the user. An unattended gate among them gives way to this one.
 */
export function withGate<H extends object>(hooks: H | H[] | undefined, gate: ApprovalGate): (H | GateHooks)[] {
  const list = hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
  return [...list.filter((h) => !unattendedGates.has(h)), gate.hooks];
}

/**
 * The gate of print and RPC mode: no one answers, so what the mode (`--approval`, default `auto`)
 * or an ask rule would ask is refused, with the rule or flag that would allow it.
 */
export function unattendedGate(permissions: SessionPermissions, mode: ApprovalMode = "auto"): GateHooks {
  const gate = approvalGate({ mode: () => mode, permissions }).hooks;
  unattendedGates.add(gate);
  return gate;
}

export function approvalGate(options: GateOptions): ApprovalGate {
  const alwaysAllowed = new Set<string>();
  const p = options.permissions;
  // Hooks hear the mode in force (`permission_mode`); print mode without --approval keeps Claude Code's "default".
  if (p && (options.ask || options.mode() !== "auto")) p.mode = options.mode;

  return {
    hooks: {
      name: "approval",
      // A person answers: no time limit.
      timeoutMs: 0,
      async beforeToolCall(toolName, args, call) {
        const mode = options.mode();
        // Nothing can deny, ask or need an answer: the call runs without being read (the common print-mode run).
        if (mode === "auto" && !p?.rules.size && !p?.hookDecisions.has(args)) return;
        const { declareCall, decide, suggestRules } = await deciding();
        const declare = () =>
          declareCall(toolName, args, call?.tool, {
            env: call?.env,
            cwd: call?.env.workingDirectory() ?? p?.cwd ?? process.cwd(),
            home: p?.home,
          });
        const declared = await declare();
        // Arguments the tool refuses: nothing runs, so nothing needs a decision.
        if (declared.invalid) return;
        const verdict = decide({
          call: declared,
          name: toolName,
          rules: p?.rules,
          mode,
          hook: p?.hookDecisions.get(args),
          roots: rootsOf(call?.env, p?.cwd),
        });
        if (verdict.run) {
          if (verdict.why && call) options.passed?.(call.id, verdict.why);
          return;
        }
        if ("refused" in verdict) return { block: verdict.refused };
        if (verdict.ask.by === "mode" && alwaysAllowed.has(declared.tool)) return;
        // A PermissionRequest hook may answer in the user's place.
        const hookAnswer = await p?.hookEvents?.permissionRequest(toolName, args);
        if (hookAnswer) {
          if (!hookAnswer.allow) return { block: hookAnswer.reason };
          // The hook may have rewritten the call: what it runs now still meets the deny rules.
          const again = decide({
            call: await declare(),
            name: toolName,
            rules: p?.rules,
            mode: "auto",
            roots: [],
          });
          return "refused" in again ? { block: again.refused } : undefined;
        }
        const alwaysRules = p ? suggestRules(p.rules, declared) : undefined;
        if (!options.ask) return { block: refusal(toolName, verdict.ask, alwaysRules ?? []) };
        const request = requestFor(toolName, args, call?.tool, declared, call?.id ?? "");
        request.alwaysRules = alwaysRules;
        if (verdict.ask.by !== "mode") request.askRule = askedBy(verdict.ask);
        p?.hookEvents?.notify(`gong needs your permission to use ${toolName}`, "permission_prompt");
        const answer = await options.ask(request);
        if (answer.allow) {
          if (answer.always) remember(declared, alwaysRules);
          if (!answer.updatedArgs) return;
          // The call runs as rewritten, in the same object (the session knows the call by it): deny rules still hold.
          for (const key of Object.keys(args)) if (!(key in answer.updatedArgs)) delete args[key];
          Object.assign(args, answer.updatedArgs);
          const again = decide({ call: await declare(), name: toolName, rules: p?.rules, mode: "auto", roots: [] });
          return "refused" in again ? { block: again.refused } : undefined;
        }
        return {
          block: answer.reason ? `The user declined this call: ${answer.reason}` : "The user declined this call.",
        };
      },
    },
  };

  /** An "always" answer holds for the rest of the session (the shell also writes it to a settings file). */
  function remember(declared: DeclaredCall, alwaysRules: string[] | undefined): void {
    if (!p) return void alwaysAllowed.add(declared.tool);
    // A command gong cannot read with certainty has no rule: the answer allowed it once.
    const rules = (alwaysRules ?? []).flatMap((raw) => {
      const rule = parseRule(raw, "allow", "this session", p.cwd);
      return "error" in rule ? [] : [rule];
    });
    p.rules.add(rules);
  }
}

/** The question a host shows: the tool's own kind and summary, and the command line a shell call runs. */
function requestFor(
  toolName: string,
  args: Record<string, unknown>,
  tool: Tool | undefined,
  declared: DeclaredCall,
  callId: string,
): ApprovalRequest {
  const { kind, call_summary } = describeCall(tool, args);
  const command = declared.touches.find((t) => t.as === "Bash")?.target;
  return { callId, toolName, kind, summary: call_summary, args, ...(command !== undefined ? { command } : {}) };
}

function askedBy(reason: Exclude<AskReason, { by: "mode" }>): string {
  return reason.by === "rule"
    ? `the rule ${reason.rule.raw} in ${reason.rule.source}`
    : `a PreToolUse hook${reason.reason ? `: ${reason.reason}` : ""}`;
}

/** What the model reads when a call needed an answer no one could give: why, and what would allow it. */
function refusal(toolName: string, reason: AskReason, rules: string[]): string {
  const why = reason.by === "mode" ? `--approval ${reason.mode} confirms ${reason.what}` : askedBy(reason);
  const head = `Permission to use ${toolName} needs the user's approval (${why}), and no one can answer in this mode (print and RPC modes never ask).`;
  if (reason.by === "rule")
    return `${head} To let such calls run, the user can move ${reason.rule.raw} to permissions.allow.`;
  if (reason.by === "hook") return `${head} The hook decides; tell the user what you wanted to do.`;
  if (reason.unreadable !== undefined)
    return `${head} gong cannot read this command with certainty (${reason.unreadable}), so no rule can allow it: write it without variables or substitutions in place of a command, or the user can run with --approval auto.`;
  const allow =
    rules.length > 0
      ? `add ${rules.join(" and ")} to permissions.allow in .gong/settings.json or .claude/settings.json, or `
      : "";
  return `${head} To allow it, the user can ${allow}run with --approval auto.`;
}

/** The workspace's roots, links followed: where `edits` lets changes pass. */
function rootsOf(env: ExecutionEnvironment | undefined, cwd: string | undefined): string[] {
  const roots = env?.allowedRoots.length ? env.allowedRoots : cwd ? [cwd] : [];
  return [...new Set(roots.flatMap((r) => [resolve(r), realOrSelf(resolve(r))]))];
}

const realRoots = new Map<string, string>();
function realOrSelf(path: string): string {
  let real = realRoots.get(path);
  if (real === undefined) {
    try {
      real = realpathSync.native(path);
    } catch {
      real = path;
    }
    realRoots.set(path, real);
  }
  return real;
}
