/**
 * A tool call as Claude Code would show it to a shell hook, whatever profile made it, derived from
 * what the call declares it touches (lib/gate/declare.ts): one Claude Code call per thing touched —
 * `Bash` with `command`; `Read`, `Edit`, `Write` with an absolute `file_path`; `Grep` and `Glob`
 * with their `path`; `WebFetch` with `url`; an `apply_patch` as the `Edit` and `Write` calls it
 * amounts to — and the rest of Claude Code's fields as the tool maps them. A call that touches
 * nothing but itself keeps its own name and arguments.
 */
import type { DeclaredCall, ResolvedTouch } from "../gate/declare.ts";

export interface ClaudeCall {
  tool_name: string;
  tool_input: Record<string, unknown>;
}

/** The Claude Code calls one declared call amounts to. */
export function claudeCalls(call: DeclaredCall, args: Record<string, unknown>): ClaudeCall[] {
  if (call.touches.length === 0) return [{ tool_name: call.tool, tool_input: args }];
  return call.touches.map((t) => ({ tool_name: t.as, tool_input: claudeInput(t, call.tool === t.as ? args : {}) }));
}

/** The field holding what a call is about, by Claude Code's tool. */
const SUBJECT: Record<string, string> = {
  Read: "file_path",
  Edit: "file_path",
  Write: "file_path",
  MultiEdit: "file_path",
  NotebookEdit: "file_path",
  Grep: "path",
  Glob: "path",
  LS: "path",
  Bash: "command",
  WebFetch: "url",
  Skill: "skill",
};

function claudeInput(t: ResolvedTouch, own: Record<string, unknown>): Record<string, unknown> {
  const input: Record<string, unknown> = { ...(t.input ?? own) };
  const key = SUBJECT[t.as];
  // Paths as Claude Code gives them: absolute, as written (the link, not where it leads).
  const subject = t.paths !== undefined ? (t.target === undefined ? undefined : t.paths[0]) : t.target;
  if (key && subject !== undefined) input[key] = subject;
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
}

/**
 * A hook's `updatedInput` (Claude Code's field names) carried back onto gong's arguments: each
 * field goes to the argument it came from, so a hook that rewrites `command` rewrites `cmd` under
 * the openai profile. Fields the call has no counterpart for are left out.
 */
export function gongArguments(
  call: ClaudeCall,
  ownName: string,
  args: Record<string, unknown>,
  updated: Record<string, unknown>,
): Record<string, unknown> {
  const out = { ...args };
  const set = (claudeKey: string, ...gongKeys: string[]) => {
    if (!(claudeKey in updated)) return;
    const key = gongKeys.find((k) => k in args) ?? gongKeys[0];
    out[key] = updated[claudeKey];
  };
  if (call.tool_name === "Bash") set("command", "command", "cmd");
  else if (["Read", "Write", "Edit"].includes(call.tool_name)) {
    set("file_path", "file_path", "path", "absolute_path");
    set("content", "content");
    set("old_string", "old_string", "old_text");
    set("new_string", "new_string", "new_text");
    set("replace_all", "replace_all");
  } else if (call.tool_name === ownName) Object.assign(out, updated);
  return out;
}
