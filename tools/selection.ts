/**
 * The one rule for which tools are active. The registry (the tools kit's presets), sessions
 * (createSession, setTools, setProfile, RPC `set_tools`, ACP) and the CLI's `--tools` check all
 * call selectTools, so a selection one of them accepts the others accept too.
 */

/**
 * The capability presets (docs/conformance.md: 003 §10), written in capability names each profile
 * maps to its own tools.
 */
export const TOOL_PRESETS = {
  default: ["read", "write", "edit", "bash", "grep", "find", "ls"],
  minimal: ["read", "write", "edit", "bash"],
  readonly: ["read", "grep", "find", "ls"],
} as const satisfies Record<string, readonly string[]>;
export type ToolPreset = keyof typeof TOOL_PRESETS;
/** The capabilities the presets are written in: each profile names its tools for them. */
export type Capability = (typeof TOOL_PRESETS.default)[number];

export const isToolPreset = (name: string): name is ToolPreset => Object.hasOwn(TOOL_PRESETS, name);

/** A user's "preset" or "a,b,c": a preset name, or the list of tool names. */
export function parseToolList(text: string): ToolPreset | string[] {
  const names = text
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  return names.length === 1 && isToolPreset(names[0]) ? names[0] : names;
}

/** Tools of MCP servers may connect after the selection is made: a listed name with this prefix waits for its server. */
export const LATE_TOOL_PREFIX = "mcp__";

/** How a profile names its tools: the tools for each capability, and the extras its `default` preset adds. */
export interface ToolNaming {
  readonly capabilityTools: Readonly<Record<string, readonly string[]>>;
  readonly extraTools: readonly string[];
}

/** The core tools' own names: each capability is the tool of that name (the default profile, the bare registry). */
export const CORE_NAMING: ToolNaming = {
  capabilityTools: Object.fromEntries(TOOL_PRESETS.default.map((c) => [c, [c]])),
  extraTools: [],
};

export interface ToolSelectionInput {
  naming: ToolNaming;
  /** A preset name, or tool, capability and preset names. */
  selection: ToolPreset | readonly string[];
  /** Every tool that could be active: registered tools and the extras. */
  known: readonly string[];
  /** Tools on under the `default` preset (alone or in a list) and otherwise only when listed: custom, subagent, skill and MCP tools. */
  extras?: readonly string[];
  /** Names left out quietly when listed but not known here (another profile's subagent tools). */
  foreign?: ReadonlySet<string>;
}

/**
 * The active tool names, in order. A preset's capabilities become the profile's own tools (the
 * `default` preset adds its extra tools and the caller's extras); capability names in a list are
 * translated the same way; other names stay as given, MCP tools whose server has not connected yet
 * included (the registry activates them once they exist). An unknown preset, an empty selection or
 * a name no tool has is an error naming what exists.
 */
export function selectTools({
  naming,
  selection,
  known,
  extras = [],
  foreign = new Set(),
}: ToolSelectionInput): string[] {
  const has = new Set(known);
  const caps = naming.capabilityTools;
  const names: string[] = [];
  let everything = false;
  const expand = (preset: ToolPreset) => {
    for (const c of TOOL_PRESETS[preset]) names.push(...(caps[c] ?? []).filter((n) => has.has(n)));
    if (preset === "default") {
      names.push(...naming.extraTools.filter((n) => has.has(n)));
      everything = true;
    }
  };
  if (typeof selection === "string") {
    if (!isToolPreset(selection))
      throw new Error(`Unknown tool preset '${selection}'. Presets: ${Object.keys(TOOL_PRESETS).join(", ")}.`);
    expand(selection);
  } else if (Array.isArray(selection)) {
    for (const n of selection) {
      if (typeof n !== "string") throw new Error("Active tools must be a preset name or a list of tool names.");
      // A preset's name in a list stands for its tools, unless a tool has that name.
      if (isToolPreset(n) && !has.has(n)) expand(n);
      else if (Object.hasOwn(caps, n)) names.push(...caps[n].filter((m) => has.has(m)));
      else if (!foreign.has(n) || has.has(n)) names.push(n);
    }
    if (names.length === 0) throw new Error("The active tool list is empty: activate at least one tool.");
  } else throw new Error("Active tools must be a preset name or a list of tool names.");
  if (everything) names.push(...extras.filter((n) => has.has(n)));
  const unknown = [...new Set(names.filter((n) => !has.has(n) && !n.startsWith(LATE_TOOL_PREFIX)))];
  if (unknown.length > 0) {
    throw new Error(
      `Unknown tool${unknown.length > 1 ? "s" : ""} ${unknown.map((n) => `'${n}'`).join(", ")}. Available tools: ${[...has].join(", ")}.`,
    );
  }
  return [...new Set(names)];
}
