/**
 * How much of each tool's output the model sees (docs/conformance.md: 004 §5.2/§5.3), by what the
 * tool does: characters first, then lines. A profile maps its own tool names onto these, so `Bash`,
 * `exec_command` and `run_shell_command` all get the shell's limits. Which end is kept is the
 * tool's own declaration (`Tool.truncation`: the shell keeps the end) unless a limit names a
 * direction.
 */
import type { ToolLimits } from "../output/policy.ts";

export const CAPABILITY_LIMITS = {
  read: { maxChars: 50_000 },
  /** The shell (004's `shell`). */
  bash: { maxChars: 30_000, maxLines: 256 },
  grep: { maxChars: 20_000, maxLines: 200 },
  /** File search by pattern (004's `glob`). */
  find: { maxChars: 20_000, maxLines: 500 },
  /** A directory listing is cut like a file listing. */
  ls: { maxChars: 20_000, maxLines: 500 },
  edit: { maxChars: 10_000 },
  write: { maxChars: 1_000 },
  /** A subagent's answer (004's spawn_agent), kept from both ends; applied by the tool's kind, whatever the profile calls it. */
  agent: { maxChars: 20_000, direction: "head_tail" },
} as const satisfies Record<string, ToolLimits>;

export type LimitCapability = keyof typeof CAPABILITY_LIMITS;

/** Limits by tool name, from a map of the profile's tool names to what they do. */
export function limitsFor(names: Record<string, LimitCapability>): Record<string, ToolLimits> {
  return Object.fromEntries(
    Object.entries(names).map(([name, capability]) => [name, { ...CAPABILITY_LIMITS[capability] }]),
  );
}
