/**
 * createSession: assembles a Session from options — client, environment, tool registry (which runs
 * the calls), profile, observer, hooks, session file, the prompt sources gathered once at start,
 * and the ChildFactory its subagent manager builds children with.
 */
import { resolve } from "node:path";
import { isInside } from "../paths.ts";
import { LocalEnvironment } from "../env/local.ts";
import { secretPolicy } from "../env/env-vars.ts";
import { keyVariables } from "../llm/providers.ts";
import { createClient } from "../llm/client.ts";
import type { Message, ModelInfo } from "../llm/types.ts";
import { createObserver, type ToolLimits } from "../output/policy.ts";
import { sweepTempFiles } from "../temp-files.ts";
import { AUTO_PROFILE, factoryFor } from "../profiles/index.ts";
import { SessionStore } from "../store/session-store.ts";
import { serverFromOptions } from "../mcp/config.ts";
import { createToolRegistry } from "../../tools/registry.ts";
import { checkReasoningEffort, resolveConfig, type SessionConfig, type SessionConfigInput } from "./config.ts";
import { loadHookModules } from "./hooks.ts";
import type { CreateSessionOptions } from "./session-options.ts";
import { createRecorder } from "./recorder.ts";
import { Session, type SessionParts } from "./session.ts";
import { SubagentManager } from "./subagents/manager.ts";
import { createChildFactory, type Lineage } from "./subagents/child-sessions.ts";
import { childFiles } from "./subagents/stored.ts";
import { gatherPromptSources } from "./system-prompt.ts";
import { createWebAccess } from "../web/access.ts";
import { Checkpointer } from "../checkpoints/checkpointer.ts";
import { sessionsRoot } from "../store/paths.ts";

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
    : await gatherPromptSources(env, profile, modelInfo, secrets, options.contextFiles);
  const history: Message[] = lineage.history ? [...lineage.history] : stored ? [...stored.messages] : [];
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
  if (choice === undefined && !(store.path && isInside(resolve(store.path), sessionsRoot()))) return undefined;
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
