/**
 * What every provider-aligned profile shares: the prompt layers, the capability → tool-name map for
 * presets, and the per-tool limits (characters first, then lines; docs/conformance.md: 004 §5.2,
 * §5.3), written per capability and applied to this profile's own tool names.
 */
import type { Tool } from "../../tools/types.ts";
import { environmentBlock, gitBlock, joinLayers, projectDocsBlock, toolNamesBlock } from "./prompt-layers.ts";
import { limitsFor, type LimitCapability } from "./tool-limits.ts";
import type { Capability, ProfileOptions, ProviderProfile, RequestSettings } from "./types.ts";

/** Used when the catalog does not know the model. */
export const FALLBACK_CONTEXT_WINDOW = 128_000;

export interface AlignedProfileSpec {
  id: string;
  /** Reference agent and version the tool shapes were checked against. */
  reference: string;
  baseInstructions: string;
  tools: readonly Tool[];
  capabilities: Record<Capability, readonly string[]>;
  extras: readonly string[];
  /** Which capability's output limits (docs/conformance.md: 004 §5.2/§5.3) each tool name gets. */
  limits: Record<string, LimitCapability>;
  projectDocFiles: string[];
  /** How to page or search a spilled output file, in this profile's tool and parameter names. */
  pagingHint: string;
  defaultCommandTimeoutMs: number;
  supportsParallelToolCalls: boolean;
  subagentTools: ProviderProfile["subagentTools"];
  skillTool: ProviderProfile["skillTool"];
  planTool?: Tool;
  toolSearchName: string;
  providerOptions(
    options: ProfileOptions,
    settings: RequestSettings,
  ): Record<string, Record<string, unknown>> | undefined;
}

export function createAlignedProfile(spec: AlignedProfileSpec, options: ProfileOptions): ProviderProfile {
  const { model, modelInfo } = options;
  const toolLimits = limitsFor(spec.limits);
  return {
    id: spec.id,
    model,
    buildSystemPrompt(environment, projectDocs, tools, prompt = {}) {
      return joinLayers([
        prompt.baseInstructions ?? spec.baseInstructions,
        environmentBlock(environment),
        gitBlock(environment.git),
        // Names only: the reference agents describe their tools in the tool list, and the prompt stays lean.
        toolNamesBlock(tools),
        projectDocsBlock(projectDocs),
      ]);
    },
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
    pagingHint: spec.pagingHint,
    subagentTools: spec.subagentTools,
    skillTool: spec.skillTool,
    ...(spec.planTool ? { planTool: spec.planTool } : {}),
    toolSearchName: spec.toolSearchName,
  };
}
