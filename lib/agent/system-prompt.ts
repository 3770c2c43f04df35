/**
 * The system prompt (docs/conformance.md: 004 §6.1): the profile builds base instructions +
 * environment + git + tools + project docs; the user's override (appendSystemPrompt) goes last,
 * highest priority. The environment, git snapshot and project docs are gathered once, at session
 * start.
 */
import type { ExecutionEnvironment } from "../env/types.ts";
import type { ModelInfo, ToolSpec } from "../llm/types.ts";
import { joinLayers } from "../profiles/prompt-layers.ts";
import type { GitSummary, ProjectDoc, PromptEnvironment, ProviderProfile } from "../profiles/types.ts";
import type { SecretPolicy } from "../env/env-vars.ts";
import { gitSnapshot } from "./git-context.ts";
import { localDate } from "./local-date.ts";
import { registeredProjectDocFiles } from "../profiles/index.ts";
import { discoverProjectDocs, selectProjectDocs } from "./project-docs.ts";
import type { ContextFile } from "../setup/plugins/extensions.ts";

export interface PromptSources {
  environment: PromptEnvironment;
  /** Every instruction file found for any profile; each profile's prompt takes its own (selectProjectDocs). */
  projectDocs: ProjectDoc[];
}

export interface PromptOverrides {
  /** Replaces the profile's base instructions. */
  systemPrompt?: string;
  /** Appended after every other layer. */
  appendSystemPrompt?: string;
}

export function promptEnvironment(
  env: ExecutionEnvironment,
  git: GitSummary,
  model: string,
  info?: ModelInfo,
): PromptEnvironment {
  return {
    workingDirectory: env.workingDirectory(),
    platform: env.platform(),
    osVersion: env.osVersion(),
    date: localDate(),
    model: info ? `${info.name} (${model})` : model,
    knowledgeCutoff: info?.knowledgeCutoff,
    git,
    facts: env.facts?.(),
  };
}

/** `extra`: instruction files from elsewhere (an extension's context file), before the project's own. */
export async function gatherPromptSources(
  env: ExecutionEnvironment,
  profile: ProviderProfile,
  info?: ModelInfo,
  secrets?: SecretPolicy,
  extra: readonly ContextFile[] = [],
): Promise<PromptSources> {
  const cwd = env.workingDirectory();
  const git = await gitSnapshot(cwd, secrets);
  // Every registered profile's files (and this profile's, when it is a factory of the host's), so a profile switch needs no new walk.
  const files = [...new Set([...registeredProjectDocFiles(), ...profile.projectDocFiles])];
  const projectDocs = await discoverProjectDocs(cwd, {
    gitRoot: git.root,
    files,
    budgetBytes: Number.POSITIVE_INFINITY,
  });
  return {
    environment: promptEnvironment(env, git, profile.model, info),
    projectDocs: [...extra.map((c) => ({ ...c, truncated: false })), ...projectDocs],
  };
}

/** `skills` is the list of Agent Skills (names and descriptions), placed before the user's appended text. */
export function composeSystemPrompt(
  profile: ProviderProfile,
  sources: PromptSources,
  overrides: PromptOverrides,
  tools: readonly ToolSpec[],
  skills = "",
): string {
  const docs = selectProjectDocs(sources.projectDocs, profile.projectDocFiles);
  const built = profile.buildSystemPrompt(sources.environment, docs, tools, {
    baseInstructions: overrides.systemPrompt,
  });
  return joinLayers([built, skills, overrides.appendSystemPrompt]);
}
