/**
 * The approval modes: which calls wait for the user's consent. `ask` confirms every command, web
 * fetch and file change; `edits` lets file changes inside the workspace pass (not in `.git`,
 * `.gong` or `.claude`, whose files run code or widen permissions later) and commands on the
 * read-only list; `auto` asks nothing. Permission rules come first in every mode (decide.ts).
 */
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

/**
 * Whether a call of this kind usually waits for consent in this mode: what a host shows before the
 * gate has decided (an editor's "pending"). The gate itself decides from what the call touches.
 */
export function needsApproval(mode: ApprovalMode, kind: ToolKind): boolean {
  if (mode === "auto") return false;
  // Commands and reads from the network reach outside the workspace: both are confirmed unless nothing is asked.
  if (kind === "shell" || kind === "web") return true;
  return mode === "ask" && kind === "modify";
}

/** Claude Code's name for an approval mode (a hook's `permission_mode`). */
export function claudePermissionMode(mode: ApprovalMode | undefined): string {
  return mode === "edits" ? "acceptEdits" : mode === "auto" ? "bypassPermissions" : "default";
}
