/**
 * Profiles by id. `default` serves every model; provider-aligned profiles register here under
 * their own id, and hosts may register their own.
 */
import { createDefaultProfile } from "./default.ts";
import type { ProfileFactory } from "./types.ts";

export type * from "./types.ts";
export { createDefaultProfile, DEFAULT_BASE_INSTRUCTIONS, FALLBACK_CONTEXT_WINDOW } from "./default.ts";
export { CAPABILITY_LIMITS, limitsFor, type LimitCapability } from "./tool-limits.ts";
export { environmentBlock, gitBlock, joinLayers, projectDocsBlock, toolsBlock } from "./prompt-layers.ts";

const factories = new Map<string, ProfileFactory>([["default", createDefaultProfile]]);

export function registerProfile(id: string, factory: ProfileFactory): void {
  factories.set(id, factory);
}

export function profileIds(): string[] {
  return [...factories.keys()];
}

/** The factory for `id`; an unknown id is an error naming the known ones. */
export function getProfileFactory(id: string): ProfileFactory {
  const factory = factories.get(id);
  if (!factory) throw new Error(`Unknown profile '${id}'. Known profiles: ${profileIds().join(", ")}.`);
  return factory;
}
