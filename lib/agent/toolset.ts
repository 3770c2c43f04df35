/**
 * The Toolset: what a session offers the model right now, as one immutable value. One pure
 * function, buildToolset, makes it from the profile (plain data), the tool selection, the
 * session's own tools (custom, subagent, skill, MCP) and the config: the active tools in the order
 * the model sees them, each with its definition (computed once) and its output limits (resolved
 * once), and the sentences' tool names a truncation notice needs (the profile's paging hint, the
 * shell, the spawning subagent tool). The session builds a new Toolset when the model, profile,
 * selection or MCP tools change; the CLI's `--tools` check builds one the same way, so both accept
 * the same selections (tools/selection.ts is the rule).
 */
import type { ToolSpec } from "../llm/types.ts";
import type { ToolLimits } from "../output/policy.ts";
import { planTools, SUBAGENT_TOOL_NAMES } from "../profiles/index.ts";
import { CAPABILITY_LIMITS } from "../profiles/tool-limits.ts";
import type { ProviderProfile } from "../profiles/types.ts";
import { describeCall, kindOf, type CallDescription } from "../../tools/metadata.ts";
import { coreTools, optionalTools, toDefinition, type ActiveTools } from "../../tools/registry.ts";
import { selectTools, type ToolPreset } from "../../tools/selection.ts";
import type { ToolNames } from "../../tools/naming.ts";
import { describeShellTool } from "../../tools/shell-description.ts";
import type { Tool } from "../../tools/types.ts";

/** One active tool: the tool, what the model is shown of it, and how much of its output the model sees. */
export class ToolsetEntry {
  #spec: ToolSpec | undefined;

  constructor(
    readonly tool: Tool,
    /** Absent: the observer's defaults. */
    readonly limits: ToolLimits | undefined,
    /** The shell commands run with, named in a shell tool's definition (undefined: as the tool says). */
    private readonly shell: string | null | undefined,
  ) {}

  /**
   * The definition the model is shown, computed on first use and kept: a custom tool with a bad
   * schema fails the request that would carry it (an error event), not the session's creation.
   */
  get spec(): ToolSpec {
    if (this.#spec) return this.#spec;
    const spec = toDefinition(this.tool);
    this.#spec = this.tool.kind === "shell" && this.shell !== undefined ? describeShellTool(spec, this.shell) : spec;
    return this.#spec;
  }
}

export interface ToolsetInput {
  profile: ProviderProfile;
  /** A preset name, or tool, capability and preset names. */
  selection: ToolPreset | readonly string[];
  /** The caller's own tools: a profile's tool of the same name gives way to them; on under the `default` preset. */
  custom?: readonly Tool[];
  /** The profile's subagent tools, the spawning one first (none when the session may not spawn). */
  subagent?: readonly Tool[];
  /** The profile's skill tool, when there are skills. */
  skill?: readonly Tool[];
  /** Every MCP tool connected now (selectable by name), and the names on under `default` (all, or the search tool and what it loaded). */
  mcp?: { tools: readonly Tool[]; offered: readonly string[] };
  /** Limits from the session config and the observer options, on top of the profile's. */
  limitOverrides?: Readonly<Record<string, ToolLimits>>;
  /** The shell commands run with (null: none); undefined when the environment does not tell. */
  shell?: string | null;
}

export class Toolset implements ActiveTools {
  /** The active tools, in the order the model sees them. */
  readonly entries: readonly ToolsetEntry[];
  readonly names: readonly string[];
  /** Id of the profile the set was built for. */
  readonly profile: string;
  /** How to page a spilled output file, in the profile's own tool and parameter names. */
  readonly pagingHint?: string;
  /** The active shell tool (named for a line longer than the limit). */
  readonly shellToolName?: string;
  /** The active subagent tool that spawns (a truncation notice points at it). */
  readonly subagentToolName?: string;
  /** The active skill tool (the system prompt lists the skills under it). */
  readonly skillToolName?: string;
  /** The profile's main tool for each capability, when active: what a tool's hint may point the model at. */
  readonly toolNames: ToolNames;
  /** Every tool the selection could name, active or not. */
  private readonly catalog: ReadonlyMap<string, Tool>;

