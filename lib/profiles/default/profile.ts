/**
 * The `default` profile: gong's own seven tools (read, write, edit, bash, grep, find, ls) under
 * their plain names, for any model. Provider-aligned profiles replace the base text and the tool
 * shapes; everything else about a profile works as here.
 */
import { FALLBACK_CONTEXT_WINDOW } from "../build-profile.ts";
import { environmentBlock, gitBlock, joinLayers, projectDocsBlock, toolsBlock } from "../prompt-layers.ts";
import { plainSkillTool } from "../skill-tool.ts";
import { limitsFor } from "../tool-limits.ts";
import type { ProfileOptions, ProfileRegistration, ProviderProfile } from "../types.ts";
import { CORE_PAGING_HINT } from "../../output/policy.ts";
import { coreTools } from "../../../tools/registry.ts";
import { BASH_DEFAULT_TIMEOUT_S } from "../../../tools/bash.ts";
import { webFetchTool } from "../../../tools/web-fetch.ts";
import { defaultSubagentTools } from "./subagents.ts";

export const DEFAULT_BASE_INSTRUCTIONS = `You are gong, a coding agent working in the user's project through tools. You read and change files and run commands to get the user's task done, then say briefly what you did.

How to work:
- Look before you act: read a file before you edit it, and search (grep, find, ls) rather than guess paths or names.
- Prefer edit for changes to existing files; it replaces exact text and keeps the rest intact. Use write only for new files or complete rewrites.
- Keep changes focused on the task. Follow the project's existing style, structure and conventions.
- Verify your work: run the project's tests, type checker, linter or the program itself with bash, and read the output. If something fails, fix it or say clearly what still fails.
- Run commands non-interactively and avoid commands that never end; give long ones a timeout.
- When a tool returns an error, read the message: it says what went wrong and usually what to do next.
- Never invent file contents, command output or results you did not see.
- Ask the user only when the task is truly ambiguous or an action is destructive and was not requested.

Answers: be concise and direct. Use short paragraphs or lists, mention files by path, and do not repeat file contents the user can open themselves.`;

export function createDefaultProfile({ model, modelInfo }: ProfileOptions): ProviderProfile {
  return {
    id: "default",
    model,
    buildSystemPrompt(environment, projectDocs, tools, options = {}) {
      return joinLayers([
        options.baseInstructions ?? DEFAULT_BASE_INSTRUCTIONS,
        environmentBlock(environment),
        gitBlock(environment.git),
        toolsBlock(tools),
        projectDocsBlock(projectDocs),
      ]);
    },
    providerOptions: () => undefined,
    ownTools: [...coreTools, webFetchTool],
    capabilityTools: {
      read: ["read"],
      write: ["write"],
      edit: ["edit"],
      bash: ["bash"],
      grep: ["grep"],
      find: ["find"],
      ls: ["ls"],
    },
    extraTools: [webFetchTool.name],
    defaultCommandTimeoutMs: BASH_DEFAULT_TIMEOUT_S * 1000,
    supportsReasoning: modelInfo?.reasoning ?? false,
    supportsStreaming: true,
    supportsParallelToolCalls: false,
    contextWindowSize: modelInfo?.contextWindow ?? FALLBACK_CONTEXT_WINDOW,
    projectDocFiles: [],
    pagingHint: CORE_PAGING_HINT,
    // apply_patch is off unless named (--tools default,apply_patch); its result is an edit's.
    toolLimits: limitsFor({
      read: "read",
      bash: "bash",
      grep: "grep",
      find: "find",
      ls: "ls",
      edit: "edit",
      apply_patch: "edit",
      write: "write",
      [webFetchTool.name]: "read",
    }),
    subagentTools: defaultSubagentTools,
    skillTool: plainSkillTool,
    toolSearchName: "tool_search",
  };
}

/** The profile of any model no other profile claims. */
export const defaultProfile: ProfileRegistration = { id: "default", create: createDefaultProfile };
