/**
 * Turns command-line options and settings into `createSession` options — the CLI adds nothing a
 * script could not pass itself. The fake model (`fake/<script.json>`) starts the fake LLM server
 * in-process and registers it as provider "fake".
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { loadHookModules, type CreateSessionOptions, type Hooks, type StoreSelection } from "../agent/index.ts";
import { LocalEnvironment } from "../env/local.ts";
import { chooseShell, noShellMessage, ShellNotFoundError, type ShellChoice } from "../env/shell.ts";
import { isSecretName, isWithheld, secretPolicy, type EnvPolicy, type SecretPolicy } from "../env/env-vars.ts";
import { hideOwnSecrets } from "../env/own-secrets.ts";
import type { ClientOptions } from "../llm/client.ts";
import { findProvider, PROVIDERS } from "../llm/providers.ts";
import type { CustomProvider } from "../llm/providers.ts";
import type { ScriptTurn } from "../testing/fake-llm/types.ts";
import { toolsForSelection, type SelectionCheck } from "../agent/tool-selection.ts";
import { AUTO_PROFILE, factoryFor } from "../profiles/index.ts";
import type { Tool } from "../../tools/types.ts";
import type { CliOptions } from "./args.ts";
import { UsageError } from "./args.ts";
import { ConfigError, chooseModel, parseFakeModel } from "./model.ts";
import { configureMcp } from "./mcp.ts";
import type { Settings } from "./settings.ts";
import type { TrustDecision } from "./trust.ts";
import { boxChecked, sandboxFor, type Boxer } from "./sandbox-setup.ts";
import { loadSetup, type Setup } from "../setup/settings-files.ts";
import { gongHome } from "../store/paths.ts";
import { claudePermissionMode, unattendedGate, type SessionPermissions } from "./approval.ts";
import type { ShellHooks } from "../setup/shell-hooks.ts";
import { untrustedHint } from "./trust.ts";
import { parseToolList } from "../../tools/registry.ts";
import { discoverSetup, type UserSetup } from "../setup/index.ts";
import type { CommandContext } from "./custom-commands.ts";

export interface CliSetup {
  cwd: string;
  model: string;
  settings: Settings;
  /** Options for createSession, without `store` (the mode decides). */
  sessionOptions: CreateSessionOptions;
  /** Where the session comes from: a new file, a resumed one, or none. */
  store: StoreSelection | false;
  /** One-line notices for stderr (a project's .mcp.json left out of an untrusted project). */
  notices: string[];
  /** Branch off the resumed session into a new file instead of writing it (--fork). */
  fork: boolean;
  /** Name to give the session (--name). */
  name?: string;
  /** What the user brought for `cwd`: skills and agents (already in sessionOptions), custom slash commands. */
  brought: UserSetup;
  /** Whether the project's own files that run code may do so (--trust, trustedProjects, a remembered yes). */
  trusted: boolean;
  /** Largest prompt input (stdin, @file) in bytes. */
  maxInputBytes: number;
  /** One line of diagnostics on stderr (a warning that must not stop the run). */
  warn(line: string): void;
  /** Stops what setup started (the fake server, MCP servers). */
  dispose(): Promise<void>;
  /** A command environment rooted at `cwd` with the settings' roots and variable policy (modes that make environments of their own). */
  environmentFor(cwd: string): LocalEnvironment;
  /** Boxes an environment's commands as --sandbox asks (modes that make environments of their own); undefined when off. */
  box?: Boxer;
  /** Aborted when gong is told to end (SIGTERM, SIGHUP; Ctrl-C outside the shell): the mode closes its session and returns. */
  terminated: AbortSignal;
  /** Kills every command's process tree at once and aborts `terminated`. */
  terminate(reason: string): void;
  /** Permission rules and where "always" answers go (the settings files, lib/setup). */
  permissions: SessionPermissions;
  ruleFiles: Setup["ruleFiles"];
  /** The settings' shell hooks (Claude Code's format), when there are any: a session's events go to `observe`. */
  shellHooks?: ShellHooks;
}

/** Prompt input read from stdin or @file stops here unless settings say otherwise. */
export const DEFAULT_MAX_INPUT_BYTES = 32 * 1024 * 1024;

/** The directory gong works in (--cwd, or where it started); one that does not exist is a usage error. */
export function workingDirectory(opts: CliOptions): string {
  const cwd = resolve(opts.cwd ?? process.cwd());
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new UsageError(`--cwd ${opts.cwd}: no such directory.`);
  return cwd;
}

