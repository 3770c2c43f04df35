/**
 * The ProviderProfile (docs/conformance.md: 004 §3.2): what one model family sees — its tools under
 * the names and shapes it was trained on, its system prompt, its request options and its
 * capabilities. The agent loop talks to a profile only through this interface, so provider-aligned
 * profiles (anthropic, openai, gemini) slot in beside `default` without touching the loop. A
 * profile is data and pure functions: it never holds a registry or the active tools (the session's
 * Toolset, lib/agent/toolset.ts, is built from it).
 */
import type { EnvironmentFacts } from "../env/types.ts";
import type { ToolLimits } from "../output/policy.ts";
import type { ModelInfo, ToolSpec } from "../llm/types.ts";
import type { Skill } from "../setup/skills.ts";
import type { Capability } from "../../tools/selection.ts";
import type { Tool } from "../../tools/types.ts";
import type { Subagents, SubagentToolOptions } from "./subagents.ts";

export type { Capability };

/** What the request-time options depend on. */
export interface RequestSettings {
  reasoningEffort?: string | null;
}

/** The git snapshot taken at session start (docs/conformance.md: 004 §6.4). */
export interface GitSummary {
  isRepo: boolean;
  /** Absolute top-level directory of the repository. */
  root?: string;
  branch?: string;
  /** Tracked files with changes (staged or not). */
  modified: number;
  untracked: number;
  /** Subjects of the most recent commits, newest first. */
  recentCommits: string[];
}

/**
 * Runtime facts for the `<environment>` block (docs/conformance.md: 004 §6.3), gathered once at
 * session start.
 */
export interface PromptEnvironment {
  workingDirectory: string;
  platform: string;
  osVersion: string;
  /** YYYY-MM-DD */
  date: string;
  /** Display name of the model. */
  model: string;
  knowledgeCutoff?: string;
  git: GitSummary;
  /** What the machine offers (the shell, which common programs are on PATH), when the environment tells. */
  facts?: EnvironmentFacts;
}

/**
 * One instruction file found between the repository root and the working directory
 * (docs/conformance.md: 004 §6.5).
 */
export interface ProjectDoc {
  /** Absolute path. */
  path: string;
  /** Content, already cut to the shared 32 KB budget. */
  content: string;
  /** True when the budget cut this file (the marker is in `content`). */
  truncated: boolean;
  /** The file name profiles read it as when its own differs (a gemini-cli extension's context file reads as GEMINI.md). */
  readAs?: string;
}

export interface BuildPromptOptions {
  /** Replaces the profile's base instructions (the host's --system-prompt). */
  baseInstructions?: string;
}

export interface ProviderProfile {
  /** "default", "anthropic", "openai", "gemini", … */
  id: string;
  /** "provider/model-id" the requests go to. */
  model: string;
  /** The system prompt for the active tools (the session's Toolset gives their definitions). */
  buildSystemPrompt(
    environment: PromptEnvironment,
    projectDocs: ProjectDoc[],
    tools: readonly ToolSpec[],
    options?: BuildPromptOptions,
  ): string;
  /** Per-provider request extras (keyed by provider id), or undefined. */
  providerOptions(settings?: RequestSettings): Record<string, Record<string, unknown>> | undefined;
  /** The tools this profile brings; the session's Toolset offers them (a custom tool of the same name wins). */
  ownTools: readonly Tool[];
  /** This profile's tool names for each preset capability (names no tool has are left out). */
  capabilityTools: Record<Capability, readonly string[]>;
  /** Tools on with the full preset besides the capabilities (plan, images, patches), when some tool has the name. */
  extraTools: readonly string[];
  /** Timeout of a shell command when neither the model nor the session config gives one. */
  defaultCommandTimeoutMs: number;
  supportsReasoning: boolean;
  supportsStreaming: boolean;
  supportsParallelToolCalls: boolean;
  /** Tokens. */
  contextWindowSize: number;
  /** Instruction files this profile reads, besides AGENTS.md (always read). */
  projectDocFiles: string[];
  /** What the model sees of each tool's output, by tool name (characters, lines, direction); absent → the observer's defaults. */
  toolLimits: Record<string, ToolLimits>;
  /**
   * After a cut output, how to get at the spilled file, in this profile's own tool and parameter
   * names ("Use Read with offset and limit…"); absent → the core tools' sentence.
   */
  pagingHint?: string;
  /** The subagent tools in this profile's names and shapes, over the session's child agents; the spawning one first. */
  subagentTools(subagents: Subagents, options: SubagentToolOptions): Tool[];
  /** The tool the model loads a skill with (a session that has skills offers it). */
  skillTool(skills: readonly Skill[]): Tool;
  /**
   * The plan (todo list) tool in this profile's shape, when it has one. Every session knows the
   * built-in profiles' plan tools; a selection naming one, or this profile's extras, turn it on.
   */
  planTool?: Tool;
  /** Name of the tool that loads deferred MCP tools. */
  toolSearchName: string;
}

export interface ProfileOptions {
  model: string;
  /** Catalog facts for the model (context window, reasoning, cutoff), when known. */
  modelInfo?: ModelInfo;
}

export type ProfileFactory = (options: ProfileOptions) => ProviderProfile;

/** A built-in profile as its folder registers it (lib/profiles/index.ts lists them). */
export interface ProfileRegistration {
  id: string;
  create: ProfileFactory;
  /**
   * The models `auto` gives this profile: those whose id (after the provider, lowercased) `ids`
   * recognises — a Claude id on any provider is Claude's — and otherwise those of `provider`.
   */
  models?: { provider: string; ids(id: string): boolean };
}
