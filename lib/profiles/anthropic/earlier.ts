/**
 * The tool and parameter names Claude Code used before its renames, which Claude models still send.
 * Each entry names the releases that declared it: read from the tool definitions each published
 * version of @anthropic-ai/claude-code sends (captured on loopback), listed in docs/profiles.md.
 * Claude Code refuses a parameter its schema does not have, and so do these tools.
 */
import type { Tool } from "../../../tools/types.ts";
import { type EarlierShape, expectedReplacements, withEarlier } from "../earlier.ts";

/** Earlier tool names, by the current tool, with the releases that used them. */
export const CLAUDE_EARLIER_NAMES: Record<string, readonly { name: string; from: string }[]> = {
  Agent: [{ name: "Task", from: "Claude Code 0.2–2.1.50 (Agent since 2.1.100)" }],
  TaskStop: [
    { name: "KillBash", from: "Claude Code 1.0.90" },
    { name: "KillShell", from: "Claude Code 1.0.128–2.1.0 (TaskStop since 2.1.50)" },
  ],
  TaskOutput: [{ name: "BashOutput", from: "Claude Code 1.0.90–2.0.30 (TaskOutput since 2.0.77)" }],
};

/** Each Claude tool's earlier parameters, by tool name. */
export const CLAUDE_EARLIER: Record<string, EarlierShape> = {
  Edit: {
    unknown: "refuse",
    params: [expectedReplacements("Edit", "replace_all", "Claude Code 0.2–1.0.0 (replace_all since 1.0.30)")],
  },
  Grep: {
    unknown: "refuse",
    params: [{ name: "include", from: "Claude Code 0.2–1.0.30 (glob since 1.0.60)", now: "glob" }],
  },
  TaskOutput: {
    unknown: "refuse",
    params: [
      {
        // BashOutput returned what was new without waiting.
        name: "bash_id",
        from: "Claude Code 1.0.90–2.0.30 (BashOutput)",
        now: "task_id",
        map: (value, args) => ({
          args: {
            task_id: value,
            ...("block" in args ? {} : { block: false }),
            ...("timeout" in args ? {} : { timeout: 0 }),
          },
        }),
      },
      {
        name: "filter",
        from: "Claude Code 1.0.90–2.0.30 (BashOutput)",
        now: "task_id",
        map: () =>
          "TaskOutput has no filter: it returns the task's whole new output (give task_id only), which you can then search with Grep.",
      },
    ],
  },
};

/** The Claude tools answering to their earlier tool and parameter names. */
export function acceptEarlier(tools: readonly Tool[]): Tool[] {
  return tools.map((tool) => {
    const shape = CLAUDE_EARLIER[tool.name];
    const names = (CLAUDE_EARLIER_NAMES[tool.name] ?? []).map((n) => n.name);
    return shape || names.length ? withEarlier(tool, shape ?? { unknown: "refuse" }, names) : tool;
  });
}
