/**
 * The ChildFactory createSession gives a session's subagent manager: children are sessions
 * assembled like their parent, from the options the parent was created with and the parent's
 * snapshot at the moment of the spawn (see child-factory.ts), never from the parent's live parts.
 */
import { isToolError, ToolError } from "../../envelope.ts";
import { SubdirEnvironment } from "../../env/subdir.ts";
import type { ExecutionEnvironment } from "../../env/types.ts";
import type { Message, ReasoningEffort } from "../../llm/types.ts";
import type { Capability, ProviderProfile } from "../../profiles/types.ts";
import { agentModel, agentToolSelection, type AgentDefinition } from "../../setup/agents.ts";
import { childSessionDir } from "../../store/list.ts";
import { SessionStore } from "../../store/session-store.ts";
import type { ToolPreset } from "../../../tools/selection.ts";
import { checkReasoningEffort } from "../config.ts";
import type { CreateSessionOptions } from "../session-options.ts";
import type { Session } from "../session.ts";
import type { PromptSources } from "../system-prompt.ts";
import type { ChildFactory, ParentSnapshot } from "./child-factory.ts";
import { DEFAULT_CHILD_MAX_TURNS } from "./manager.ts";
import type { SpawnRequest } from "../../profiles/subagents.ts";
import { SUBAGENT_TOOL_NAMES } from "../../profiles/index.ts";

/** Where a session sits in a tree of agents: 0 for one a host created, parent depth + 1 for a child. */
export interface Lineage {
  depth: number;
  /** A child starts from a copy of these messages (fork_context) instead of the stored ones. */
  history?: Message[];
  /** A child in its parent's directory with its parent's model reuses the parent's prompt sources (no second git snapshot). */
  sources?: PromptSources;
}

/** createSession's own assembly, for a session at a given place in the tree. */
export type AssembleSession = (options: CreateSessionOptions, lineage: Lineage) => Promise<Session>;

export interface ChildFactoryBase {
  /** The options the parent was created with (custom tools, prompts, observer, checkpoints). */
  options: CreateSessionOptions;
  /** The parent's session file: children's files sit beside it, linked to it. */
  store: SessionStore;
  cwd: string;
  /** The children's depth. */
  depth: number;
}

export function createChildFactory(assemble: AssembleSession, base: ChildFactoryBase): ChildFactory {
  return {
    spawn: (request, parent) => asToolError(() => spawnChild(assemble, base, parent, request)),
    reopen: (file, parent) =>
      asToolError(() => childSession(assemble, base, parent, { store: SessionStore.open(file) })),
  };
}

/**
 * A child that cannot be built (an unknown model, a bad reasoning effort, an unreadable file) is
 * the spawning tool's error, in createSession's own words; a ToolError keeps its code.
 */
async function asToolError<T>(build: () => Promise<T>): Promise<T> {
  try {
    return await build();
  } catch (e) {
    throw isToolError(e) ? e : new ToolError("EXECUTION_ERROR", (e as Error).message);
  }
}

/**
 * A child agent: the parent's environment (a subdirectory view of it for working_dir), client,
 * profile choice and hooks; its own history, session file (linked to the parent's and the
 * spawning call) and turn limit; the parent's tool selection minus the subagent tools once at the
 * depth limit.
 */
async function spawnChild(
  assemble: AssembleSession,
  base: ChildFactoryBase,
  parent: ParentSnapshot,
  request: SpawnRequest,
): Promise<Session> {
  let env: ExecutionEnvironment = parent.env;
  if (request.workingDir) {
    const where = await parent.env.resolvePath(request.workingDir);
    const info = await parent.env.stat(where.absolute);
    if (info?.type !== "dir")
      throw new ToolError("INVALID_PARAM", `working_dir '${request.workingDir}' is not a directory of the workspace.`);
    env = new SubdirEnvironment(parent.env, where.absolute);
  }
  const store = base.store.path
    ? SessionStore.create({
        cwd: base.cwd,
        dir: childSessionDir(base.store.path),
        parentSession: base.store.path,
        spawnedBy: request.callId,
      })
    : SessionStore.create({ cwd: base.cwd, persist: false });
  const { agent } = request;
  return childSession(assemble, base, parent, {
    store,
    env,
    model: request.model ?? agentModel(agent?.model, parent.model),
    tools: request.tools ?? (agent ? customAgentTools(agent, parent) : undefined),
    maxTurns: request.maxTurns ?? agent?.maxTurns,
    systemPrompt: agent?.prompt || undefined,
    reasoningEffort: request.reasoningEffort === undefined ? undefined : checkReasoningEffort(request.reasoningEffort),
    history: request.forkContext ? [...parent.messages] : undefined,
  });
}

