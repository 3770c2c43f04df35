/** The public LLM API: the client, the catalog, classification, transforms and helpers. */
export { createClient, type Client, type ClientOptions } from "./client.ts";
export { getModel, listModels, supportsAdaptiveThinking, type ModelFilter } from "./catalog.ts";
export { PROVIDERS, findProvider, providerRegistry, type CustomProvider, type ProviderPreset, type ProviderQuirks, type ToolCallIdStyle } from "./providers.ts";
export { classifyError, isOverflowText, silentOverflow, OVERFLOW_PATTERNS } from "./classify.ts";
export { LlmError } from "./errors.ts";
export { DEFAULT_RETRY, formatWait, retryDelayMs, shouldRetry, waitBeyondBudget, withRetry, type RetryPolicy } from "./retry.ts";
export { transformMessages, normalizeToolCallId, NO_RESULT, type TransformTarget } from "./transform.ts";
export { parsePartialJson, accumulate } from "./partial-json.ts";
export { zeroUsage, addUsage, costOf, usageWithCost } from "./usage.ts";
export { MessageBuilder } from "./message-builder.ts";
export { anthropicAdapter } from "./adapters/anthropic.ts";
export { openaiChatAdapter } from "./adapters/openai-chat.ts";
export { openaiResponsesAdapter } from "./adapters/openai-responses.ts";
export { geminiAdapter } from "./adapters/gemini.ts";
export type { Adapter, AdapterContext } from "./adapters/types.ts";
export type * from "./types.ts";
