/** Usage arithmetic and cost from the catalog's prices (USD per million tokens). */
import type { ModelInfo, Usage } from "./types.ts";

export function zeroUsage(): Usage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, cost: 0 };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    reasoning: a.reasoning + b.reasoning,
    cost: a.cost + b.cost,
    ...(a.webSearches || b.webSearches ? { webSearches: (a.webSearches ?? 0) + (b.webSearches ?? 0) } : {}),
  };
}

/** Cost in USD of the token counts under the model's prices. */
export function costOf(usage: Omit<Usage, "cost"> & { cost?: number }, model: ModelInfo): number {
  const p = model.price;
  return (
    (usage.input * p.input +
      usage.output * p.output +
      usage.cacheRead * p.cacheRead +
      usage.cacheWrite * p.cacheWrite) /
    1_000_000
  );
}

/** Usage from raw counts, with the cost filled in. */
export function usageWithCost(counts: Partial<Omit<Usage, "cost">>, model: ModelInfo): Usage {
  const u = { ...zeroUsage(), ...counts };
  return { ...u, cost: costOf(u, model) };
}
