/**
 * Custom agents in Claude Code's format: markdown files under `.claude/agents/` or `.gong/agents/`
 * (subfolders too, and the user's own), frontmatter `name`, `description`, `tools`,
 * `disallowedTools`, `model` (`sonnet`, `opus`, `haiku`, `inherit` or a model id), `maxTurns`; the
 * body is the agent's system prompt. Keys gong has no use for (`color`, `permissionMode`, …) are
 * ignored. Each becomes a subagent type the model can choose with its profile's subagent tool.
 */
import type { Capability } from "../../tools/selection.ts";
import { CLAUDE_MODEL_ALIASES } from "../llm/catalog.ts";
import { nameList, readFrontmatterFile } from "./frontmatter.ts";
import { discover, filesUnder, type Found, type PlaceOptions, type Scope } from "./places.ts";

export interface AgentDefinition {
  name: string;
  description: string;
  /** The body: the agent's system prompt. */
  prompt: string;
  /** Tool names as written (Claude Code's, gong's, MCP names); absent: the parent's tools. */
  tools?: string[];
  disallowedTools?: string[];
  /** `sonnet`, `opus`, `haiku`, `inherit`, or a model id. */
  model?: string;
  maxTurns?: number;
  file: string;
  scope: Scope;
  /** The plugin or extension it came with (`superpowers@superpowers-dev`), if any. */
  plugin?: string;
}

const AGENT_NAME = /^[A-Za-z0-9][\w.-]{0,63}$/;

/** The custom agents of a project and its user, sorted by name (a project's wins over the user's of the same name). */
export function discoverAgents(options: PlaceOptions): Promise<Found<AgentDefinition>> {
  return discover(
    "agents",
    options,
    "agent",
    (place) => filesUnder(place.dir, [".md"]),
    (file, place) => readAgent(file, place.scope),
  );
}

/** An agent, or what is wrong with its file; `fallbackName` stands in for a missing `name` (a plugin's agents go by their file's name). */
export async function readAgent(file: string, scope: Scope, fallbackName?: string): Promise<AgentDefinition | string> {
  const parsed = await readFrontmatterFile(file);
  if (typeof parsed === "string") return parsed;
  const { body } = parsed;
  const data: Record<string, unknown> = { ...parsed.data, name: parsed.data.name || fallbackName };
  if (typeof data.name !== "string" || !data.name) return "its frontmatter has no 'name'";
  if (!AGENT_NAME.test(data.name))
    return `name '${data.name.slice(0, 80)}' is not a word of letters, digits, '-', '_' or '.' (at most 64)`;
  if (typeof data.description !== "string" || !data.description.trim()) return "its frontmatter has no 'description'";
  const agent: AgentDefinition = {
    name: data.name,
    description: data.description.trim().replace(/\s+/g, " "),
    prompt: body.trim(),
    file,
    scope,
  };
  const tools = nameList(data.tools);
  if (tools) agent.tools = tools;
  const disallowed = nameList(data.disallowedTools);
  if (disallowed) agent.disallowedTools = disallowed;
  if (data.model !== undefined && data.model !== null && data.model !== "") {
    if (typeof data.model !== "string")
      return `'model' must be a word such as sonnet, opus, haiku, inherit or a model id`;
    agent.model = data.model.trim();
  }
  if (data.maxTurns !== undefined) {
    if (typeof data.maxTurns !== "number" || !Number.isInteger(data.maxTurns) || data.maxTurns < 1)
      return `'maxTurns' must be a whole number of at least 1, not ${JSON.stringify(data.maxTurns)}`;
    agent.maxTurns = data.maxTurns;
  }
  return agent;
}

/**
 * Claude Code's tool names (current and retired) as gong's capabilities, which every profile turns
 * into its own tools. `LS` was retired for Glob and Bash, `MultiEdit` for Edit. The helpers of
 * background shells (`BashOutput`, `KillShell`, `TaskOutput`, `TaskStop`) map to nothing: only
 * `Bash` gives an agent the shell.
 */
const CLAUDE_TOOLS: Record<string, readonly Capability[]> = {
  Read: ["read"],
  NotebookRead: ["read"],
  Write: ["write"],
  Edit: ["edit"],
  MultiEdit: ["edit"],
  NotebookEdit: ["edit"],
  Bash: ["bash"],
  BashOutput: [],
  KillShell: [],
  TaskOutput: [],
  TaskStop: [],
  Grep: ["grep"],
  Glob: ["find"],
  // The listing tool where a profile has one, and the file finder that replaced it.
  LS: ["ls", "find"],
};

/**
 * An agent's tool selection for its child session. Claude Code's names and the parent profile's own
 * names become capabilities; other names (MCP tools, custom tools, a plan tool) stay when `known`
 * says the session has them; `Bash(git *)`-style rules count as their tool. Without `tools` the
 * agent gets `inherited` (the parent's active tools as capabilities and names); `disallowedTools`
 * are taken away either way.
 */
export function agentToolSelection(
  agent: AgentDefinition,
  capabilityOf: (name: string) => Capability | undefined,
  known: (name: string) => boolean,
  inherited: readonly string[],
): string[] {
  const resolve = (name: string, granting: boolean): readonly string[] => {
    const bare = name.replace(/\(.*\)$/, "").trim();
    // Denying the retired LS takes away the listing tool, not the file finder it grants.
    if (bare === "LS" && !granting) return ["ls"];
    if (Object.hasOwn(CLAUDE_TOOLS, bare)) return CLAUDE_TOOLS[bare];
    const capability = capabilityOf(bare);
    return capability ? [capability] : known(bare) ? [bare] : [];
  };
  const chosen = agent.tools ? agent.tools.flatMap((n) => resolve(n, true)) : [...inherited];
  // A rule with arguments (`Bash(rm *)`) restricts a use of the tool, not the tool: only bare names take a tool away.
  const denied = new Set(
    (agent.disallowedTools ?? []).filter((n) => !n.includes("(")).flatMap((n) => resolve(n, false)),
  );
  return [...new Set(chosen.filter((n) => !denied.has(n)))];
}

/** Claude Code's model aliases; anything else is a model id (`provider/id`, or an id of the parent's provider). */
export function agentModel(model: string | undefined, parentModel: string): string | undefined {
  if (!model || model === "inherit") return undefined;
  const provider = parentModel.slice(0, parentModel.indexOf("/"));
  if (Object.hasOwn(CLAUDE_MODEL_ALIASES, model))
    return provider === "anthropic" ? `anthropic/${CLAUDE_MODEL_ALIASES[model]}` : undefined;
  return model.includes("/") ? model : `${provider}/${model}`;
}
