/** Runs a registry tool the way the agent does: through the observer's capture, then the framework cut. */
import { createObserver, type Observed, type ObserverOptions } from "../../lib/output/policy.ts";
import { CAPABILITY_LIMITS } from "../../lib/profiles/tool-limits.ts";
import type { ExecuteOptions, ToolRegistry } from "../../tools/registry.ts";
import type { ToolResponse } from "../../lib/envelope.ts";

/** The default profile's limits for the core tools (docs/conformance.md: 004 §5.2/§5.3). */
export const CORE_LIMITS = {
  bash: CAPABILITY_LIMITS.bash,
  read: CAPABILITY_LIMITS.read,
  grep: CAPABILITY_LIMITS.grep,
  find: CAPABILITY_LIMITS.find,
  ls: CAPABILITY_LIMITS.ls,
};

export function coreObserver(root: string, extra: Partial<ObserverOptions> = {}) {
  return createObserver({ root, env: {}, perTool: CORE_LIMITS, ...extra });
}

export async function runObserved(
  registry: ToolRegistry,
  observer: ReturnType<typeof createObserver>,
  name: string,
  args: unknown,
  extra: Omit<ExecuteOptions, "output"> = {},
): Promise<Observed & { response: ToolResponse }> {
  const capture = observer.capture(name);
  const response = await registry.execute(name, args, { ...extra, output: capture });
  const observed = await observer.observe(name, response, { direction: registry.get(name)?.truncation, capture });
  return { response, ...observed };
}
