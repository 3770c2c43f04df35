/**
 * The session's use of the one selection rule (tools/selection.ts): its profile's names, its
 * extras, other dialects' subagent tools left out. `toolsForSelection` applies the same rule before
 * any session exists, so `gong --tools` accepts exactly what createSession accepts.
 */
import type { ExecutionEnvironment } from "../env/types.ts";
import type { ProfileFactory, ProviderProfile } from "../profiles/types.ts";
import { createToolRegistry, type ToolPreset, type ToolRegistry } from "../../tools/registry.ts";
import { selectTools } from "../../tools/selection.ts";
import type { Tool } from "../../tools/types.ts";
import { skillToolName } from "../setup/skills.ts";
import { SUBAGENT_TOOL_NAMES, subagentDialect, subagentTools } from "./subagents/tools.ts";

/** The names a session activates for `selection` under `profile`; `extras` are its custom, subagent, skill and MCP tools. */
export function sessionToolNames(profile: ProviderProfile, selection: ToolPreset | readonly string[], registry: ToolRegistry, extras: readonly string[]): string[] {
  const known = [...registry.registered(), ...extras];
  return selectTools({ naming: profile, selection, known, extras, foreign: SUBAGENT_TOOL_NAMES });
}

export interface SelectionCheck {
  /** The session's profile (resolve a choice with factoryFor first: an unknown profile is its own error). */
  profile: ProfileFactory;
  model: string;
  selection: ToolPreset | readonly string[];
  cwd: string;
  env: ExecutionEnvironment;
  /** The session will have skills (so the dialect's skill tool exists). */
  skills?: boolean;
}

/** The tools a session for these options would activate (throws the session's own error on a bad selection). */
export function toolsForSelection({ profile: factory, model, selection, cwd, env, skills = false }: SelectionCheck): Tool[] {
  const registry = createToolRegistry({ cwd, env });
  const profile = factory({ model, registry });
  for (const tool of profile.ownTools) registry.register(tool, { activate: false });
  const dialect = subagentTools(subagentDialect(profile.id), undefined as never, { parentModel: model });
  const extras = [...dialect.map((t) => t.name), ...(skills ? [skillToolName(profile.id)] : [])];
  const byName = new Map(dialect.map((t) => [t.name, t]));
  // An MCP tool named before its server connects is not known yet: nothing to check about it.
  return sessionToolNames(profile, selection, registry, extras).flatMap((n) => registry.get(n) ?? byName.get(n) ?? []);
}
