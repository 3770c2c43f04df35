/**
 * A sentence that points the model at another tool ("use ls or find to locate it") names that tool
 * as the profile in force does. Each call carries the profile's tool for each capability
 * (`ToolRunContext.toolNames`, from the session's Toolset; the core tools' own names without one),
 * and these build the words from it: under `anthropic` the sentence says Glob, under `openai`
 * list_dir, and a capability with no tool there drops out of the sentence.
 */
import { TOOL_PRESETS, type Capability } from "./selection.ts";

/** The tool a sentence names for each capability; a capability missing here has no tool to point at. */
export type ToolNames = Partial<Record<Capability, string>>;

/** The core tools' names: each capability is the tool of that name. */
export const CORE_TOOL_NAMES: ToolNames = Object.fromEntries(TOOL_PRESETS.default.map((c) => [c, c]));

/** The core tools' names, for the capabilities whose core tool is among `active`. */
export function activeCoreToolNames(active: readonly string[]): ToolNames {
  return Object.fromEntries(TOOL_PRESETS.default.filter((c) => active.includes(c)).map((c) => [c, c]));
}

/** The tool for the first of `capabilities` that has one ("ls", else "find"…), or undefined. */
export function toolFor(names: ToolNames | undefined, ...capabilities: Capability[]): string | undefined {
  const table = names ?? CORE_TOOL_NAMES;
  for (const c of capabilities) if (table[c] !== undefined) return table[c];
  return undefined;
}

/** The tools for `capabilities`, repeats dropped, as "ls or find" / "list_dir" / "" when there are none. */
export function toolChoice(names: ToolNames | undefined, ...capabilities: Capability[]): string {
  const table = names ?? CORE_TOOL_NAMES;
  const found = [...new Set(capabilities.flatMap((c) => (table[c] === undefined ? [] : [table[c]])))];
  return found.length <= 1 ? (found[0] ?? "") : `${found.slice(0, -1).join(", ")} or ${found[found.length - 1]}`;
}

/** `words` with the tool put in ("use X to locate it"), or "" when the profile has no such tool. */
export function naming(tool: string | undefined, words: (tool: string) => string): string {
  return tool ? words(tool) : "";
}
