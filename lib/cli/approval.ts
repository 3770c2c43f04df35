/**
 * Approvals: which tool calls wait for the user's consent, as a beforeToolCall gate any host (the
 * ACP server, a terminal) plugs its own way of asking into. Modes: `ask` confirms every file
 * change and command, `edits` lets file changes inside the workspace pass and confirms commands,
 * `auto` asks nothing. What a call is comes from the tool itself (its kind and one-line summary,
 * carried by the tool_call_start event), never from a list of tool names. An "always" answer is
 * remembered for that tool for the rest of the session.
 */
import type { Hooks, SessionEvent } from "../agent/index.ts";
import type { ToolKind } from "../../tools/types.ts";

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
}

export type ApprovalAnswer = { allow: true; always?: boolean } | { allow: false; reason?: string };

export interface ApprovalGate {
  /** Register on the session: the gate itself. */
  hooks: Hooks;
  /** Feed every session event: the gate learns each call's kind and summary from tool_call_start. */
  observe(event: SessionEvent): void;
}

/**
 * A session's hooks with the gate last: the settings' hooks run first, so a call one of them
 * blocks is never put to the user.
 */
export function withGate(hooks: Hooks | Hooks[] | undefined, gate: ApprovalGate): Hooks[] {
  return [...(hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]), gate.hooks];
}

export function approvalGate(options: { mode(): ApprovalMode; ask(request: ApprovalRequest): Promise<ApprovalAnswer> }): ApprovalGate {
  // The gate receives the very arguments object the start event carried: that identifies the call.
  const calls = new WeakMap<object, ApprovalRequest>();
  const alwaysAllowed = new Set<string>();
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
        const request = calls.get(args);
        if (!request || !needsApproval(options.mode(), request.kind) || alwaysAllowed.has(toolName)) return;
        const answer = await options.ask(request);
        if (answer.allow) {
          if (answer.always) alwaysAllowed.add(toolName);
          return;
        }
        return { block: answer.reason ? `The user declined this call: ${answer.reason}` : "The user declined this call." };
      },
    },
  };
}
