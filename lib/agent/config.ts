/**
 * Session configuration (docs/conformance.md: 004 §2.2). Keys are camelCase; the snake_case names
 * of the spec are accepted too (`max_turns` → `maxTurns`), so a settings file written after the
 * spec just works.
 */
import { REASONING_EFFORTS, type ReasoningEffort } from "../llm/types.ts";

export interface SessionConfig {
  /** Model calls across the whole session; 0 = unlimited. */
  maxTurns: number;
  /** USD an input may spend: no model call starts once its cost reached this; 0 = unlimited. */
  maxCostUsd: number;
  /** Tool rounds (model answers that carried tool calls) per user input. */
  maxToolRoundsPerInput: number;
  /** Times a text answer cut at the output limit (or a paused server-side turn) is continued before the run stops unfinished. */
  maxOutputContinuations: number;
  /** Command timeout when the model gives none (used only by profiles that ask the environment for it). */
  defaultCommandTimeoutMs: number;
  /** Upper bound for any command timeout. */
  maxCommandTimeoutMs: number;
  reasoningEffort: ReasoningEffort | null;
  /**
   * Characters of a tool's output the model sees, by tool name (docs/conformance.md: 004 §5.2);
   * over the profile's limits.
   */
  toolOutputLimits: Record<string, number>;
  /**
   * Lines of a tool's output the model sees, by tool name (docs/conformance.md: 004 §5.3), cut
   * after the characters.
   */
  toolLineLimits: Record<string, number>;
  enableLoopDetection: boolean;
  /** How many recent tool calls the loop detector looks at. */
  loopDetectionWindow: number;
  /** How deep child agents may nest: 1 lets a session spawn children that cannot spawn; 0 turns subagents off. */
  maxSubagentDepth: number;
  /** Child agents of one session running at once. */
  maxConcurrentSubagents: number;
  /** A hook call slower than this is skipped (hook_error event) and the agent goes on. */
  hookTimeoutMs: number;
  /** Fraction of the context window past which a `warning` event is sent. */
  contextWarningRatio: number;
  /**
   * Compact automatically when the context leaves less than the reserve
   * (docs/conformance.md: 003 §6).
   */
  autoCompact: boolean;
  /** Tokens kept free for the next request and its answer. */
  compactReserveTokens: number;
  /** Tokens of recent messages a compaction keeps verbatim. */
  compactKeepRecentTokens: number;
  /** Defer MCP tools behind a search tool when their definitions pass mcpToolSearchPercent of the context window. */
  mcpToolSearch: boolean;
  /** The share of the context window (percent) MCP tool definitions may take before they are deferred; 0 defers always. */
  mcpToolSearchPercent: number;
  /** Offer the provider's own web search to the model (Anthropic web_search, OpenAI web_search, Gemini googleSearch). */
  webSearch: boolean;
  /**
   * A JSON Schema the final answer must match: sent with every request as the provider's structured
   * output (Anthropic output_config.format, OpenAI text.format / response_format, Gemini's response
   * schema where the request has no tools); null for a free answer.
   */
  outputSchema: Record<string, unknown> | null;
}

export const DEFAULT_CONFIG: Readonly<SessionConfig> = Object.freeze({
  maxTurns: 0,
  maxCostUsd: 0,
  maxToolRoundsPerInput: 200,
  maxOutputContinuations: 3,
  defaultCommandTimeoutMs: 10_000,
  maxCommandTimeoutMs: 600_000,
  reasoningEffort: null,
  toolOutputLimits: {},
  toolLineLimits: {},
  enableLoopDetection: true,
  loopDetectionWindow: 10,
  maxSubagentDepth: 1,
  maxConcurrentSubagents: 4,
  hookTimeoutMs: 5_000,
  contextWarningRatio: 0.8,
  autoCompact: true,
  compactReserveTokens: 16_384,
  compactKeepRecentTokens: 20_000,
  mcpToolSearch: true,
  mcpToolSearchPercent: 10,
  webSearch: false,
  outputSchema: null,
});

export type SessionConfigInput = Partial<SessionConfig> & Record<string, unknown>;

const EFFORTS: ReadonlySet<string> = new Set(REASONING_EFFORTS);

const camel = (key: string) => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** Defaults + the given keys (camelCase or snake_case); a wrong-typed or unknown key is a clear error. */
export function resolveConfig(input: SessionConfigInput = {}): SessionConfig {
  const config: SessionConfig = { ...DEFAULT_CONFIG, toolOutputLimits: {}, toolLineLimits: {} };
  for (const [rawKey, value] of Object.entries(input)) {
    if (value === undefined) continue;
    const key = camel(rawKey) as keyof SessionConfig;
    if (!(key in DEFAULT_CONFIG))
      throw new Error(`Unknown session config key '${rawKey}'. Known keys: ${Object.keys(DEFAULT_CONFIG).join(", ")}.`);
    (config as unknown as Record<string, unknown>)[key] = checkValue(key, rawKey, value);
  }
  return config;
}

/** Validates one value; returns it unchanged. */
export function checkValue(key: keyof SessionConfig, rawKey: string, value: unknown): unknown {
  const expected = DEFAULT_CONFIG[key];
  if (key === "outputSchema") {
    if (value === null || (typeof value === "object" && !Array.isArray(value))) return value;
    throw new Error(`Config '${rawKey}' must be a JSON Schema object or null, got ${JSON.stringify(value)}.`);
  }
  if (key === "reasoningEffort") {
    if (value === null || EFFORTS.has(value as string)) return value;
    throw new Error(
      `Config '${rawKey}' must be ${REASONING_EFFORTS.map((e) => `"${e}"`).join(", ")} or null, got ${JSON.stringify(value)}.`,
    );
  }
  if (typeof expected === "number") {
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new Error(`Config '${rawKey}' must be a non-negative number, got ${JSON.stringify(value)}.`);
    }
    return value;
  }
  if (typeof expected === "boolean") {
    if (typeof value !== "boolean")
      throw new Error(`Config '${rawKey}' must be true or false, got ${JSON.stringify(value)}.`);
    return value;
  }
  const isLimitMap =
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === "number" && v > 0);
  if (!isLimitMap) throw new Error(`Config '${rawKey}' must map tool names to positive numbers.`);
  return { ...(value as Record<string, number>) };
}

export function checkReasoningEffort(value: unknown): ReasoningEffort | null {
  return checkValue("reasoningEffort", "reasoningEffort", value) as ReasoningEffort | null;
}
