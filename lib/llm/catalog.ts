/**
 * A small model catalog: context window, output limit, prices (USD per million tokens), reasoning and
 * image capability. Models are named "provider/model-id"; an id the catalog does not know still
 * works with defaults, an unknown provider is an error that lists the known ones.
 */
import { LlmError } from "./errors.ts";
import { findProvider, providerRegistry, type ProviderPreset } from "./providers.ts";
import type { ModelInfo } from "./types.ts";

type Entry = [
  id: string,
  name: string,
  contextWindow: number,
  maxOutput: number,
  price: [input: number, output: number, cacheRead: number, cacheWrite: number],
  flags: { reasoning?: boolean; images?: boolean; cutoff?: string; adaptive?: boolean },
];

const K = 1000;
const M = 1_048_576;

const ENTRIES: Record<string, Entry[]> = {
  anthropic: [
    [
      "claude-opus-4-6",
      "Claude Opus 4.6",
      200 * K,
      128 * K,
      [5, 25, 0.5, 6.25],
      { reasoning: true, images: true, cutoff: "2025-05", adaptive: true },
    ],
    [
      "claude-sonnet-4-6",
      "Claude Sonnet 4.6",
      200 * K,
      64 * K,
      [3, 15, 0.3, 3.75],
      { reasoning: true, images: true, cutoff: "2025-08", adaptive: true },
    ],
    [
      "claude-opus-4-5",
      "Claude Opus 4.5",
      200 * K,
      64 * K,
      [5, 25, 0.5, 6.25],
      { reasoning: true, images: true, cutoff: "2025-03" },
    ],
    [
      "claude-sonnet-4-5",
      "Claude Sonnet 4.5",
      200 * K,
      64 * K,
      [3, 15, 0.3, 3.75],
      { reasoning: true, images: true, cutoff: "2025-01" },
    ],
    [
      "claude-haiku-4-5",
      "Claude Haiku 4.5",
      200 * K,
      64 * K,
      [1, 5, 0.1, 1.25],
      { reasoning: true, images: true, cutoff: "2025-02" },
    ],
    [
      "claude-opus-4-1",
      "Claude Opus 4.1",
      200 * K,
      32 * K,
      [15, 75, 1.5, 18.75],
      { reasoning: true, images: true, cutoff: "2025-01" },
    ],
    [
      "claude-sonnet-4",
      "Claude Sonnet 4",
      200 * K,
      64 * K,
      [3, 15, 0.3, 3.75],
      { reasoning: true, images: true, cutoff: "2025-01" },
    ],
  ],
  openai: [
    [
      "gpt-5.2",
      "GPT-5.2",
      400 * K,
      128 * K,
      [1.75, 14, 0.175, 0],
      { reasoning: true, images: true, cutoff: "2025-08" },
    ],
    [
      "gpt-5.2-codex",
      "GPT-5.2 Codex",
      400 * K,
      128 * K,
      [1.75, 14, 0.175, 0],
      { reasoning: true, images: true, cutoff: "2025-08" },
    ],
    [
      "gpt-5.1",
      "GPT-5.1",
      400 * K,
      128 * K,
      [1.25, 10, 0.125, 0],
      { reasoning: true, images: true, cutoff: "2024-09" },
    ],
    ["gpt-5", "GPT-5", 400 * K, 128 * K, [1.25, 10, 0.125, 0], { reasoning: true, images: true, cutoff: "2024-09" }],
    [
      "gpt-5-mini",
      "GPT-5 mini",
      400 * K,
      128 * K,
      [0.25, 2, 0.025, 0],
      { reasoning: true, images: true, cutoff: "2024-05" },
    ],
    [
      "gpt-5-nano",
      "GPT-5 nano",
      400 * K,
      128 * K,
      [0.05, 0.4, 0.005, 0],
      { reasoning: true, images: true, cutoff: "2024-05" },
    ],
    ["gpt-4.1", "GPT-4.1", 1_047_576, 32_768, [2, 8, 0.5, 0], { images: true, cutoff: "2024-06" }],
    ["gpt-4o", "GPT-4o", 128 * K, 16_384, [2.5, 10, 1.25, 0], { images: true, cutoff: "2023-10" }],
    ["o3", "o3", 200 * K, 100 * K, [2, 8, 0.5, 0], { reasoning: true, images: true, cutoff: "2024-06" }],
    [
      "o4-mini",
      "o4-mini",
      200 * K,
      100 * K,
      [1.1, 4.4, 0.275, 0],
      { reasoning: true, images: true, cutoff: "2024-06" },
    ],
  ],
  gemini: [
    [
      "gemini-3-pro-preview",
      "Gemini 3 Pro (preview)",
      M,
      65_536,
      [2, 12, 0.2, 0],
      { reasoning: true, images: true, cutoff: "2025-01" },
    ],
    [
      "gemini-3-flash-preview",
      "Gemini 3 Flash (preview)",
      M,
      65_536,
      [0.5, 3, 0.05, 0],
      { reasoning: true, images: true, cutoff: "2025-01" },
    ],
    [
      "gemini-2.5-pro",
      "Gemini 2.5 Pro",
      M,
      65_536,
      [1.25, 10, 0.125, 0],
      { reasoning: true, images: true, cutoff: "2025-01" },
    ],
    [
      "gemini-2.5-flash",
      "Gemini 2.5 Flash",
      M,
      65_536,
      [0.3, 2.5, 0.03, 0],
      { reasoning: true, images: true, cutoff: "2025-01" },
    ],
    [
      "gemini-2.5-flash-lite",
      "Gemini 2.5 Flash-Lite",
      M,
      65_536,
      [0.1, 0.4, 0.01, 0],
      { reasoning: true, images: true, cutoff: "2025-01" },
    ],
  ],
  deepseek: [
    ["deepseek-chat", "DeepSeek V3.2", 128 * K, 8 * K, [0.28, 0.42, 0.028, 0], {}],
    ["deepseek-reasoner", "DeepSeek V3.2 (thinking)", 128 * K, 64 * K, [0.28, 0.42, 0.028, 0], { reasoning: true }],
  ],
  groq: [["llama-3.3-70b-versatile", "Llama 3.3 70B", 131_072, 32_768, [0.59, 0.79, 0, 0], {}]],
  xai: [["grok-4", "Grok 4", 256 * K, 64 * K, [3, 15, 0.75, 0], { reasoning: true, images: true }]],
  mistral: [
    ["mistral-large-latest", "Mistral Large", 131_072, 8 * K, [0.5, 1.5, 0, 0], { images: true }],
    ["devstral-medium-latest", "Devstral Medium", 131_072, 8 * K, [0.4, 2, 0, 0], {}],
  ],
  cerebras: [["gpt-oss-120b", "gpt-oss-120b", 131_072, 32_768, [0.35, 0.75, 0, 0], { reasoning: true }]],
  openrouter: [
    [
      "anthropic/claude-sonnet-4.5",
      "Claude Sonnet 4.5 (OpenRouter)",
      200 * K,
      64 * K,
      [3, 15, 0.3, 3.75],
      { reasoning: true, images: true },
    ],
  ],
};

