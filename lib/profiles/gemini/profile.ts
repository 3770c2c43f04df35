/**
 * The `gemini` profile: Gemini models get gemini-cli's tools (read_file, read_many_files,
 * write_file, replace, run_shell_command with background processes, grep_search, glob,
 * list_directory, write_todos when registered), a base prompt in the order of gemini-cli's
 * (identity, conventions, tool use, editing, verification, answers), GEMINI.md as project
 * instructions, a 10 s default command timeout, parallel calls and explicit safety settings.
 *
 * Tool shapes checked against gemini-cli 0.56 (its model tool-declaration snapshots).
 */
import type { Tool } from "../../../tools/types.ts";
import { createAlignedProfile } from "../build-profile.ts";
import type { ProfileOptions, ProfileRegistration, ProviderProfile } from "../types.ts";
import { acceptEarlier } from "./earlier.ts";
import { writeTodosTool } from "./plan.ts";
import { geminiSkillTool } from "./skill.ts";
import { geminiSubagentTools } from "./subagents.ts";
import { GEMINI_SHELL_DEFAULT_TIMEOUT_MS, geminiTools } from "./tools.ts";
import { geminiWebFetchTool } from "./web-fetch.ts";

export const GEMINI_REFERENCE = "gemini-cli 0.56";

/** Code, logs and security work trip the default filters easily; block only what is clearly harmful. */
export const GEMINI_SAFETY_SETTINGS = [
  "HARM_CATEGORY_HARASSMENT",
  "HARM_CATEGORY_HATE_SPEECH",
  "HARM_CATEGORY_SEXUALLY_EXPLICIT",
  "HARM_CATEGORY_DANGEROUS_CONTENT",
].map((category) => ({ category, threshold: "BLOCK_ONLY_HIGH" }));

export const GEMINI_BASE_INSTRUCTIONS = `You are gong, a command-line agent for software engineering. You help the user safely and efficiently in their project, using the tools available to you.

# Core rules
- Follow the project's style, structure and libraries; read nearby code, configuration and tests first, and never assume a library is available.
- Do what was asked, completely, and nothing more without asking. Explain a command that deletes or rewrites files before running it.
- GEMINI.md and AGENTS.md files (shown below when present) are the project's own rules: follow them.

# Tools
- Search with grep_search (contents) and glob (names); read with read_file or read_many_files.
- Run commands with run_shell_command, non-interactively; start servers and watchers with is_background and check them with read_background_output.
- Make independent calls together in one turn: they run in parallel.
- If write_todos is available, track multi-step work with it.

# Editing
- Use replace: old_string is the exact literal text from the file (whitespace included) with enough context to be unique; allow_multiple changes every occurrence. Say what the change does in instruction.
- Use write_file for new files or complete rewrites.

# Verifying
- After changing code, run the project's tests, build, linter or type checker. Fix what you broke and run them again.

# Answers
- Concise and direct, for a terminal: a few lines, Markdown only where it helps. Say what changed and where, and plainly what is left undone or failing.`;

/** The profile's tools, answering also to the names and shapes of earlier releases (earlier.ts). */
export const geminiOwnTools: readonly Tool[] = acceptEarlier([...geminiTools, geminiWebFetchTool]);

export function createGeminiProfile(options: ProfileOptions): ProviderProfile {
  return createAlignedProfile(
    {
      id: "gemini",
      reference: GEMINI_REFERENCE,
      baseInstructions: GEMINI_BASE_INSTRUCTIONS,
      // Calls in the shapes of earlier gemini-cli releases are mapped onto today's (earlier.ts).
      tools: geminiOwnTools,
      capabilities: {
        read: ["read_file", "read_many_files"],
        write: ["write_file"],
        edit: ["replace"],
        bash: ["run_shell_command", "read_background_output", "list_background_processes"],
        grep: ["grep_search"],
        find: ["glob"],
        ls: ["list_directory"],
      },
      extras: [writeTodosTool.name, geminiWebFetchTool.name],
      limits: {
        read_file: "read",
        read_many_files: "read",
        run_shell_command: "bash",
        read_background_output: "bash",
        grep_search: "grep",
        glob: "find",
        list_directory: "find",
        replace: "edit",
        // Off unless named (--tools default,apply_patch); its result is an edit's.
        apply_patch: "edit",
        write_file: "write",
        [geminiWebFetchTool.name]: "read",
      },
      projectDocFiles: ["GEMINI.md"],
      // gemini-cli's read_file takes a line range (start_line/end_line); grep_search searches directories.
      pagingHint:
        "Use read_file with start_line and end_line to page through that file instead of re-running the tool.",
      defaultCommandTimeoutMs: GEMINI_SHELL_DEFAULT_TIMEOUT_MS,
      supportsParallelToolCalls: true,
      subagentTools: geminiSubagentTools,
      skillTool: geminiSkillTool,
      planTool: writeTodosTool,
      toolSearchName: "tool_search",
      providerOptions({ modelInfo }) {
        return { [modelInfo?.provider ?? "gemini"]: { safetySettings: GEMINI_SAFETY_SETTINGS } };
      },
    },
    options,
  );
}

export const geminiProfile: ProfileRegistration = {
  id: "gemini",
  create: createGeminiProfile,
  // Gemini ids on any provider (openrouter/google/gemini-2.5-flash).
  models: { provider: "gemini", ids: (id) => /(^|[/-])gemini/.test(id) },
};
