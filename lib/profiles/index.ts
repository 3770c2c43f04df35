/**
 * Profiles by id, and the choice of one from the model. `default` serves any model; `anthropic`,
 * `openai` and `gemini` give their model families the tools and prompt they were trained on.
 * Hosts may register their own profiles.
 */
import { createAnthropicProfile } from "./anthropic.ts";
import { createDefaultProfile } from "./default.ts";
import { createGeminiProfile } from "./gemini.ts";
import { createOpenAIProfile } from "./openai.ts";
import type { ProfileFactory, ProviderProfile } from "./types.ts";
import type { Tool } from "../../tools/types.ts";

export type * from "./types.ts";
export { createDefaultProfile, DEFAULT_BASE_INSTRUCTIONS, FALLBACK_CONTEXT_WINDOW } from "./default.ts";
export { CAPABILITY_LIMITS, limitsFor, type LimitCapability } from "./tool-limits.ts";
export { createAnthropicProfile, ANTHROPIC_BASE_INSTRUCTIONS, ANTHROPIC_REFERENCE } from "./anthropic.ts";
export { createOpenAIProfile, OPENAI_BASE_INSTRUCTIONS, OPENAI_REFERENCE } from "./openai.ts";
export { createGeminiProfile, GEMINI_BASE_INSTRUCTIONS, GEMINI_REFERENCE } from "./gemini.ts";
export { environmentBlock, gitBlock, joinLayers, projectDocsBlock, toolsBlock } from "./prompt-layers.ts";

/** Chooses the profile from the model (see profileForModel) unless one is named. */
export const AUTO_PROFILE = "auto";

const factories = new Map<string, ProfileFactory>([
  ["default", createDefaultProfile],
  ["anthropic", createAnthropicProfile],
  ["openai", createOpenAIProfile],
  ["gemini", createGeminiProfile],
]);

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
 * The profile a model's family was trained for: Claude ids (on any provider) → anthropic; GPT,
 * o-series and codex ids → openai; Gemini ids → gemini; anything else (Ollama, vLLM, DeepSeek…)
 * → default.
 */
export function profileForModel(model: string): string {
  const slash = model.indexOf("/");
  const provider = slash < 0 ? "" : model.slice(0, slash).toLowerCase();
  const id = (slash < 0 ? model : model.slice(slash + 1)).toLowerCase();
  const last = id.slice(id.lastIndexOf("/") + 1);
  if (provider === "anthropic" || /claude/.test(id)) return "anthropic";
  if (provider === "gemini" || /(^|[/-])gemini/.test(id)) return "gemini";
  if (provider === "openai" || /^(gpt-|o\d(-|$)|codex)/.test(last) || /codex/.test(last)) return "openai";
  return "default";
}

/** An instance of each factory, for what a profile states about itself (tool names, instruction files). */
function samples(of: Iterable<ProfileFactory>): ProviderProfile[] {
  return [...of].map((factory) => factory({ model: "" }));
}

/** Instruction files the registered profiles read besides AGENTS.md: a session gathers them all once, so a profile switch needs no new walk. */
export function registeredProjectDocFiles(): string[] {
  return [...new Set(samples(factories.values()).flatMap((p) => p.projectDocFiles))];
}

let builtInToolNames: ReadonlySet<string> | undefined;

/** True for a tool name one of the built-in profiles defines: its own tools and those it names for capabilities and extras (plans, patches). */
export function isProfileToolName(name: string): boolean {
  builtInToolNames ??= new Set(
    samples([createDefaultProfile, createAnthropicProfile, createOpenAIProfile, createGeminiProfile]).flatMap((p) => [
      ...p.ownTools.map((t) => t.name),
      ...Object.values(p.capabilityTools).flat(),
      ...p.extraTools,
    ]),
  );
  return builtInToolNames.has(name);
}
