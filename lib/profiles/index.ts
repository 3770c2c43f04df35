/**
 * Profiles by id, and the choice of one from the model. Each built-in profile is one folder —
 * `default` serves any model; `anthropic`, `openai` and `gemini` give their model families the
 * tools and prompt they were trained on — registered by one line below. Hosts may register their
 * own profiles.
 */
import { anthropicProfile } from "./anthropic/profile.ts";
import { AskUserQuestionTool, ExitPlanModeTool } from "./anthropic/user-tools.ts";
import { defaultProfile } from "./default/profile.ts";
import { geminiProfile } from "./gemini/profile.ts";
import { openaiProfile } from "./openai/profile.ts";
import type { ProfileFactory, ProfileRegistration, ProviderProfile } from "./types.ts";
import type { Tool } from "../../tools/types.ts";

export type * from "./types.ts";
export { createDefaultProfile, DEFAULT_BASE_INSTRUCTIONS } from "./default/profile.ts";
export { FALLBACK_CONTEXT_WINDOW } from "./build-profile.ts";
export { CAPABILITY_LIMITS, limitsFor, type LimitCapability } from "./tool-limits.ts";
export { environmentBlock, gitBlock, joinLayers, projectDocsBlock, toolsBlock } from "./prompt-layers.ts";

/** Chooses the profile from the model (see profileForModel) unless one is named. */
export const AUTO_PROFILE = "auto";

/** The built-in profiles, one line each. */
const BUILT_IN: readonly ProfileRegistration[] = [defaultProfile, anthropicProfile, openaiProfile, geminiProfile];

const factories = new Map<string, ProfileFactory>(BUILT_IN.map((p) => [p.id, p.create]));

export function registerProfile(id: string, factory: ProfileFactory): void {
  if (id === AUTO_PROFILE) throw new Error(`'${AUTO_PROFILE}' is reserved: it means "choose from the model".`);
  factories.set(id, factory);
}

export function profileIds(): string[] {
  return [...factories.keys()];
}

/** The tools profile `id` brings (its `ownTools`; none for an unknown id), for hosts describing stored calls. */
export function profileTools(id: string): readonly Tool[] {
  const factory = factories.get(id);
  return factory ? factory({ model: "" }).ownTools : [];
}

/** The factory for `id`; an unknown id is an error naming the known ones. */
export function getProfileFactory(id: string): ProfileFactory {
  const factory = factories.get(id);
  if (!factory)
    throw new Error(`Unknown profile '${id}'. Known profiles: ${[AUTO_PROFILE, ...profileIds()].join(", ")}.`);
  return factory;
}

/** The profile factory for a choice: "auto" picks by the model's family. */
export function factoryFor(choice: string | ProfileFactory, model: string): ProfileFactory {
  if (typeof choice === "function") return choice;
  return getProfileFactory(choice === AUTO_PROFILE ? profileForModel(model) : choice);
}

/**
 * The built-in profile a model's family was trained for: the first whose folder recognises the
 * model's id (Claude ids on any provider → anthropic, GPT/o-series/codex → openai, Gemini →
 * gemini), else the one native to its provider, else `default` (Ollama, vLLM, DeepSeek…).
 */
export function profileForModel(model: string): string {
  const slash = model.indexOf("/");
  const provider = slash < 0 ? "" : model.slice(0, slash).toLowerCase();
  const id = (slash < 0 ? model : model.slice(slash + 1)).toLowerCase();
  const claimed =
    BUILT_IN.find((p) => p.models?.ids(id)) ?? BUILT_IN.find((p) => p.models && p.models.provider === provider);
  return claimed?.id ?? defaultProfile.id;
}

/** An instance of each factory, for what a profile states about itself (tool names, instruction files). */
function samples(of: Iterable<ProfileFactory>): ProviderProfile[] {
  return [...of].map((factory) => factory({ model: "" }));
}

/** Instruction files the registered profiles read besides AGENTS.md: a session gathers them all once, so a profile switch needs no new walk. */
export function registeredProjectDocFiles(): string[] {
  return [...new Set(samples(factories.values()).flatMap((p) => p.projectDocFiles))];
}

const builtInSamples = samples(BUILT_IN.map((p) => p.create));

/**
 * The built-in profiles' plan tools (TodoWrite, update_plan, write_todos): every session knows
 * them, no preset turns them on; a profile's extras or a selection naming one do.
 */
export const planTools: readonly Tool[] = builtInSamples.flatMap((p) => (p.planTool ? [p.planTool] : []));

/** What plan mode keeps besides the reading tools: the plan tools, asking the user, and leaving plan mode. */
export const PLAN_MODE_TOOL_NAMES: ReadonlySet<string> = new Set([
  ...planTools.map((t) => t.name),
  AskUserQuestionTool.name,
  ExitPlanModeTool.name,
]);

/**
 * Names of every built-in profile's subagent tools, read off their definitions (no subagents are
 * driven here). A tool list may name one of another profile: the session leaves it out, and a
 * child's selection drops them all.
 */
export const SUBAGENT_TOOL_NAMES: ReadonlySet<string> = new Set(
  builtInSamples.flatMap((p) => p.subagentTools(undefined as never, { parentModel: "" }).map((t) => t.name)),
);

let builtInToolNames: ReadonlySet<string> | undefined;

/** True for a tool name one of the built-in profiles defines: its own tools and those it names for capabilities and extras (plans, patches). */
export function isProfileToolName(name: string): boolean {
  builtInToolNames ??= new Set(
    builtInSamples.flatMap((p) => [
      ...p.ownTools.map((t) => t.name),
      ...Object.values(p.capabilityTools).flat(),
      ...p.extraTools,
    ]),
  );
  return builtInToolNames.has(name);
}
