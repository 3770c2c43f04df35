/**
 * createSession: assembles a Session from options — client, environment, tool registry, profile,
 * observer, hooks, session file, and the prompt sources gathered once at start.
 */
import { resolve } from "node:path";
import { LocalEnvironment } from "../env/local.ts";
import type { ExecutionEnvironment } from "../env/types.ts";
import { createClient, type ClientOptions } from "../llm/client.ts";
import type { LlmClient, Message, ModelInfo, ReasoningEffort } from "../llm/types.ts";
import { createObserver, type ObserverOptions, type ToolLimits } from "../observe.ts";
import { getProfileFactory } from "../profiles/index.ts";
import type { ProfileFactory } from "../profiles/types.ts";
import { SessionStore } from "../store/session-store.ts";
import { McpManager, serverFromOptions, type McpServerSettingsEntry } from "../mcp/index.ts";
import { createToolRegistry, type ToolPreset } from "../../tools/registry.ts";
import type { Tool } from "../../tools/types.ts";
import { checkReasoningEffort, resolveConfig, type SessionConfig, type SessionConfigInput } from "./config.ts";
import { loadHookModules, type Hooks } from "./hooks.ts";
import { createRecorder } from "./recorder.ts";
import { Session, type SessionParts } from "./session.ts";
import { gatherPromptSources } from "./system-prompt.ts";

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
  /** Profile id ("default", …) or a factory; default "default". */
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
  /** Framework truncation settings (spill directory, retention, limits); root defaults to cwd. */
  observer?: Partial<ObserverOptions>;
  /**
   * MCP servers, by name, in the `.mcp.json` / settings shape; they connect in the background and
   * their tools join as they come. Or a running McpManager shared between sessions (not closed
   * with the session).
   */
  mcpServers?: Record<string, McpServerSettingsEntry> | McpManager;
}

export async function createSession(options: CreateSessionOptions = {}): Promise<Session> {
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
  const registry = createToolRegistry({ cwd, env, preset: options.tools, tools: options.customTools });
  const profileFactory = typeof options.profile === "function" ? options.profile : getProfileFactory(options.profile ?? "default");
  const profile = profileFactory({ model, modelInfo, registry });

  const perTool: Record<string, ToolLimits> = {};
  for (const [name, limits] of Object.entries(profile.toolLimits)) perTool[name] = { ...limits };
  for (const [name, bytes] of Object.entries(config.toolOutputLimits)) perTool[name] = { ...perTool[name], maxBytes: bytes };
  for (const [name, lines] of Object.entries(config.toolLineLimits)) perTool[name] = { ...perTool[name], maxLines: lines };
  const observer = createObserver({ root: cwd, ...options.observer, perTool: { ...perTool, ...options.observer?.perTool } });

  const hooks = [...(Array.isArray(options.hooks) ? options.hooks : options.hooks ? [options.hooks] : [])];
  if (options.hookModules?.length) hooks.push(...(await loadHookModules(options.hookModules, cwd)));

  const mcp = openMcp(options.mcpServers, cwd);
  const sources = await gatherPromptSources(env, profile, modelInfo);
  const history: Message[] = stored ? [...stored.messages] : [];
  let session: Session | undefined;
  const recorder = createRecorder(
    store,
    { model, effort: config.reasoningEffort, storedModel: stored?.model, storedThinking: stored?.thinkingLevel },
    (message) => session?.bus.emit("warning", { kind: "session_file", message }),
  );
  session = new Session({
    id: store.id,
    config,
    client,
    env,
    ownsEnv: options.env === undefined,
    registry,
    profileFactory,
    profile,
    observer,
    hooks,
    sources,
    overrides: { systemPrompt: options.systemPrompt, appendSystemPrompt: options.appendSystemPrompt },
    history,
    recorder,
    mcp,
    toolSelection: options.tools ?? "default",
  });
  return session;
}

/** Servers given as entries are this session's own (closed with it); a manager passed in is shared. */
function openMcp(servers: CreateSessionOptions["mcpServers"], cwd: string): SessionParts["mcp"] {
  if (!servers) return undefined;
  if (servers instanceof McpManager) return { manager: servers.start(), owned: false };
  const configs = Object.entries(servers).map(([name, entry]) => serverFromOptions(name, entry));
  return configs.length > 0 ? { manager: new McpManager(configs, cwd).start(), owned: true } : undefined;
}

/** The store the session writes through; `false` keeps it in memory (same API, no file). */
function openStore(selection: CreateSessionOptions["store"], cwd: string): SessionStore {
  if (selection instanceof SessionStore) return selection;
  if (selection === false) return SessionStore.create({ cwd, persist: false });
  const where = { dir: selection?.dir };
  if (selection?.resume) return SessionStore.open(selection.resume, { ...where, cwd });
  if (selection?.continue) return SessionStore.continueLatest(cwd, where);
  return SessionStore.create({ ...where, cwd });
}
