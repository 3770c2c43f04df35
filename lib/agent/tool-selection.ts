/**
 * The CLI's check of a tool selection before any session exists: the Toolset a session for these
 * options would build (lib/agent/toolset.ts), so `gong --tools` accepts exactly what createSession
 * accepts.
 */
import type { ExecutionEnvironment } from "../env/types.ts";
import type { ProfileFactory } from "../profiles/types.ts";
import type { ToolPreset } from "../../tools/selection.ts";
import type { Tool } from "../../tools/types.ts";
import { buildToolset } from "./toolset.ts";

export interface SelectionCheck {
  /** The session's profile (resolve a choice with factoryFor first: an unknown profile is its own error). */
  profile: ProfileFactory;
  model: string;
  selection: ToolPreset | readonly string[];
  env: ExecutionEnvironment;
  /** The session will have skills (so the profile's skill tool exists). */
  skills?: boolean;
}

/** The tools a session for these options would activate (throws the session's own error on a bad selection). */
export function toolsForSelection({ profile: factory, model, selection, env, skills = false }: SelectionCheck): Tool[] {
  const profile = factory({ model });
  // The tools' definitions only: no manager runs them here.
  const subagent = profile.subagentTools(undefined as never, { parentModel: model });
  const toolset = buildToolset({
    profile,
    selection,
    subagent,
    skill: skills ? [profile.skillTool([])] : [],
    shell: env.facts?.()?.shell,
  });
  // An MCP tool named before its server connects is not known yet: nothing to check about it.
  return toolset.entries.map((e) => e.tool);
}