interface ChildChoices {
  store: SessionStore;
  env?: ExecutionEnvironment;
  model?: string;
  tools?: string | readonly string[];
  maxTurns?: number;
  reasoningEffort?: ReasoningEffort | null;
  history?: Message[];
  /** A custom agent's prompt, in place of the base instructions. */
  systemPrompt?: string;
}

/**
 * A child session (new, or reopened from its file) with the parent's parts and the child's own
 * choices. The child follows the parent's profile choice, so under "auto" a child on another
 * family's model gets that family's profile; the parent's tool selection goes over as presets and
 * capabilities, which the child's profile turns into its own tool names.
 */
function childSession(
  assemble: AssembleSession,
  base: ChildFactoryBase,
  parent: ParentSnapshot,
  choices: ChildChoices,
): Promise<Session> {
  const { options } = base;
  const tools = choices.tools ?? childToolSelection(parent.toolSelection, parent.profile);
  const sameSetting =
    (choices.env ?? parent.env) === parent.env &&
    (choices.model ?? parent.model) === parent.model &&
    choices.store.size === 0;
  return assemble(
    {
      // A reopened child keeps the model its file recorded.
      model: choices.model ?? (choices.store.size > 0 ? undefined : parent.model),
      cwd: base.cwd,
      profile: parent.profileChoice,
      tools: typeof tools === "string" ? (tools as ToolPreset) : tools,
      customTools: options.customTools,
      env: choices.env ?? parent.env,
      config: { ...parent.config, maxTurns: choices.maxTurns ?? DEFAULT_CHILD_MAX_TURNS },
      hooks: [...parent.hooks],
      systemPrompt: choices.systemPrompt ?? options.systemPrompt,
      appendSystemPrompt: options.appendSystemPrompt,
      skills: parent.skills,
      agents: parent.agents,
      store: choices.store,
      client: parent.client,
      secrets: options.secrets,
      clientOptions: options.clientOptions,
      reasoningEffort: choices.reasoningEffort ?? parent.config.reasoningEffort,
      observer: options.observer,
      // The parent's MCP servers serve its children too (shared, closed with the parent's owner).
      mcpServers: parent.mcp,
      checkpoints: options.checkpoints,
    },
    { depth: base.depth, history: choices.history, sources: sameSetting ? parent.sources : undefined },
  );
}

/**
 * A custom agent's tools for its child: its `tools` (or the parent's active tools) as capabilities
 * and names the parent's Toolset knows, without its `disallowedTools` and the subagent tools.
 */
function customAgentTools(agent: AgentDefinition, parent: ParentSnapshot): string[] {
  const capabilityOf = new Map<string, Capability>();
  for (const [capability, names] of Object.entries(parent.profile.capabilityTools))
    for (const name of names) if (!capabilityOf.has(name)) capabilityOf.set(name, capability as Capability);
  for (const capability of Object.keys(parent.profile.capabilityTools))
    capabilityOf.set(capability, capability as Capability);
  const inherited = parent.toolset.names
    .filter((n) => !SUBAGENT_TOOL_NAMES.has(n))
    .map((n) => capabilityOf.get(n) ?? n);
  const tools = agentToolSelection(
    agent,
    (n) => capabilityOf.get(n),
    (n) => parent.toolset.known(n) !== undefined && !SUBAGENT_TOOL_NAMES.has(n),
    inherited,
  );
  // A session needs one active tool: an agent naming only tools gong lacks still gets the reader.
  return tools.length > 0 ? tools : ["read"];
}

/**
 * The parent's tool selection in a form any profile can take: a preset as it is; in a list, a
 * name the parent's profile gives a capability (Read, exec_command…) becomes that capability,
 * other names (custom, MCP, plan tools) stay; the subagent tools are left out.
 */
function childToolSelection(
  selection: ToolPreset | readonly string[],
  profile: ProviderProfile,
): ToolPreset | string[] {
  if (typeof selection === "string") return selection;
  const capabilityOf = new Map<string, string>();
  for (const [capability, names] of Object.entries(profile.capabilityTools))
    for (const name of names) if (!capabilityOf.has(name)) capabilityOf.set(name, capability);
  return [...new Set(selection.filter((n) => !SUBAGENT_TOOL_NAMES.has(n)).map((n) => capabilityOf.get(n) ?? n))];
}
