import { describe, expect, test } from "bun:test";
import { getModel, listModels, supportsAdaptiveThinking } from "../../lib/llm/catalog.ts";
import { LlmError } from "../../lib/llm/errors.ts";
import { providerRegistry } from "../../lib/llm/providers.ts";
import { costOf } from "../../lib/llm/usage.ts";

describe("model catalog", () => {
  test("known models carry window, output, prices and capabilities", () => {
    const m = getModel("anthropic/claude-sonnet-4-5");
    expect(m).toMatchObject({
      ref: "anthropic/claude-sonnet-4-5",
      provider: "anthropic",
      api: "anthropic-messages",
      contextWindow: 200_000,
      reasoning: true,
      images: true,
    });
    expect(m.price).toEqual({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
    expect(getModel("openai/gpt-5").api).toBe("openai-responses");
    expect(getModel("gemini/gemini-2.5-pro").contextWindow).toBe(1_048_576);
    expect(getModel("openai/gpt-4o").reasoning).toBe(false);
  });

  test("every model the catalog promises is there", () => {
    const refs = listModels().map((m) => m.ref);
    for (const ref of [
      "anthropic/claude-opus-4-5",
      "anthropic/claude-sonnet-4-5",
      "anthropic/claude-haiku-4-5",
      "anthropic/claude-opus-4-1",
      "anthropic/claude-sonnet-4",
      "openai/gpt-5.2",
      "openai/gpt-5.1",
      "openai/gpt-5",
      "openai/gpt-5-mini",
      "openai/gpt-5-nano",
      "openai/gpt-4.1",
      "openai/gpt-4o",
      "openai/o3",
      "openai/o4-mini",
      "openai/gpt-5.2-codex",
      "gemini/gemini-2.5-pro",
      "gemini/gemini-2.5-flash",
      "gemini/gemini-2.5-flash-lite",
      "gemini/gemini-3-pro-preview",
      "gemini/gemini-3-flash-preview",
    ])
      expect(refs).toContain(ref);
    expect(listModels({ provider: "deepseek" }).every((m) => m.api === "openai-chat")).toBe(true);
  });

  test("an unknown id works with defaults and the provider's API", () => {
    expect(getModel("ollama/qwen3-coder:30b")).toMatchObject({
      ref: "ollama/qwen3-coder:30b",
      api: "openai-chat",
      contextWindow: 128_000,
      maxOutput: 8192,
      price: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    });
    expect(getModel("anthropic/claude-future-9").api).toBe("anthropic-messages");
  });

  test("google is an alias of gemini; dated ids resolve to their model", () => {
    expect(getModel("google/gemini-2.5-flash").ref).toBe("gemini/gemini-2.5-flash");
    expect(getModel("anthropic/claude-haiku-4-5-20251001")).toMatchObject({
      id: "claude-haiku-4-5-20251001",
      price: { input: 1 },
    });
  });

  test("an unknown provider names the known ones", () => {
    expect(() => getModel("nosuch/model")).toThrow(LlmError);
    expect(() => getModel("nosuch/model")).toThrow(/Unknown provider "nosuch".*anthropic.*ollama/);
    expect(() => getModel("claude-sonnet-4-5")).toThrow(/provider\/model-id/);
  });

  test("custom providers resolve through the registry", () => {
    const registry = providerRegistry([{ id: "corp", baseUrl: "http://llm.corp/v1", apiKeyEnv: "CORP_KEY" }]);
    expect(getModel("corp/big-model", registry)).toMatchObject({ provider: "corp", api: "openai-chat" });
  });

  test("cost follows the catalog prices", () => {
    const m = getModel("anthropic/claude-opus-4-5");
    expect(
      costOf({ input: 1_000_000, output: 1_000_000, cacheRead: 1_000_000, cacheWrite: 1_000_000, reasoning: 0 }, m),
    ).toBeCloseTo(5 + 25 + 0.5 + 6.25, 6);
  });

  test("adaptive thinking is a catalog flag", () => {
    expect(supportsAdaptiveThinking(getModel("anthropic/claude-opus-4-6"))).toBe(true);
    expect(supportsAdaptiveThinking(getModel("anthropic/claude-sonnet-4-5"))).toBe(false);
  });
});
