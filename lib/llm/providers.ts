/**
 * Provider presets: which wire API a provider speaks, where it lives, which variable holds its key,
 * and the quirks the message transforms and adapters must respect.
 */
import type { WireApi } from "./types.ts";

/** How tool-call ids must look for a provider (docs/conformance.md: 003 §4.3). */
export type ToolCallIdStyle = "anthropic" | "openai-chat" | "openai-responses" | "mistral" | "free";

export interface ProviderQuirks {
  toolCallIds: ToolCallIdStyle;
  /** Whether the system prompt may be sent with the `developer` role (OpenAI reasoning models). */
  developerRole: boolean;
  /** Delta fields that carry reasoning text on Chat Completions servers, in lookup order. */
  reasoningFields: string[];
  /** Whether the server takes `reasoning_effort`. */
  reasoningEffort: boolean;
}

export interface ProviderPreset {
  id: string;
  api: WireApi;
  baseUrl: string;
  /** Variables holding the key, in lookup order; empty for local servers that need none. */
  apiKeyEnv: string[];
  /** Variable overriding the base URL. */
  baseUrlEnv?: string;
  /** Whether a missing key is an error before any request. */
  needsKey: boolean;
  /** Whether the server runs on this machine (catalog defaults: no prices). */
  local?: boolean;
  quirks: ProviderQuirks;
}

/** A user-declared OpenAI-compatible (or other) provider. */
export interface CustomProvider {
  id: string;
  baseUrl: string;
  apiKeyEnv?: string;
  api?: WireApi;
}

const CHAT_REASONING = ["reasoning_content", "reasoning", "reasoning_text"];

const chatQuirks = (overrides: Partial<ProviderQuirks> = {}): ProviderQuirks => ({
  toolCallIds: "openai-chat",
  developerRole: false,
  reasoningFields: CHAT_REASONING,
  reasoningEffort: false,
  ...overrides,
});

function chat(
  id: string,
  baseUrl: string,
  keyEnv: string | null,
  extra: { local?: boolean; quirks?: Partial<ProviderQuirks> } = {},
): ProviderPreset {
  return {
    id,
    api: "openai-chat",
    baseUrl,
    apiKeyEnv: keyEnv ? [keyEnv] : [],
    needsKey: keyEnv !== null,
    ...extra,
    quirks: chatQuirks(extra.quirks),
  };
}

const PRESETS: ProviderPreset[] = [
  {
    id: "anthropic",
    api: "anthropic-messages",
    baseUrl: "https://api.anthropic.com",
    apiKeyEnv: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"],
    baseUrlEnv: "ANTHROPIC_BASE_URL",
    needsKey: true,
    quirks: { toolCallIds: "anthropic", developerRole: false, reasoningFields: [], reasoningEffort: true },
  },
  {
    id: "openai",
    api: "openai-responses",
    baseUrl: "https://api.openai.com/v1",
    apiKeyEnv: ["OPENAI_API_KEY"],
    baseUrlEnv: "OPENAI_BASE_URL",
    needsKey: true,
    quirks: {
      toolCallIds: "openai-responses",
      developerRole: true,
      reasoningFields: CHAT_REASONING,
      reasoningEffort: true,
    },
  },
  {
    id: "gemini",
    api: "gemini",
    baseUrl: "https://generativelanguage.googleapis.com",
    apiKeyEnv: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    baseUrlEnv: "GOOGLE_GEMINI_BASE_URL",
    needsKey: true,
    quirks: { toolCallIds: "free", developerRole: false, reasoningFields: [], reasoningEffort: true },
  },
  chat("ollama", "http://localhost:11434/v1", null, { local: true }),
  chat("lmstudio", "http://localhost:1234/v1", null, { local: true }),
  chat("vllm", "http://localhost:8000/v1", null, { local: true }),
  chat("openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", { quirks: { reasoningEffort: true } }),
  chat("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY", { quirks: { reasoningEffort: true } }),
  chat("deepseek", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY"),
  chat("xai", "https://api.x.ai/v1", "XAI_API_KEY", { quirks: { reasoningEffort: true } }),
  chat("mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY", { quirks: { toolCallIds: "mistral" } }),
  chat("together", "https://api.together.xyz/v1", "TOGETHER_API_KEY"),
  chat("cerebras", "https://api.cerebras.ai/v1", "CEREBRAS_API_KEY", { quirks: { reasoningEffort: true } }),
];

/** Other names users reach for. */
const ALIASES: Record<string, string> = { google: "gemini" };

export const PROVIDERS: readonly ProviderPreset[] = PRESETS;

/** A registry of the presets plus custom providers; custom ids shadow presets of the same name. */
export function providerRegistry(custom: CustomProvider[] = []): Map<string, ProviderPreset> {
  const map = new Map<string, ProviderPreset>(PRESETS.map((p) => [p.id, p]));
  for (const c of custom) map.set(c.id, fromCustom(c));
  return map;
}

/** Every variable a key is read from: the presets' and the custom providers' `apiKeyEnv`. */
export function keyVariables(custom: CustomProvider[] = []): string[] {
  return [...providerRegistry(custom).values()].flatMap((p) => p.apiKeyEnv);
}

export function findProvider(
  id: string,
  registry: Map<string, ProviderPreset> = providerRegistry(),
): ProviderPreset | undefined {
  return registry.get(id) ?? registry.get(ALIASES[id] ?? "");
}

function fromCustom(c: CustomProvider): ProviderPreset {
  const api = c.api ?? "openai-chat";
  const base = PRESETS.find((p) => p.api === api && p.needsKey) ?? PRESETS[0];
  return {
    id: c.id,
    api,
    baseUrl: c.baseUrl,
    apiKeyEnv: c.apiKeyEnv ? [c.apiKeyEnv] : [],
    needsKey: c.apiKeyEnv !== undefined,
    quirks: api === "openai-chat" ? chatQuirks() : base.quirks,
  };
}

/** The quirks adapters apply for a provider id (Chat Completions defaults for custom servers). */
export function quirksFor(providerId: string): ProviderQuirks {
  return findProvider(providerId)?.quirks ?? chatQuirks();
}
