/**
 * createSession: assembles a Session from options — client, environment, tool registry, profile,
 * observer, hooks, session file, and the prompt sources gathered once at start.
 */
import { resolve, sep } from "node:path";
import { isToolError, ToolError } from "../envelope.ts";
import { LocalEnvironment } from "../env/local.ts";
import { SubdirEnvironment } from "../env/subdir.ts";
import type { ExecutionEnvironment } from "../env/types.ts";
import { createClient, type ClientOptions } from "../llm/client.ts";
import type { LlmClient, Message, ModelInfo, ReasoningEffort } from "../llm/types.ts";
import { createObserver, type ObserverOptions, type ToolLimits } from "../observe.ts";
import { sweepTempFiles } from "../temp-files.ts";
import { AUTO_PROFILE, factoryFor } from "../profiles/index.ts";
import type { ProfileFactory, ProviderProfile } from "../profiles/types.ts";
import { childSessionDir } from "../store/list.ts";
import { SessionStore } from "../store/session-store.ts";
import { serverFromOptions, type McpServerSettingsEntry } from "../mcp/config.ts";
import type { McpManager } from "../mcp/manager.ts";
import { createToolRegistry, type ToolPreset } from "../../tools/registry.ts";
import { planOf } from "../../tools/plan.ts";
import type { Tool } from "../../tools/types.ts";
import { checkReasoningEffort, resolveConfig, type SessionConfig, type SessionConfigInput } from "./config.ts";
import { loadHookModules, type Hooks } from "./hooks.ts";
import { createRecorder, PLAN_ENTRY } from "./recorder.ts";
import { Session, type SessionParts } from "./session.ts";
import { SubagentManager, DEFAULT_CHILD_MAX_TURNS, type SpawnRequest } from "./subagents/manager.ts";
import { childFiles } from "./subagents/stored.ts";
import { SUBAGENT_TOOL_NAMES } from "./subagents/tools.ts";
import { gatherPromptSources, type PromptSources } from "./system-prompt.ts";
import { agentModel, agentToolSelection, type AgentDefinition } from "../setup/agents.ts";
import type { Skill } from "../setup/skills.ts";
import type { Capability } from "../profiles/types.ts";
import { createWebAccess, type WebSettings } from "../web/access.ts";
import { Checkpointer } from "../checkpoints/checkpointer.ts";
import type { CheckpointSettings } from "../checkpoints/settings.ts";
import { sessionsRoot } from "../store/paths.ts";

export interface StoreSelection {
  /** Directory for this session's files (default $GONG_HOME/sessions/<encoded cwd>). */
  dir?: string;
  /** Session id (prefix) or file path to resume. */
  resume?: string;
  /** Resume the latest session of the working directory (or start one). */
  continue?: boolean;
}

export interface CreateSessionOptions {
  /** "provider/model-id"; optional when resuming a session that recorded one. */
  model?: string;
  /** Working directory and workspace root; default process.cwd(). */
  cwd?: string;
  /** "auto" (default: chosen from the model's family), a profile id ("default", "anthropic", "openai", "gemini") or a factory. */
  profile?: string | ProfileFactory;
  /** Active tools: a preset ("default", "minimal", "readonly") or tool names. */
  tools?: ToolPreset | readonly string[];
  /** Extra tools registered beside the core ones (a later registration of a name wins). */
  customTools?: Tool[];
  /** Execution environment; default a LocalEnvironment rooted at cwd. */
  env?: ExecutionEnvironment;
  /** Session config (camelCase or snake_case keys; see config.ts). */
  config?: SessionConfigInput;
  hooks?: Hooks | Hooks[];
  /** Paths of modules whose default export is a hooks object (or an array of them). */
  hookModules?: string[];
  /** Replaces the profile's base instructions. */
  systemPrompt?: string;
  /** Appended to the system prompt, last. */
  appendSystemPrompt?: string;
  /** A store to write to, false for none (kept in memory), or where to find / how to resume one. Default: a new session file. */
  store?: SessionStore | false | StoreSelection;
  /** Default createClient(clientOptions). */
  client?: LlmClient;
  clientOptions?: ClientOptions;
  reasoningEffort?: ReasoningEffort | null;
  /** Framework truncation settings (spill directory, retention, event limit, spill cap and budget, limits); root defaults to cwd. */
  observer?: Partial<ObserverOptions>;
  /**
   * MCP servers, by name, in the `.mcp.json` / settings shape; they connect in the background and
   * their tools join as they come. Or a running McpManager shared between sessions (not closed
   * with the session).
   */
  mcpServers?: Record<string, McpServerSettingsEntry> | McpManager;
  /** Agent Skills (see `discoverSkills` in lib/setup/skills.ts): listed in the system prompt, loaded by the skill tool. */
  skills?: readonly Skill[];
  /** Custom agents (see `discoverAgents` in lib/setup/agents.ts): subagent types with their own prompt, tools and model. */
  agents?: readonly AgentDefinition[];
  /**
   * The web tools' settings: hosts a fetch may reach although they are private or loopback
   * (`allowHosts`), the model answering fetch prompts (`fetchModel`, default the session's), and
   * the provider's own web search (`search`, the same as config.webSearch).
   */
  web?: WebSettings;
  /**
   * Checkpoints of the workspace before each user turn, for rewind: true / false, or settings
   * (caps, retention; `home` replaces GONG_HOME as the store's root). Default: on when the session
   * file lives under GONG_HOME.
   */
  checkpoints?: boolean | (Partial<CheckpointSettings> & { home?: string });
}

