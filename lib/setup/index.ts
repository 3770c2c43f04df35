/**
 * What users bring from other agents, found once per run: Agent Skills, custom agents and custom
 * slash commands, with one line per file that could not be used.
 */
import { discoverAgents, type AgentDefinition } from "./agents.ts";
import { discoverCommands, type CustomCommand } from "./commands.ts";
import type { PlaceOptions } from "./places.ts";
import { discoverSkills, type Skill } from "./skills.ts";

export interface UserSetup {
  skills: Skill[];
  agents: AgentDefinition[];
  commands: CustomCommand[];
  /** One line per file left out: the file and what was wrong. */
  problems: string[];
}

/** `builtInCommands`: names a command file may not take. */
export async function discoverSetup(
  options: PlaceOptions,
  builtInCommands: readonly string[] = [],
): Promise<UserSetup> {
  const [skills, agents, commands] = await Promise.all([
    discoverSkills(options),
    discoverAgents(options),
    discoverCommands(options, builtInCommands),
  ]);
  return {
    skills: skills.items,
    agents: agents.items,
    commands: commands.items,
    problems: [...skills.problems, ...agents.problems, ...commands.problems],
  };
}

export { discoverAgents, discoverCommands, discoverSkills };
export type { AgentDefinition, CustomCommand, Skill };
export { expandCommand, matchCommand, environmentShell } from "./commands.ts";
