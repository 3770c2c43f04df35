/**
 * What every provider-aligned profile shares: the prompt layers, the capability → tool-name map
 * for presets, and the per-tool limits of 004 §5.2–5.3 (characters first, then lines), written
 * per capability and applied to this profile's own tool names.
 */
import type { ToolLimits } from "../observe.ts";
import type { Tool } from "../../tools/types.ts";
import { FALLBACK_CONTEXT_WINDOW } from "./default.ts";
import { environmentBlock, gitBlock, joinLayers, projectDocsBlock, toolNamesBlock } from "./prompt-layers.ts";
import type { Capability, ProfileOptions, ProviderProfile, RequestSettings } from "./types.ts";

/** 004 §5.2/§5.3 by kind of tool: characters, lines, and which end is kept. */
export const LIMITS_BY_KIND = {
  read: { maxChars: 50_000, direction: "head_tail" },
  shell: { maxChars: 30_000, maxLines: 256, direction: "head_tail" },
  grep: { maxChars: 20_000, maxLines: 200, direction: "tail" },
  glob: { maxChars: 20_000, maxLines: 500, direction: "tail" },
  edit: { maxChars: 10_000, direction: "tail" },
  write: { maxChars: 1_000, direction: "tail" },
} as const satisfies Record<string, ToolLimits>;
export type LimitKind = keyof typeof LIMITS_BY_KIND;

export interface AlignedProfileSpec {
  id: string;
  /** Reference agent and version the tool shapes were checked against. */
  reference: string;
  baseInstructions: string;
  tools: readonly Tool[];
  capabilities: Record<Capability, readonly string[]>;
  extras: readonly string[];
  /** Which limits each tool name gets. */
  limitKinds: Record<string, LimitKind>;
  projectDocFiles: string[];
  defaultCommandTimeoutMs: number;
  supportsParallelToolCalls: boolean;
  providerOptions(options: ProfileOptions, settings: RequestSettings): Record<string, Record<string, unknown>> | undefined;
}

export function createAlignedProfile(spec: AlignedProfileSpec, options: ProfileOptions): ProviderProfile {
  const { model, modelInfo, registry } = options;
  const toolLimits: Record<string, ToolLimits> = {};
  for (const [name, kind] of Object.entries(spec.limitKinds)) toolLimits[name] = { ...LIMITS_BY_KIND[kind] };
  return {
    id: spec.id,
    model,
    registry,
    buildSystemPrompt(environment, projectDocs, prompt = {}) {
      return joinLayers([
        prompt.baseInstructions ?? spec.baseInstructions,
        environmentBlock(environment),
        gitBlock(environment.git),
        // Names only: the reference agents describe their tools in the tool list, and the prompt stays lean.
        toolNamesBlock(this.tools()),
        projectDocsBlock(projectDocs),
      ]);
    },
    tools: () => registry.definitions(),
    providerOptions: (settings = {}) => spec.providerOptions(options, settings),
    ownTools: spec.tools,
    capabilityTools: spec.capabilities,
    extraTools: spec.extras,
    defaultCommandTimeoutMs: spec.defaultCommandTimeoutMs,
    supportsReasoning: modelInfo?.reasoning ?? false,
    supportsStreaming: true,
    supportsParallelToolCalls: spec.supportsParallelToolCalls,
    contextWindowSize: modelInfo?.contextWindow ?? FALLBACK_CONTEXT_WINDOW,
    projectDocFiles: spec.projectDocFiles,
    toolLimits,
  };
}