/** Where a session sits in a tree of agents: 0 for one a host created, parent depth + 1 for a child. */
interface Lineage {
  depth: number;
  /** A child starts from a copy of these messages (fork_context) instead of the stored ones. */
  history?: Message[];
  /** A child in its parent's directory with its parent's model reuses the parent's prompt sources (no second git snapshot). */
  sources?: PromptSources;
}

export function createSession(options: CreateSessionOptions = {}): Promise<Session> {
  return assembleSession(options, { depth: 0 });
}

async function assembleSession(options: CreateSessionOptions, lineage: Lineage): Promise<Session> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const config: SessionConfig = resolveConfig(options.config);
  const client = options.client ?? createClient(options.clientOptions);
  const store = openStore(options.store, cwd);
  const stored = store.size > 0 ? store.buildContext() : undefined;

  const model = options.model ?? stored?.model;
  if (!model) throw new Error("createSession needs a model (\"provider/model-id\", e.g. \"anthropic/claude-sonnet-4-6\").");
  const modelInfo: ModelInfo = client.model(model);
  if (options.reasoningEffort !== undefined) config.reasoningEffort = checkReasoningEffort(options.reasoningEffort);
  else if (options.config?.reasoningEffort === undefined && options.config?.reasoning_effort === undefined && stored?.thinkingLevel) {
    config.reasoningEffort = stored.thinkingLevel === "off" ? null : checkReasoningEffort(stored.thinkingLevel);
  }

  const env = options.env ?? new LocalEnvironment({ root: cwd, defaultTimeoutMs: config.defaultCommandTimeoutMs, maxTimeoutMs: config.maxCommandTimeoutMs });
  // The profile activates the tools (its own names for the selection) once the session applies it.
  const web = createWebAccess({ settings: options.web, client, model });
  if (options.web?.search !== undefined && options.config?.webSearch === undefined && options.config?.web_search === undefined) config.webSearch = options.web.search;
  const registry = createToolRegistry({ cwd, env, tools: options.customTools, web });
  const profileChoice = options.profile ?? AUTO_PROFILE;
  const profile = factoryFor(profileChoice, model)({ model, modelInfo, registry });

  // Config limits (characters, lines) and the observer's own per-tool options win over the profile's.
  const limitOverrides: Record<string, ToolLimits> = {};
  for (const [name, chars] of Object.entries(config.toolOutputLimits)) limitOverrides[name] = { ...limitOverrides[name], maxChars: chars };
  for (const [name, lines] of Object.entries(config.toolLineLimits)) limitOverrides[name] = { ...limitOverrides[name], maxLines: lines };
  for (const [name, limits] of Object.entries(options.observer?.perTool ?? {})) limitOverrides[name] = { ...limitOverrides[name], ...limits };
  const toolLimits: Record<string, ToolLimits> = {};
  const observer = createObserver({ root: cwd, ...options.observer, perTool: toolLimits });
  // Expired and over-budget spill files go at session start, not only when something spills.
  await observer.sweep();
  // So do the temp files of writes a killed process left in the project (each folder once per process).
  if (lineage.depth === 0) await sweepTempFiles(cwd);

  const hooks = [...(Array.isArray(options.hooks) ? options.hooks : options.hooks ? [options.hooks] : [])];
  if (options.hookModules?.length) hooks.push(...(await loadHookModules(options.hookModules, cwd)));

  const mcp = await openMcp(options.mcpServers, cwd);
  const sources = lineage.sources ? structuredClone(lineage.sources) : await gatherPromptSources(env, profile, modelInfo);
  const history: Message[] = lineage.history ? [...lineage.history] : stored ? [...stored.messages] : [];
  const plan = stored ? planOf(store.latestCustom(PLAN_ENTRY)) : undefined;
  const parts: SessionParts = {
    config,
    client,
    env,
    ownsEnv: options.env === undefined,
    registry,
    profileChoice,
    profile,
    toolSelection: options.tools ?? "default",
    skills: options.skills ?? [],
    agents: options.agents ?? [],
    customToolNames: (options.customTools ?? []).map((t) => t.name),
    toolLimits,
    limitOverrides,
    commandTimeoutMs: explicitCommandTimeout(options.config),
    observer,
    hooks,
    sources,
    overrides: { systemPrompt: options.systemPrompt, appendSystemPrompt: options.appendSystemPrompt },
    history,
    mcp,
    recorder: (onError) => {
      const recorder = createRecorder(store, { model, effort: config.reasoningEffort, storedModel: stored?.model, storedThinking: stored?.thinkingLevel }, onError);
      // A child forked from its parent's conversation keeps that start in its own file too.
      for (const message of lineage.history ?? []) recorder.message(message);
      return recorder;
    },
    plan,
    checkpoints: checkpointsFor(options.checkpoints, store, cwd),
    subagents: (link) => {
      const subagents = new SubagentManager({
        ...link,
        depth: lineage.depth,
        maxDepth: config.maxSubagentDepth,
        maxConcurrent: config.maxConcurrentSubagents,
        createChild: (request) => asToolError(() => spawnChild(session, options, parentParts, request)),
        reopenChild: (file) => asToolError(() => childSession(session, options, parentParts, { store: SessionStore.open(file) })),
      });
      if (stored && store.path) for (const child of childFiles(store.path)) subagents.adopt({ ...child, sessionFile: child.path });
      return subagents;
    },
  };
  // The parts object stays the session's own: its profile choice and tool selection are the ones in force when a child starts.
  const parentParts: ParentParts = { store, cwd, depth: lineage.depth + 1, live: parts };
  const session: Session = new Session(parts);
  return session;
}

