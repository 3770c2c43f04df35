import { describe, expect, test } from "bun:test";
import { resolveConfig } from "../../lib/agent/index.ts";
import { harness } from "./harness.ts";

describe("004 §2.2 session config", () => {
  test("camelCase and snake_case keys are both accepted", () => {
    const config = resolveConfig({
      max_turns: 3,
      loopDetectionWindow: 4,
      reasoning_effort: "low",
      tool_output_limits: { bash: 1000 },
    });
    expect(config.maxTurns).toBe(3);
    expect(config.loopDetectionWindow).toBe(4);
    expect(config.reasoningEffort).toBe("low");
    expect(config.toolOutputLimits).toEqual({ bash: 1000 });
  });

  test("unknown keys and wrong types are clear errors", () => {
    expect(() => resolveConfig({ max_turn: 3 })).toThrow(/Unknown session config key 'max_turn'/);
    expect(() => resolveConfig({ maxTurns: "3" as any })).toThrow(/non-negative number/);
    expect(() => resolveConfig({ enableLoopDetection: "yes" as any })).toThrow(/true or false/);
    expect(() => resolveConfig({ reasoningEffort: "max" as any })).toThrow(/"low", "medium", "high"/);
    expect(() => resolveConfig({ toolOutputLimits: { bash: -1 } })).toThrow(/positive numbers/);
  });

  test("createSession rejects a missing model and an unknown profile with clear messages", async () => {
    await expect(harness([], { model: undefined as any, store: false })).rejects.toThrow(/needs a model/);
    await expect(harness([], { profile: "nope" })).rejects.toThrow(/Unknown profile 'nope'/);
  });
});
