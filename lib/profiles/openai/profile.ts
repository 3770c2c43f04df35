/**
 * The `openai` profile: GPT and codex models get codex's tools (read_file, apply_patch when
 * registered, write_file for new files, exec_command + write_stdin, grep_files, list_dir,
 * view_image, update_plan when registered), a base prompt in the order of codex's (identity, tool
 * use, patch editing, verification, answers), AGENTS.md plus .codex/instructions.md, a 10 s yield
 * for commands, parallel tool calls, and `reasoning.effort` on the Responses API.
 *
 * Tool shapes checked against codex 0.169 (codex-rs tool specs).
 */
import { webFetchTool } from "../../../tools/web-fetch.ts";
import type { Tool } from "../../../tools/types.ts";
import { createAlignedProfile } from "../build-profile.ts";
import { plainSkillTool } from "../skill-tool.ts";
import type { ProfileOptions, ProfileRegistration, ProviderProfile } from "../types.ts";
import { EXEC_DEFAULT_YIELD_MS } from "./exec-command.ts";
import { updatePlanTool } from "./plan.ts";
import { codexSubagentTools } from "./subagents.ts";
import { acceptEarlier } from "./earlier.ts";
import { openaiTools } from "./tools.ts";

export const OPENAI_REFERENCE = "codex 0.169";

/** The edit tool of this profile; it lives in its own file and is offered once registered. */
export const APPLY_PATCH_TOOL = "apply_patch";

export const OPENAI_BASE_INSTRUCTIONS = `You are gong, a coding agent running in the user's terminal and working in their repository. Carry the user's task through to the end: investigate, change the code, check the result, then report.

## Tools
- Explore with grep_files (which files match), read_file (line ranges, or the block around a line with mode "indentation") and list_dir. Read what you need; do not guess.
- Run commands with exec_command. A command still running after yield_time_ms keeps going and gives you a session_id: poll it or send it input with write_stdin. Prefer rg for searching from the shell when the environment section lists it; otherwise use grep_files.
- Independent calls (several reads or searches) can go together in one turn.
- If update_plan is available, keep a short plan for multi-step work, one step in_progress at a time.

## Editing
- Change files with apply_patch: update hunks with three lines of context around each change, and an "@@" line naming the function or class when the context is not unique. Use write_file only to create a new file.
- Keep changes minimal and in the codebase's style; fix root causes, not symptoms. No license headers or comments nobody asked for.

## Checking your work
- Run the tests, build or linter that cover the change, most specific first. Fix failures you caused; mention ones you did not.
- Do not commit or create branches unless asked.

## Final answer
- Short and plain: what changed and why, with file paths, then anything the user must do or know. Reference files instead of pasting them. Ask only when a decision belongs to the user.`;

/** The profile's tools, answering also to the names and shapes of earlier releases (earlier.ts). */
export const openaiOwnTools: readonly Tool[] = acceptEarlier([...openaiTools, webFetchTool]);

export function createOpenAIProfile(options: ProfileOptions): ProviderProfile {
  return createAlignedProfile(
    {
      id: "openai",
      reference: OPENAI_REFERENCE,
      baseInstructions: OPENAI_BASE_INSTRUCTIONS,
      // codex has no fetch tool of its own (only the hosted web_search): the model gets gong's web_fetch, named in codex's style.
      // Calls under codex's earlier tool names and shapes are mapped onto today's (earlier.ts).
      tools: openaiOwnTools,
      capabilities: {
        read: ["read_file"],
        write: ["write_file"],
        edit: [APPLY_PATCH_TOOL],
        bash: ["exec_command", "write_stdin"],
        grep: ["grep_files"],
        find: ["list_dir"],
        ls: ["list_dir"],
      },
      extras: [updatePlanTool.name, "view_image", webFetchTool.name],
      limits: {
        read_file: "read",
        exec_command: "bash",
        write_stdin: "bash",
        grep_files: "grep",
        list_dir: "find",
        [APPLY_PATCH_TOOL]: "edit",
        write_file: "write",
        [webFetchTool.name]: "read",
      },
      projectDocFiles: [".codex/instructions.md"],
      // codex's read_file pages by offset/limit; grep_files lists matching files, so it cannot search inside one.
      pagingHint: "Use read_file with offset and limit to page through that file instead of re-running the tool.",
      defaultCommandTimeoutMs: EXEC_DEFAULT_YIELD_MS,
      supportsParallelToolCalls: true,
      subagentTools: codexSubagentTools,
      skillTool: plainSkillTool,
      planTool: updatePlanTool,
      toolSearchName: "tool_search",
      providerOptions({ modelInfo }) {
        // reasoning.effort is set by the Responses adapter from the request; the profile asks for parallel calls.
        const provider = modelInfo?.provider ?? "openai";
        return { [provider]: { parallel_tool_calls: true } };
      },
    },
    options,
  );
}

export const openaiProfile: ProfileRegistration = {
  id: "openai",
  create: createOpenAIProfile,
  // GPT, o-series and codex ids, by their last path segment (openrouter/openai/gpt-5-mini).
  models: {
    provider: "openai",
    ids: (id) => {
      const last = id.slice(id.lastIndexOf("/") + 1);
      return /^(gpt-|o\d(-|$)|codex)/.test(last) || /codex/.test(last);
    },
  },
};
