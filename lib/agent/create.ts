/**
 * createSession: assembles a Session from options — client, environment, tool registry (which runs
 * the calls), profile, observer, hooks, session file, the prompt sources gathered once at start,
 * and the ChildFactory its subagent manager builds children with.
 */
import { resolve, sep } from "node:path";
import { LocalEnvironment } from "../env/local.ts";
import { secretPolicy, type SecretPolicy } from "../env/env-vars.ts";
import { keyVariables } from "../llm/providers.ts";
import type { ExecutionEnvironment } from "../env/types.ts";
import { createClient, type ClientOptions } from "../llm/client.ts";
import type { LlmClient, Message, ModelInfo, ReasoningEffort } from "../llm/types.ts";
import { createObserver, type ObserverOptions, type ToolLimits } from "../output/policy.ts";
import { sweepTempFiles } from "../temp-files.ts";
import { AUTO_PROFILE, factoryFor } from "../profiles/index.ts";
import type { ProfileFactory } from "../profiles/types.ts";
import { SessionStore } from "../store/session-store.ts";
import { serverFromOptions, type McpServerSettingsEntry } from "../mcp/config.ts";
import type { McpManager } from "../mcp/manager.ts";
import { createToolRegistry, type ToolPreset } from "../../tools/registry.ts";
import { planOf } from "../../tools/plan.ts";
import type { Tool } from "../../tools/types.ts";
import type { UserChannel } from "../../tools/user-channel.ts";
import { checkReasoningEffort, resolveConfig, type SessionConfig, type SessionConfigInput } from "./config.ts";
import { loadHookModules, type Hooks } from "./hooks.ts";
import { createRecorder, PLAN_ENTRY } from "./recorder.ts";
import { Session, type SessionParts } from "./session.ts";
import { SubagentManager } from "./subagents/manager.ts";
import { createChildFactory, type Lineage } from "./subagents/child-sessions.ts";
import { childFiles } from "./subagents/stored.ts";
import { gatherPromptSources } from "./system-prompt.ts";
import type { AgentDefinition } from "../setup/agents.ts";
import type { Skill } from "../setup/skills.ts";
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
  /** The caller's own tools, offered beside the profile's (one of the same name wins over the profile's). */
  customTools?: Tool[];
  /** Execution environment; default a LocalEnvironment rooted at cwd. */
  env?: ExecutionEnvironment;
  /**
   * The variables gong reads keys from, withheld from the commands of the LocalEnvironment made here
   * and of the git snapshot; default every provider's `apiKeyEnv` (clientOptions' own providers too).
   */
  secrets?: SecretPolicy;
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
  /** The person the tools may ask (questions, plan mode): the shell's menu, the editor. Absent: no one can be asked. */
  user?: UserChannel;
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
  if (!model) throw new Error('createSession needs a model ("provider/model-id", e.g. "anthropic/claude-sonnet-4-6").');
  const modelInfo: ModelInfo = client.model(model);
  if (options.reasoningEffort !== undefined) config.reasoningEffort = checkReasoningEffort(options.reasoningEffort);
  else if (
    options.config?.reasoningEffort === undefined &&
    options.config?.reasoning_effort === undefined &&
    stored?.thinkingLevel
  ) {
    config.reasoningEffort = stored.thinkingLevel === "off" ? null : checkReasoningEffort(stored.thinkingLevel);
  }

  const secrets = options.secrets ?? secretPolicy(keyVariables(options.clientOptions?.providers));
  const env =
    options.env ??
    new LocalEnvironment({
      root: cwd,
      defaultTimeoutMs: config.defaultCommandTimeoutMs,
      maxTimeoutMs: config.maxCommandTimeoutMs,
      secrets,
    });
  // The profile activates the tools (its own names for the selection) once the session applies it.
  const web = createWebAccess({ settings: options.web, client, model });
  if (
    options.web?.search !== undefined &&
    options.config?.webSearch === undefined &&
    options.config?.web_search === undefined
  )
    config.webSearch = options.web.search;
  // The registry runs the calls; which tools are active is the session's Toolset.
  const registry = createToolRegistry({ cwd, env, web });
  const profileChoice = options.profile ?? AUTO_PROFILE;
  const profile = factoryFor(profileChoice, model)({ model, modelInfo });

  // Config limits (characters, lines) and the observer's own per-tool options win over the profile's.
  const limitOverrides: Record<string, ToolLimits> = {};
  for (const [name, chars] of Object.entries(config.toolOutputLimits))
    limitOverrides[name] = { ...limitOverrides[name], maxChars: chars };
  for (const [name, lines] of Object.entries(config.toolLineLimits))
    limitOverrides[name] = { ...limitOverrides[name], maxLines: lines };
  for (const [name, limits] of Object.entries(options.observer?.perTool ?? {}))
    limitOverrides[name] = { ...limitOverrides[name], ...limits };
  // Each call's limits come resolved from the session's Toolset (profile's, then these overrides).
  const observer = createObserver({ root: cwd, ...options.observer, perTool: undefined });
  // Expired and over-budget spill files go at session start, not only when something spills.
  await observer.sweep();
  // So do the temp files of writes a killed process left in the project (each folder once per process).
  if (lineage.depth === 0) await sweepTempFiles(cwd);

  const hooks = [...(Array.isArray(options.hooks) ? options.hooks : options.hooks ? [options.hooks] : [])];
  if (options.hookModules?.length) hooks.push(...(await loadHookModules(options.hookModules, cwd)));

  const mcp = await openMcp(options.mcpServers, cwd);
  const sources = lineage.sources
    ? structuredClone(lineage.sources)
    : await gatherPromptSources(env, profile, modelInfo, secrets);
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
    customTools: options.customTools ?? [],
    limitOverrides,
    commandTimeoutMs: explicitCommandTimeout(options.config),
    observer,
    hooks,
    sources,
    overrides: { systemPrompt: options.systemPrompt, appendSystemPrompt: options.appendSystemPrompt },
    history,
    mcp,
    recorder: (onError) => {
      const recorder = createRecorder(
        store,
        { model, effort: config.reasoningEffort, storedModel: stored?.model, storedThinking: stored?.thinkingLevel },
        onError,
      );
      // A child forked from its parent's conversation keeps that start in its own file too.
      for (const message of lineage.history ?? []) recorder.message(message);
      return recorder;
    },
    plan,
    checkpoints: checkpointsFor(options.checkpoints, store, cwd),
    ...(options.user ? { user: options.user } : {}),
    subagents: (link) => {
      const subagents = new SubagentManager({
        ...link,
        depth: lineage.depth,
        maxDepth: config.maxSubagentDepth,
        maxConcurrent: config.maxConcurrentSubagents,
        // Children are built from the parent's snapshot at each spawn, never from its live parts.
        children: createChildFactory(assembleSession, { options, store, cwd, depth: lineage.depth + 1 }),
      });
      if (stored && store.path)
        for (const child of childFiles(store.path)) subagents.adopt({ ...child, sessionFile: child.path });
      return subagents;
    },
  };
  return new Session(parts);
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
 * Checkpoints: `true` always; settings for a session with a file; by default for a session file
 * under GONG_HOME (one kept elsewhere or in memory takes none unless asked).
 */
function checkpointsFor(
  choice: CreateSessionOptions["checkpoints"],
  store: SessionStore,
  cwd: string,
): Checkpointer | undefined {
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