const DEFAULT_CONTEXT = 128 * K;
const DEFAULT_OUTPUT = 8192;
/** Providers whose unknown models still likely take images. */
const IMAGE_BY_DEFAULT = new Set(["anthropic", "openai", "gemini"]);

const ADAPTIVE = new Set<string>();

function toInfo(provider: ProviderPreset, e: Entry): ModelInfo {
  const [id, name, contextWindow, maxOutput, [input, output, cacheRead, cacheWrite], flags] = e;
  if (flags.adaptive) ADAPTIVE.add(`${provider.id}/${id}`);
  return {
    ref: `${provider.id}/${id}`,
    provider: provider.id,
    id,
    api: provider.api,
    name,
    contextWindow,
    maxOutput,
    price: { input, output, cacheRead, cacheWrite },
    reasoning: flags.reasoning ?? false,
    images: flags.images ?? false,
    knowledgeCutoff: flags.cutoff,
  };
}

const KNOWN: ModelInfo[] = Object.entries(ENTRIES).flatMap(([pid, entries]) => {
  const provider = findProvider(pid);
  if (!provider) throw new Error(`catalog names unknown provider ${pid}`);
  return entries.map((e) => toInfo(provider, e));
});

/**
 * The model for "provider/model-id". Unknown ids get defaults (128k window, 8192 output, no price,
 * the provider's API); an unknown provider throws an LlmError listing the known ones.
 */