/**
 * Servers given as entries are this session's own (closed with it); a manager passed in is shared.
 * The MCP client code loads only for a session that has servers.
 */
async function openMcp(servers: CreateSessionOptions["mcpServers"], cwd: string): Promise<SessionParts["mcp"]> {
  if (!servers) return undefined;
  const { McpManager } = await import("../mcp/manager.ts");
  if (servers instanceof McpManager) return { manager: servers.start(), owned: false };
  const configs = Object.entries(servers).map(([name, entry]) => serverFromOptions(name, entry));
  return configs.length > 0 ? { manager: new McpManager(configs, cwd).start(), owned: true } : undefined;
}

/** The command timeout the caller's config sets, if it sets one (otherwise the profile's default applies). */
function explicitCommandTimeout(config: SessionConfigInput | undefined): number | undefined {
  const value = config?.defaultCommandTimeoutMs ?? config?.default_command_timeout_ms;
  return typeof value === "number" ? value : undefined;
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

interface ParentParts {
  store: SessionStore;
  cwd: string;
  /** The children's depth. */
  depth: number;
  /** The parent's own parts (environment, client, config, hooks, prompt sources), as its setProfile / setTools / setModel left them. */
  live: SessionParts;
}

/**
 * A child agent: the parent's environment (a subdirectory view of it for working_dir), client,
 * profile choice (as it is now) and hooks; its own history, session file (linked to the parent's
 * and the spawning call) and turn limit; the parent's tool selection minus the subagent tools
 * once at the depth limit.
 */
async function spawnChild(parent: Session, options: CreateSessionOptions, parts: ParentParts, request: SpawnRequest): Promise<Session> {
  const { live } = parts;
  let env: ExecutionEnvironment = live.env;
  if (request.workingDir) {
    const where = await live.env.resolvePath(request.workingDir);
    const info = await live.env.stat(where.absolute);
    if (!info || info.type !== "dir") throw new ToolError("INVALID_PARAM", `working_dir '${request.workingDir}' is not a directory of the workspace.`);
    env = new SubdirEnvironment(live.env, where.absolute);
  }
  const store = parts.store.path
    ? SessionStore.create({ cwd: parts.cwd, dir: childSessionDir(parts.store.path), parentSession: parts.store.path, spawnedBy: request.callId })
    : SessionStore.create({ cwd: parts.cwd, persist: false });
  const { agent } = request;
  return childSession(parent, options, parts, {
    store,
    env,
    model: request.model ?? agentModel(agent?.model, parent.model),
    tools: request.tools ?? (agent ? customAgentTools(agent, live) : undefined),
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
function childSession(parent: Session, options: CreateSessionOptions, parts: ParentParts, choices: ChildChoices): Promise<Session> {
  const { live } = parts;
  const tools = choices.tools ?? childToolSelection(live.toolSelection, live.profile);
  const sameSetting = (choices.env ?? live.env) === live.env && (choices.model ?? parent.model) === parent.model && choices.store.size === 0;
  return assembleSession(
    {
      // A reopened child keeps the model its file recorded.
      model: choices.model ?? (choices.store.size > 0 ? undefined : parent.model),
      cwd: parts.cwd,
      profile: live.profileChoice,
      tools: typeof tools === "string" ? (tools as ToolPreset) : tools,
      customTools: options.customTools,
      env: choices.env ?? live.env,
      config: { ...live.config, maxTurns: choices.maxTurns ?? DEFAULT_CHILD_MAX_TURNS },
      hooks: live.hooks,
      systemPrompt: choices.systemPrompt ?? options.systemPrompt,
      appendSystemPrompt: options.appendSystemPrompt,
      skills: live.skills,
      agents: live.agents,
      store: choices.store,
      client: live.client,
      reasoningEffort: choices.reasoningEffort ?? live.config.reasoningEffort,
      observer: options.observer,
      // The parent's MCP servers serve its children too (shared, closed with the parent's owner).
      mcpServers: parent.mcp,
      checkpoints: options.checkpoints,
    },
    { depth: parts.depth, history: choices.history, sources: sameSetting ? live.sources : undefined },
  );
}

/**
 * A custom agent's tools for its child: its `tools` (or the parent's active tools) as capabilities
 * and names the parent's registry knows, without its `disallowedTools` and the subagent tools.
 */
function customAgentTools(agent: AgentDefinition, live: SessionParts): string[] {
  const capabilityOf = new Map<string, Capability>();
  for (const [capability, names] of Object.entries(live.profile.capabilityTools)) for (const name of names) if (!capabilityOf.has(name)) capabilityOf.set(name, capability as Capability);
  for (const capability of Object.keys(live.profile.capabilityTools)) capabilityOf.set(capability, capability as Capability);
  const inherited = live.registry.names().filter((n) => !SUBAGENT_TOOL_NAMES.has(n)).map((n) => capabilityOf.get(n) ?? n);
  const tools = agentToolSelection(agent, (n) => capabilityOf.get(n), (n) => live.registry.get(n) !== undefined && !SUBAGENT_TOOL_NAMES.has(n), inherited);
  // A session needs one active tool: an agent naming only tools gong lacks still gets the reader.
  return tools.length > 0 ? tools : ["read"];
}

/**
 * The parent's tool selection in a form any profile can take: a preset as it is; in a list, a
 * name the parent's profile gives a capability (Read, exec_command…) becomes that capability,
 * other names (custom, MCP, plan tools) stay; the subagent tools are left out.
 */
function childToolSelection(selection: ToolPreset | readonly string[], profile: ProviderProfile): ToolPreset | string[] {
  if (typeof selection === "string") return selection;
  const capabilityOf = new Map<string, string>();
  for (const [capability, names] of Object.entries(profile.capabilityTools)) for (const name of names) if (!capabilityOf.has(name)) capabilityOf.set(name, capability);
  return [...new Set(selection.filter((n) => !SUBAGENT_TOOL_NAMES.has(n)).map((n) => capabilityOf.get(n) ?? n))];
}

/**
 * Checkpoints: `true` always; settings for a session with a file; by default for a session file
 * under GONG_HOME (one kept elsewhere or in memory takes none unless asked).
 */
function checkpointsFor(choice: CreateSessionOptions["checkpoints"], store: SessionStore, cwd: string): Checkpointer | undefined {
  if (choice === false) return undefined;
  if (choice === undefined && !(store.path && resolve(store.path).startsWith(sessionsRoot() + sep))) return undefined;
  if (typeof choice === "object" && !store.path) return undefined;
  const { home, ...settings } = typeof choice === "object" ? choice : {};
  const checkpointer = new Checkpointer(cwd, { home, settings });
  try {
    checkpointer.recoverInterrupted();
  } catch {
    // Said again, with the file named, by the first checkpoint or rewind.
  }
  return checkpointer;
}

/** The store a selection names (new, resumed, the latest, or in memory with `false`); a store passes through. */
function openStore(selection: CreateSessionOptions["store"], cwd: string): SessionStore {
  if (selection instanceof SessionStore) return selection;
  if (selection === false) return SessionStore.create({ cwd, persist: false });
  const where = { dir: selection?.dir };
  if (selection?.resume) return SessionStore.open(selection.resume, { ...where, cwd });
  if (selection?.continue) return SessionStore.continueLatest(cwd, where);
  return SessionStore.create({ ...where, cwd });
}
