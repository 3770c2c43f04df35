/**
 * The one permission decision, taken from what a call declares it touches: the rules (deny over
 * ask over allow), a PreToolUse hook's answer, then the approval mode with its read-only list and
 * the workspace's roots. The result says whether the call runs, is refused (and why, in a sentence
 * the model reads), or waits for an answer — which the host asks, or refuses where no one can.
 */
import { isInside } from "../paths.ts";
import type { DeclaredCall, ResolvedTouch } from "./declare.ts";
import { WRITE_CALLS } from "./declare.ts";
import { needsApproval, type ApprovalMode } from "./modes.ts";
import type { PermissionRule, PermissionRules } from "./rules.ts";
import { isReadOnly } from "./shell/read-only.ts";

/** What a PreToolUse hook said of a call that the gate must know: pass without asking, or ask. */
export interface HookDecision {
  behavior: "allow" | "ask";
  reason?: string;
}

/** Why a call waits for an answer. */
export type AskReason =
  | { by: "rule"; rule: PermissionRule }
  | { by: "hook"; reason?: string }
  | { by: "mode"; mode: ApprovalMode; what: string; unreadable?: string };

export type Verdict =
  | {
      run: true /** Set when the mode would have asked: what let it pass ("allowed by Bash(npm test *)", "read-only"). */;
      why?: string;
    }
  | { run: false; refused: string }
  | { run: false; ask: AskReason };

export interface DecisionInput {
  call: DeclaredCall;
  /** The name the model called the tool by (what the sentences name). */
  name: string;
  rules?: PermissionRules;
  mode: ApprovalMode;
  hook?: HookDecision;
  /** The workspace's roots (the working directory and the allowed roots, links followed). */
  roots: readonly string[];
}

export function decide({ call, name, rules, mode, hook, roots }: DecisionInput): Verdict {
  const decision = rules?.decide(call);
  if (decision?.behavior === "deny") {
    const unreadable = decision.unreadable
      ? ` gong cannot read this command with certainty (${decision.unreadable}), and it names what the rule denies.`
      : "";
    return {
      run: false,
      refused: `Permission to use ${name} was denied by the rule ${decision.rule.raw} in ${decision.rule.source}.${unreadable}`,
    };
  }
  const asks = modeAsks(mode, call, rules, roots);
  if (decision?.behavior === "allow") return passing(asks, `allowed by ${decision.rule.raw}`);
  if (!decision && hook?.behavior === "allow") return passing(asks, "allowed by a PreToolUse hook");
  if (decision?.behavior === "ask") return { run: false, ask: { by: "rule", rule: decision.rule } };
  if (hook?.behavior === "ask") return { run: false, ask: { by: "hook", reason: hook.reason } };
  if (asks.what !== undefined)
    return { run: false, ask: { by: "mode", mode, what: asks.what, unreadable: asks.unreadable } };
  return asks.readOnly ? { run: true, why: "read-only" } : { run: true };
}

function passing(asks: ModeAsks, why: string): Verdict {
  return asks.what !== undefined || asks.readOnly ? { run: true, why } : { run: true };
}

interface ModeAsks {
  /** What the mode confirms that this call does ("commands", "web fetches"…), when it asks. */
  what?: string;
  /** A command the mode would ask about passes as read-only. */
  readOnly?: boolean;
  /** Why a command could not be read (no rule can then allow it). */
  unreadable?: string;
}

/** Folders whose files run code or widen permissions later: `edits` does not let changes there pass. */
const CONTROL_FOLDERS = new Set([".git", ".gong", ".claude"]);

/** What the approval mode asks about a call, from what it touches. */
function modeAsks(
  mode: ApprovalMode,
  call: DeclaredCall,
  rules: PermissionRules | undefined,
  roots: readonly string[],
): ModeAsks {
  if (mode === "auto") return {};
  // A call whose tool the gate was not shown could do anything; one that declares nothing is known by its kind.
  if (call.unknown) return { what: "calls of tools it cannot see" };
  if (!call.declared) return needsApproval(mode, call.kind) ? { what: KIND_WORDS[call.kind] ?? "calls" } : {};
  const out: ModeAsks = {};
  for (const t of call.touches) {
    if (t.as === "Bash" && t.command) {
      out.unreadable ??= t.command.uncertain;
      if (mode === "edits" && (rules ? rules.isReadOnly(t.command) : isReadOnly(t.command))) out.readOnly = true;
      else out.what ??= "every command";
    } else if (t.as === "WebFetch") out.what ??= "web fetches";
    else if (t.as === "WebSearch") out.what ??= "web searches";
    else if (WRITE_CALLS.has(t.as)) {
      if (mode === "ask") out.what ??= "every file change";
      else if (!changesInside(t, roots))
        out.what ??= "file changes outside the workspace or in .git, .gong and .claude";
    } else if (t.writes) out.what ??= `calls that change things (${t.as})`;
  }
  if (out.what !== undefined) out.readOnly = false;
  return out;
}

const KIND_WORDS: Partial<Record<DeclaredCall["kind"], string>> = {
  shell: "every command",
  web: "web fetches",
  modify: "every file change",
};

/** Whether every place a change can mean lies inside a root and outside the control folders. */
function changesInside(t: ResolvedTouch, roots: readonly string[]): boolean {
  const paths = t.paths ?? [];
  return (
    paths.length > 0 &&
    paths.every((p) => {
      const root = roots.find((r) => isInside(p, r));
      return (
        root !== undefined &&
        !p
          .slice(root.length)
          .split("/")
          .some((part) => CONTROL_FOLDERS.has(part))
      );
    })
  );
}