  constructor(
    fields: Omit<Toolset, "callable" | "entry" | "known" | "describe" | "catalog" | "specs">,
    catalog: ReadonlyMap<string, Tool>,
  ) {
    this.entries = fields.entries;
    this.names = fields.names;
    this.profile = fields.profile;
    if (fields.pagingHint !== undefined) this.pagingHint = fields.pagingHint;
    if (fields.shellToolName !== undefined) this.shellToolName = fields.shellToolName;
    if (fields.subagentToolName !== undefined) this.subagentToolName = fields.subagentToolName;
    if (fields.skillToolName !== undefined) this.skillToolName = fields.skillToolName;
    this.toolNames = fields.toolNames;
    this.catalog = catalog;
    Object.freeze(this);
  }

  /** The request's tool definitions, in order. */
  get specs(): ToolSpec[] {
    return this.entries.map((e) => e.spec);
  }

  /** The entry a call under `name` runs: the active tool of that name, or one keeping it as an older alias. */
  entry(name: string): ToolsetEntry | undefined {
    return this.entries.find((e) => e.tool.name === name) ?? this.entries.find((e) => e.tool.aliases?.includes(name));
  }

  callable(name: string): Tool | undefined {
    return this.entry(name)?.tool;
  }

  /** A tool the profile or the session knows by this name, active or not (to describe a call as it streams in). */
  known(name: string): Tool | undefined {
    return this.catalog.get(name);
  }

  /** The kind and one-line summary of a call, from the tool's own metadata (for a call as it streams in). */
  describe(name: string, args: unknown): CallDescription {
    return describeCall(this.catalog.get(name), args);
  }
}

/**
 * The Toolset for these inputs; the same inputs give an equal value. A bad selection (an unknown
 * preset or tool, an empty list) throws the selection rule's error.
 */
export function buildToolset(input: ToolsetInput): Toolset {
  const {
    profile,
    custom = [],
    subagent = [],
    skill = [],
    mcp = { tools: [], offered: [] },
    limitOverrides = {},
  } = input;
  // Later tools of a name replace earlier ones in place; a custom tool keeps its name from the profile's.
  const catalog = new Map<string, Tool>();
  for (const tool of [...coreTools, ...planTools, ...optionalTools, ...custom]) catalog.set(tool.name, tool);
  const customNames = new Set(custom.map((t) => t.name));
  for (const tool of profile.ownTools) if (!customNames.has(tool.name)) catalog.set(tool.name, tool);
  for (const tool of [...subagent, ...skill, ...mcp.tools]) catalog.set(tool.name, tool);

  const extras = [...customNames, ...subagent.map((t) => t.name), ...skill.map((t) => t.name), ...mcp.offered];
  const names = selectTools({
    naming: profile,
    selection: input.selection,
    known: [...catalog.keys(), ...extras],
    extras,
    foreign: SUBAGENT_TOOL_NAMES,
  }).filter((n) => catalog.has(n));
  const entries = names.map((name) => {
    const tool = catalog.get(name) as Tool;
    return new ToolsetEntry(tool, limitsOf(tool, profile.toolLimits[name], limitOverrides[name]), input.shell);
  });
  const active = (candidates: readonly string[]) => candidates.find((n) => names.includes(n));
  return new Toolset(
    {
      entries: Object.freeze(entries),
      names: Object.freeze(names),
      profile: profile.id,
      pagingHint: profile.pagingHint,
      shellToolName: active(profile.capabilityTools.bash),
      // The first subagent tool of each profile is the spawning one (spawn_agent, Agent, invoke_agent).
      subagentToolName: subagent.length > 0 ? active([subagent[0].name]) : undefined,
      skillToolName: active(skill.map((t) => t.name)),
      toolNames: hintNames(profile, names),
    },
    catalog,
  );
}

/** For each capability, the profile's main tool for it (its first: Bash, not TaskOutput) when that tool is active. */
function hintNames(profile: ProviderProfile, active: readonly string[]): ToolNames {
  const entries = Object.entries(profile.capabilityTools).flatMap(([capability, tools]) =>
    tools.length > 0 && active.includes(tools[0]) ? [[capability, tools[0]]] : [],
  );
  return Object.freeze(Object.fromEntries(entries));
}

/** The profile's limits for the tool with the config's on top; a subagent's answer is cut by its kind when the profile names no limits. */
function limitsOf(
  tool: Tool,
  profiled: ToolLimits | undefined,
  override: ToolLimits | undefined,
): ToolLimits | undefined {
  const table = override ? { ...profiled, ...override } : profiled;
  if (table) return Object.freeze({ ...table });
  return kindOf(tool) === "agent" ? CAPABILITY_LIMITS.agent : undefined;
}