export function getModel(ref: string, registry: Map<string, ProviderPreset> = providerRegistry()): ModelInfo {
  const slash = ref.indexOf("/");
  if (slash <= 0 || slash === ref.length - 1) {
    throw new LlmError(
      "invalid_request",
      `Model "${ref}" must be named provider/model-id, e.g. anthropic/claude-sonnet-4-5`,
    );
  }
  const providerId = ref.slice(0, slash);
  const id = ref.slice(slash + 1);
  const provider = findProvider(providerId, registry);
  if (!provider) {
    throw new LlmError(
      "invalid_request",
      `Unknown provider "${providerId}" in "${ref}"; known providers: ${[...registry.keys()].sort().join(", ")}`,
    );
  }
  const known = KNOWN.find((m) => m.provider === provider.id && m.id === id) ?? datedAlias(provider.id, id);
  if (known) return { ...known, api: provider.api };
  return {
    ref: `${provider.id}/${id}`,
    provider: provider.id,
    id,
    api: provider.api,
    name: id,
    contextWindow: DEFAULT_CONTEXT,
    maxOutput: DEFAULT_OUTPUT,
    price: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    reasoning: false,
    images: IMAGE_BY_DEFAULT.has(provider.id),
  };
}

/** "claude-sonnet-4-5-20250929" is the catalog's claude-sonnet-4-5 pinned to a date. */
function datedAlias(provider: string, id: string): ModelInfo | undefined {
  const base = id.replace(/-\d{8}$/, "").replace(/-latest$/, "");
  if (base === id) return undefined;
  const m = KNOWN.find((k) => k.provider === provider && k.id === base);
  return m && { ...m, ref: `${provider}/${id}`, id };
}

/** Claude Code's model aliases (`--model sonnet`, `"model": "opus"` in settings, an agent file's `model`). */
export const CLAUDE_MODEL_ALIASES: Readonly<Record<string, string>> = {
  sonnet: "claude-sonnet-4-6",
  opus: "claude-opus-4-6",
  haiku: "claude-haiku-4-5",
};

/**
 * A model as people name it → "provider/model-id": a name with a provider as it is; Claude Code's
 * aliases (anthropic); an id the catalog knows (`claude-sonnet-4-5`, `gpt-5.2`, dated ids such as
 * `claude-sonnet-4-5-20250929`). Undefined for a bare name the catalog does not know.
 */
export function resolveModelName(name: string): string | undefined {
  const text = name.trim();
  if (/^[^/\s]+\/\S+$/.test(text)) return text;
  const alias = CLAUDE_MODEL_ALIASES[text.toLowerCase()];
  if (alias) return `anthropic/${alias}`;
  const known = KNOWN.find((m) => m.id === text);
  if (known) return known.ref;
  for (const provider of new Set(KNOWN.map((m) => m.provider)))
    if (datedAlias(provider, text)) return `${provider}/${text}`;
  return undefined;
}

export interface ModelFilter {
  provider?: string;
  reasoning?: boolean;
  images?: boolean;
}

/** The catalog's models, optionally filtered. */
export function listModels(filter: ModelFilter = {}): ModelInfo[] {
  return KNOWN.filter(
    (m) =>
      (filter.provider === undefined || m.provider === (findProvider(filter.provider)?.id ?? filter.provider)) &&
      (filter.reasoning === undefined || m.reasoning === filter.reasoning) &&
      (filter.images === undefined || m.images === filter.images),
  ).map((m) => ({ ...m }));
}

/** Whether Anthropic's `thinking: { type: "adaptive" }` applies instead of a token budget. */
export function supportsAdaptiveThinking(model: ModelInfo): boolean {
  return ADAPTIVE.has(`${model.provider}/${model.id.replace(/-\d{8}$/, "")}`);
}
