/**
 * The `anthropic` profile: Claude models get Claude Code's tools (Read, Write, Edit, Bash with
 * TaskOutput/TaskStop, Grep, Glob, and TodoWrite when registered), a base prompt written here in
 * the order of Claude Code's (identity, tool use, editing, verification, answers), CLAUDE.md as
 * project instructions and a 120 s default command timeout.
 *
 * Tool shapes checked against Claude Code 2.1 (2.1.168 tool schemas).
 */
import type { Tool } from "../../../tools/types.ts";
import { createAlignedProfile } from "../build-profile.ts";
import type { ProfileOptions, ProfileRegistration, ProviderProfile } from "../types.ts";
import { acceptEarlier } from "./earlier.ts";
import { todoWriteTool } from "./plan.ts";
import { claudeSkillTool } from "./skill.ts";
import { claudeSubagentTools } from "./subagents.ts";
import { anthropicTools, CLAUDE_BASH_DEFAULT_TIMEOUT_MS } from "./tools.ts";
import { AskUserQuestionTool, EnterPlanModeTool, ExitPlanModeTool } from "./user-tools.ts";
import { WebFetchTool } from "./web-fetch.ts";
import { WebSearchTool } from "./web-search.ts";

export const ANTHROPIC_REFERENCE = "Claude Code 2.1";

/** Interleaved thinking lets Claude think between tool calls when reasoning is on. */
export const ANTHROPIC_THINKING_BETA = "interleaved-thinking-2025-05-14";

export const ANTHROPIC_BASE_INSTRUCTIONS = `You are gong, an interactive coding agent working in the user's project from the terminal. Help with software engineering tasks: fixing bugs, adding features, refactoring, explaining code. Use the tools below; never guess at file contents or command output.

# Using the tools
- Read a file before you change it. Use Glob to find files by name and Grep to search contents instead of find, grep or cat in Bash.
- When several calls do not depend on each other (reading three files, two searches), make them in the same turn: they run in parallel.
- Bash is for builds, tests, git and other programs. Quote paths with spaces; give long commands a timeout or run_in_background and read them later with TaskOutput.
- If TodoWrite is available, use it to plan tasks of three or more steps and keep exactly one item in_progress.
- A tool error explains what went wrong and what to try next: read it before retrying.

# Editing
- Prefer Edit over Write for existing files. old_string must match the file exactly, without the line-number prefix Read shows, and be unique, or set replace_all.
- Create new files only when the task needs them; never write documentation files nobody asked for.
- Match the code around you: its style, naming, libraries and patterns. Check a library is already used before relying on it.
- Add comments only where the code cannot say why by itself.

# Verifying
- After a change, run the project's own checks (tests, type checker, linter, build); find the commands in the README or the package files.
- When a check fails, fix the cause and run it again. If you cannot, say exactly what still fails.
- Never commit, push or delete work unless the user asked for it.

# Answering
- Be brief and direct: your output is read in a terminal. No preamble, no summary of what the user can already see.
- Name files as path:line when pointing at code.
- If a request is ambiguous or risky, ask one precise question instead of guessing.`;

/** The profile's tools, answering also to the names and shapes of earlier releases (earlier.ts). */
export const anthropicOwnTools: readonly Tool[] = acceptEarlier([
  ...anthropicTools,
  WebFetchTool,
  WebSearchTool,
  AskUserQuestionTool,
  EnterPlanModeTool,
  ExitPlanModeTool,
]);

export function createAnthropicProfile(options: ProfileOptions): ProviderProfile {
  return createAlignedProfile(
    {
      id: "anthropic",
      reference: ANTHROPIC_REFERENCE,
      baseInstructions: ANTHROPIC_BASE_INSTRUCTIONS,
      // Calls under earlier Claude Code tool and parameter names are mapped onto today's (earlier.ts).
      tools: anthropicOwnTools,
      capabilities: {
        read: ["Read"],
        write: ["Write"],
        edit: ["Edit"],
        bash: ["Bash", "TaskOutput", "TaskStop"],
        grep: ["Grep"],
        find: ["Glob"],
        ls: [],
      },
      extras: [
        todoWriteTool.name,
        WebFetchTool.name,
        WebSearchTool.name,
        AskUserQuestionTool.name,
        EnterPlanModeTool.name,
        ExitPlanModeTool.name,
      ],
      limits: {
        Read: "read",
        Bash: "bash",
        TaskOutput: "bash",
        Grep: "grep",
        Glob: "find",
        Edit: "edit",
        apply_patch: "edit",
        Write: "write",
        WebFetch: "read",
        WebSearch: "read",
      },
      projectDocFiles: ["CLAUDE.md"],
      // Claude Code's Read pages by offset/limit; its Grep takes a file as its path.
      pagingHint:
        "Use Read with offset and limit to page through that file, or Grep with that file as its path to search it, instead of re-running the tool.",
      defaultCommandTimeoutMs: CLAUDE_BASH_DEFAULT_TIMEOUT_MS,
      supportsParallelToolCalls: true,
      subagentTools: claudeSubagentTools,
      skillTool: claudeSkillTool,
      planTool: todoWriteTool,
      toolSearchName: "ToolSearch",
      providerOptions({ modelInfo }, { reasoningEffort }) {
        // The adapter turns the effort into a thinking budget; the beta lets thinking continue between tool calls.
        if (!reasoningEffort || !modelInfo?.reasoning) return undefined;
        return { anthropic: { betaHeaders: [ANTHROPIC_THINKING_BETA] } };
      },
    },
    options,
  );
}

export const anthropicProfile: ProfileRegistration = {
  id: "anthropic",
  create: createAnthropicProfile,
  // Claude ids on any provider (Bedrock's, Vertex's, OpenRouter's).
  models: { provider: "anthropic", ids: (id) => /claude/.test(id) },
};