/** `cwd` comes from workingDirectory; `trust` holds the settings trust left in (its notices are the caller's to show). */
export async function prepareSession(
  opts: CliOptions,
  cwd: string,
  trust: TrustDecision,
  env: Record<string, string | undefined> = process.env,
  warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<CliSetup> {
  const { loaded, settings } = trust;
  const { files, sources } = loaded;
  const setupNotices: string[] = [];
  const fromSettings = loadSetup({
    cwd,
    gongHome: gongHome(),
    gongFiles: loaded.layers.map((l) => ({
      file: l.file,
      scope: l.scope === "global" ? "user" : "project",
      gong: true,
      ...l.settings,
    })),
    claudeSettings: settings.claudeSettings,
    trusted: trust.trusted,
    untrustedHint: untrustedHint(),
    // Even a trusted project never redirects the user's keys: their own base URLs and keys win.
    userOwned: (name) =>
      env[name] !== undefined && PROVIDERS.some((p) => p.baseUrlEnv === name || p.apiKeyEnv.includes(name)),
  });
  setupNotices.push(...fromSettings.notices);
  // The settings' `env` applies to gong itself (model, keys, base URLs) as to its commands and hooks, as Claude Code's does.
  const sessionEnv = { ...env, ...fromSettings.env };
  const model = chooseModel(opts.model, settings, sessionEnv);

  // A missing key's message names gong's flag (--api-key applies to the --model's provider).
  const keyHint = (id: string) => `gong --model ${id}/… --api-key KEY`;
  const clientOptions: ClientOptions = {
    apiKeys: {},
    baseUrls: {},
    providers: [],
    retry: settings.retry,
    keyHint,
    env: sessionEnv,
  };
  const disposers: Array<() => Promise<void>> = [];
  applyProviderSettings(settings, clientOptions, sessionEnv);
  const secrets = protectKeyVariables(settings);
  const keyVariables = secrets.keyVariables;

  // Aliases (google → gemini) are keyed under the provider's own id, where the client looks.
  const named = model.slice(0, model.indexOf("/"));
  const provider = findProvider(named)?.id ?? named;
  const fake = parseFakeModel(model, process.cwd());
  if (fake) {
    // The scripted model (demo, tests) loads its server only when asked for.
    const { startFakeLlm } = await import("../testing/fake-llm/server.ts");
    const server = await startFakeLlm({ script: fake.turns as ScriptTurn[] });
    disposers.push(() => server.close());
    clientOptions.providers!.push({ id: "fake", baseUrl: server.baseUrls.anthropic, api: "anthropic-messages" });
    clientOptions.apiKeys!.fake = "fake";
  } else if (!findProvider(provider) && !clientOptions.providers!.some((p) => p.id === provider)) {
    throw new ConfigError(
      `Unknown provider '${named}' in model '${model}'. Use --list-models to see the known providers, or add it under "providers" in settings.`,
    );
  }
  if (opts.apiKey) clientOptions.apiKeys![provider] = opts.apiKey;
  if (opts.baseUrl) clientOptions.baseUrls![provider] = opts.baseUrl;

  const shell = commandShell(settings.shell);
  // The settings' `env` reaches commands and hooks, secret-looking names included (they were set on
  // purpose) — except the variables gong reads its own keys from.
  const baseEnv = sessionEnv;
  const envAllow = [
    ...(settings.envAllow ?? []),
    ...Object.keys(fromSettings.env).filter((name) => !keyVariables.has(name)),
  ];
  const environmentFor = (root: string) =>
    new LocalEnvironment({
      root,
      extraRoots: settings.allowedRoots,
      envPolicy: settings.envPolicy as EnvPolicy | undefined,
      envAllow,
      baseEnv,
      shell: settings.shell,
      secrets,
    });
  const execEnv = environmentFor(cwd);
  const box = await sandboxFor(opts.sandbox, settings.sandbox);
  const toolEnv = box ? await boxChecked(box, execEnv) : execEnv;

  const tools = parseTools(opts.tools ?? settings.tools);
  const toolSource = opts.tools !== undefined ? "--tools" : `"tools" in ${sources.tools}`;
  // Skills, agents and commands in the formats of other agents (.claude/, .agents/, .gemini/, .gong/).
  const brought = await discoverSetup({ cwd, home: env.HOME });
  // Without a shell, the profile's own tool set still works but for its shell tools: said once here.
  const explicitTools =
    tools !== undefined &&
    checkTools(
      {
        selection: tools,
        profile: factoryFor(opts.profile ?? settings.profile ?? AUTO_PROFILE, model),
        model,
        env: execEnv,
        skills: brought.skills.length > 0,
      },
      toolSource,
      shell,
    );
  const noShellNotice = !shell && !explicitTools;
  const moduleHooks =
    Array.isArray(settings.hooks) && settings.hooks.length ? await loadSettingsHooks(settings.hooks, cwd, files) : [];
  const permissions: SessionPermissions = { rules: fromSettings.rules, cwd, hookDecisions: new WeakMap() };
  // The shell-hook runner loads only when the settings have hooks.
  const shellHooks = Object.keys(fromSettings.hooks).length
    ? new (await import("../setup/shell-hooks.ts")).ShellHooks({
        config: fromSettings.hooks,
        cwd,
        env: baseEnv,
        permissionMode: () => claudePermissionMode(permissions.mode?.()),
        report: (line) => warn(`gong: ${line}`),
        decisions: permissions.hookDecisions,
      })
    : undefined;
  permissions.hookEvents = shellHooks;
  // TypeScript hooks, then shell hooks, then the permission gate: one pipeline. Modes that ask replace the gate with theirs.
  const hooks: Hooks[] = [...moduleHooks, ...(shellHooks ? [shellHooks.hooks] : []), unattendedGate(permissions)];
  // Servers connect in the background from here on; the first request does not wait for them.
  const mcp = await configureMcp(cwd, loaded, trust.trusted, env);
  if (mcp.manager) disposers.push(() => mcp.manager!.close());
  mcp.manager?.start();
  const sessionOptions: CreateSessionOptions = {
    model,
    cwd,
    env: toolEnv,
    secrets,
    tools,
    profile: opts.profile ?? settings.profile,
    clientOptions,
    hooks,
    systemPrompt: opts.systemPrompt,
    appendSystemPrompt: opts.appendSystemPrompt,
    mcpServers: mcp.manager,
    skills: brought.skills,
    agents: brought.agents,
    reasoningEffort: opts.reasoningEffort ?? settings.reasoningEffort,
    config: {
      maxTurns: opts.maxTurns ?? settings.maxTurns,
      maxOutputContinuations: settings.maxOutputContinuations,
      maxCostUsd: opts.maxCostUsd,
      defaultCommandTimeoutMs: settings.defaultCommandTimeoutMs,
      autoCompact: settings.compaction?.enabled,
      compactReserveTokens: settings.compaction?.reserveTokens,
      compactKeepRecentTokens: settings.compaction?.keepRecentTokens,
      toolOutputLimits: settings.toolOutputLimits,
      toolLineLimits: settings.toolLineLimits,
      ...toolSearchConfig(settings.mcpToolSearch),
    },
    observer: settings.toolOutput,
    web: {
      // Opening private addresses is the user's own decision: a project's settings cannot do it.
      allowHosts: loaded.layers.find((l) => l.scope === "global")?.settings.web?.allowHosts,
      fetchModel: settings.web?.fetchModel,
      search: opts.webSearch ?? settings.web?.search,
    },
    // Off (false) or with settings; otherwise the default: on for sessions stored under GONG_HOME.
    ...(settings.checkpoints === false || typeof settings.checkpoints === "object"
      ? { checkpoints: settings.checkpoints }
      : {}),
  };

  const termination = new AbortController();
  return {
    cwd,
    model,
    settings,
    sessionOptions,
    store: storeSelection(opts),
    notices: [
      ...setupNotices,
      ...(noShellNotice ? [noShellMessage(process.env.PATH ?? "")] : []),
      ...mcp.warnings,
      ...brought.problems.map((p) => `warning: ${p}`),
    ],
    permissions,
    ruleFiles: fromSettings.ruleFiles,
    shellHooks,
    brought,
    trusted: trust.trusted,
    environmentFor,
    box,
    terminated: termination.signal,
    terminate(reason) {
      void toolEnv.cleanup().catch(() => {});
      void shellHooks?.killRunning();
      termination.abort(new Error(reason));
    },
    fork: opts.fork,
    name: opts.name,
    maxInputBytes: settings.maxInputBytes ?? DEFAULT_MAX_INPUT_BYTES,
    warn,
    async dispose() {
      // SessionEnd hooks run as the session closes: they finish before gong exits.
      await shellHooks?.settle();
      await toolEnv.cleanup().catch(() => {});
      for (const d of disposers) await d().catch(() => {});
    },
  };
}

/** What expanding a custom command needs in a mode working in `cwd` (default: the setup's own directory). */
export function commandContext(setup: CliSetup, env = setup.sessionOptions.env!): CommandContext {
  return { commands: setup.brought.commands, cwd: setup.cwd, env, trusted: setup.trusted, warn: setup.warn };
}

/** The `mcpToolSearch` setting as session config: true always defers, false never, "auto:N" past N % of the context window. */
function toolSearchConfig(setting: Settings["mcpToolSearch"]): {
  mcpToolSearch?: boolean;
  mcpToolSearchPercent?: number;
} {
  if (setting === undefined || setting === "auto") return {};
  if (typeof setting === "boolean")
    return setting ? { mcpToolSearch: true, mcpToolSearchPercent: 0 } : { mcpToolSearch: false };
  return { mcpToolSearch: true, mcpToolSearchPercent: Number(setting.slice(5)) };
}

/** Hook modules named in settings, loaded once for every session the host opens; a broken one is a configuration error. */
async function loadSettingsHooks(paths: string[], cwd: string, files: string[]): Promise<Hooks[]> {
  try {
    return await loadHookModules(paths, cwd);
  } catch (e) {
    throw new ConfigError(`Invalid "hooks" in settings (${files.join(", ")}): ${(e as Error).message}`);
  }
}

function applyProviderSettings(
  settings: Settings,
  clientOptions: ClientOptions,
  env: Record<string, string | undefined>,
): void {
  for (const [name, p] of Object.entries(settings.providers ?? {})) {
    const preset = findProvider(name);
    const id = preset?.id ?? name;
    if (preset && !p.api) {
      if (p.baseUrl) clientOptions.baseUrls![id] = p.baseUrl;
      if (p.apiKeyEnv && env[p.apiKeyEnv]) clientOptions.apiKeys![id] = env[p.apiKeyEnv]!;
      continue;
    }
    if (!p.baseUrl) throw new ConfigError(`Provider '${id}' in settings needs a "baseUrl".`);
    const custom: CustomProvider = { id, baseUrl: p.baseUrl, apiKeyEnv: p.apiKeyEnv, api: p.api };
    clientOptions.providers!.push(custom);
  }
}

/**
 * Every variable a key is read from — the presets' and the settings' `apiKeyEnv`, whatever its
 * name (`MYLAB_ACCESS`) — is withheld from commands and wiped from gong's start-up environment
 * (/proc/<gong>/environ) like a secret. cli.ts wiped the secret-looking names before the settings
 * were known; the others go now, before any command runs. Returns the policy naming them, which
 * the environments and the session are given.
 */
function protectKeyVariables(settings: Settings): SecretPolicy {
  const names = [
    ...PROVIDERS.flatMap((p) => p.apiKeyEnv),
    ...Object.values(settings.providers ?? {}).flatMap((p) => (p.apiKeyEnv ? [p.apiKeyEnv] : [])),
  ];
  const policy = secretPolicy(names);
  const unnamed = new Set(names.filter((n) => isWithheld(n, policy) && !isSecretName(n)));
  if (unnamed.size > 0) hideOwnSecrets((n) => unnamed.has(n));
  return policy;
}

/**
 * Checks an explicit tool selection with the session's own rule, for the profile the session will
 * have. An unknown preset or tool name, or a shell tool where no shell exists, is a configuration
 * error naming where it was written.
 */
function checkTools(check: SelectionCheck, source: string, shell: ShellChoice | null): true {
  let active: Tool[];
  try {
    active = toolsForSelection(check);
  } catch (e) {
    // The rule's sentences, joined into one: "Unknown tool 'x'. Available tools: …" → "unknown tool 'x'; available tools: …".
    const reason = (e as Error).message
      .replace(/\.$/, "")
      .replace(/\. (\w)/g, (_m, c: string) => `; ${c.toLowerCase()}`);
    throw new ConfigError(`Invalid ${source}: ${reason[0].toLowerCase()}${reason.slice(1)}.`);
  }
  // Tools chosen by name that cannot run: asked for explicitly, so a stop rather than a notice.
  const shellTools = active.filter((t) => t.kind === "shell").map((t) => t.name);
  if (!shell && shellTools.length > 0) {
    throw new ConfigError(
      `${source} names ${shellTools.join(", ")}, but no shell is on PATH (${process.env.PATH || "empty"}; gong looked for bash and sh): install one, name one with "shell" in settings, or leave ${shellTools.join(", ")} out.`,
    );
  }
  return true;
}

/** The shell commands will run with (null: none on PATH); a shell named in settings that is missing stops here. */
function commandShell(configured: string | undefined): ShellChoice | null {
  try {
    return chooseShell(process.env.PATH ?? "", configured);
  } catch (e) {
    if (e instanceof ShellNotFoundError)
      throw new ConfigError(`Invalid "shell" in settings: ${e.message[0].toLowerCase()}${e.message.slice(1)}`);
    throw e;
  }
}

function parseTools(tools: string | string[] | undefined): CreateSessionOptions["tools"] {
  if (tools === undefined) return undefined;
  return Array.isArray(tools) ? tools : parseToolList(tools);
}

function storeSelection(opts: CliOptions): StoreSelection | false {
  if (opts.noSession) return false;
  if (opts.session) return { resume: resolve(opts.session) };
  if (typeof opts.resume === "string") return { resume: opts.resume };
  if (opts.continue || opts.resume === true) return { continue: true };
  return {};
}
