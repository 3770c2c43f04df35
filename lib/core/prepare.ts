/**
 * The one way a host gets its sessions. Settings (gong's files and Claude Code's), the host's flags
 * as a value (SessionFlags), trust and the project's own files (skills, commands, agents, hooks, MCP
 * configuration) become a SessionSetup: the createSession options and what they need running (MCP
 * servers, shell hooks, the fake model's server), from which the host opens one session or many
 * (open.ts). Print, RPC, ACP, the interactive shell and batch tasks all start here; none adds
 * anything a script could not pass to createSession itself.
 */
import { loadHookModules, type CreateSessionOptions, type Hooks } from "../agent/index.ts";
import { unattendedGate, type SessionPermissions } from "../gate/approval.ts";
import { claudePermissionMode, type ApprovalMode } from "../gate/modes.ts";
import { noShellMessage } from "../env/shell.ts";
import type { LocalEnvironment } from "../env/local.ts";
import type { ExecutionEnvironment } from "../env/types.ts";
import { PROVIDERS } from "../llm/providers.ts";
import { discoverSetup, type UserSetup } from "../setup/index.ts";
import { loadSetup, type Setup } from "../setup/settings-files.ts";
import type { ShellHooks } from "../setup/shell-hooks.ts";
import { mergeHookConfigs } from "../setup/hook-config.ts";
import type { Bundles } from "../setup/plugins/index.ts";
import { gongHome } from "../store/paths.ts";
import type { Telemetry } from "../telemetry/index.ts";
import type { AnswerSchema } from "./answer-schema.ts";
import { bundlesFor } from "./bundles.ts";
import { commandEnvironments, type Boxer, type CommandEnvironments } from "./environment.ts";
import { ConfigError } from "./errors.ts";
import type { SessionFlags } from "./flags.ts";
import { configureMcp, userMcpSources, type HostMcp, type UserMcpSources } from "./mcp.ts";
import { modelClient, type ModelClient } from "./model.ts";
import { loadSettings, type Settings } from "./settings.ts";
import type { ToolChoice } from "./tool-selection.ts";
import { decideTrust, isProjectTrusted, untrustedHint, type TrustDecision } from "./trust.ts";

export interface SessionRequest {
  /** Where the sessions work: an existing directory. */
  cwd: string;
  /** What the host's flags ask for. */
  flags: SessionFlags;
  /** The user's environment: keys, base URLs, HOME (default process.env). */
  env?: Record<string, string | undefined>;
  /**
   * Trust as the host decided it already, with its notices said (the shell asks before --worktree
   * copies the project). Default: decided here, asking no one — the trust flag, the trusted lists.
   */
  trust?: TrustDecision;
  /** One line of diagnostics, a warning that must not stop the run (default: stderr). */
  warn?(line: string): void;
  /**
   * Puts a yes/no question to the person at the terminal (the shell): whether to install the
   * plugins the settings ask for. Absent where no one can answer: they are named in a notice.
   */
  confirm?(question: string): Promise<boolean>;
}

export interface SessionSetup {
  cwd: string;
  model: string;
  /** The settings the run goes by (trust applied). */
  settings: Settings;
  /** The flags as the host gave them (the session store, fork and name are read from them when a session opens). */
  flags: SessionFlags;
  /** Which calls wait for consent where the host asks: the flag, the setting, else "ask". */
  approval: ApprovalMode;
  /** The user's own MCP servers and the flags' for a project directory (an editor's session elsewhere). */
  mcpSourcesAt(cwd: string): UserMcpSources;
  /** Options for createSession, without `store` (open.ts adds the one the flags chose). */
  sessionOptions: CreateSessionOptions;
  /** The schema the final answer must match (`outputSchema` in the flags), checked by a headless run. */
  answerSchema?: AnswerSchema;
  /** One-line notices for the user (a project's .mcp.json left out of an untrusted project, no shell on PATH). */
  notices: string[];
  /** What the user brought for `cwd`: skills and agents (already in sessionOptions), custom slash commands. */
  brought: UserSetup;
  /** The plugins and gemini-cli extensions loaded, when there are any (for /plugin). */
  bundles?: Bundles;
  /** Whether the project's own files that run code may do so (the trust flag, trustedProjects, a remembered yes). */
  trusted: boolean;
  /** Largest prompt input (stdin, @file) in bytes. */
  maxInputBytes: number;
  /** One line of diagnostics (a warning that must not stop the run). */
  warn(line: string): void;
  /** Stops what the setup started (the fake server, MCP servers, commands still running). */
  dispose(): Promise<void>;
  /** A command environment rooted at `cwd` with the settings' roots and variable policy (hosts that make environments of their own). */
  environmentFor(cwd: string): LocalEnvironment;
  /** Boxes an environment's commands as the sandbox flag or setting asks; undefined when off. */
  box?: Boxer;
  /** Keeps the files `Read` deny rules cover from the tools (hosts that make environments of their own). */
  guardReads(env: ExecutionEnvironment): ExecutionEnvironment;
  /** The skills, agents and commands of another directory, and whether that project is trusted (an editor's sessions elsewhere). */
  projectAt(cwd: string): Promise<{ brought: UserSetup; trusted: boolean }>;
  /** Aborted when gong is told to end (SIGTERM, SIGHUP; Ctrl-C outside the shell): the host closes its sessions and returns. */
  terminated: AbortSignal;
  /** Kills every command's process tree at once and aborts `terminated`. */
  terminate(reason: string): void;
  /** Permission rules and where "always" answers go (the settings files, lib/setup). */
  permissions: SessionPermissions;
  ruleFiles: Setup["ruleFiles"];
  /** The settings' status line command (Claude Code's `statusLine`), trust applied. */
  statusLine?: Setup["statusLine"];
  /** The settings' shell hooks (Claude Code's format), when there are any: a session's events go to `observe`. */
  shellHooks?: ShellHooks;
  /** OpenTelemetry export, when the OTEL_* variables or the `telemetry` settings ask for it: it hears every session opened. */
  telemetry?: Telemetry;
}

/** Prompt input read from stdin or @file stops here unless settings say otherwise. */
export const DEFAULT_MAX_INPUT_BYTES = 32 * 1024 * 1024;

export async function prepareSession(request: SessionRequest): Promise<SessionSetup> {
  const { cwd, flags } = request;
  const env = request.env ?? process.env;
  const warn = request.warn ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const trust = request.trust ?? (await decideTrust({ cwd, flag: Boolean(flags.trust), env }, loadSettings(cwd)));
  // Trust decided here has notices no one said yet.
  const trustNotices = request.trust ? [] : trust.notices;
  const started: Array<() => Promise<void>> = [];
  try {
    return await assemble({ cwd, flags, env, warn, trust, trustNotices, confirm: request.confirm }, started);
  } catch (e) {
    // A setup that stops half-way leaves nothing running.
    for (const stop of started) await stop().catch(() => {});
    throw e;
  }
}

type Request = Required<Omit<SessionRequest, "confirm">> & Pick<SessionRequest, "confirm"> & { trustNotices: string[] };

async function assemble(request: Request, started: Array<() => Promise<void>>): Promise<SessionSetup> {
  const { cwd, flags, env, warn, trust } = request;
  const { settings, loaded } = trust;
  const files = settingsFiles(cwd, trust, env, flags);
  // The settings' `env` applies to gong itself (model, keys, base URLs) as to its commands and hooks, as Claude Code's does.
  const sessionEnv = { ...env, ...files.env };
  // Telemetry loads only when an OTEL_ variable or the settings ask for it: nothing is added to the start otherwise.
  const telemetry =
    settings.telemetry || Object.keys(sessionEnv).some((name) => name.startsWith("OTEL_"))
      ? await (await import("../telemetry/index.ts")).startTelemetry(sessionEnv, settings.telemetry, warn)
      : undefined;
  if (telemetry) started.push(() => telemetry.shutdown());
  const client = await modelClient(flags, settings, sessionEnv, files.model);
  // The schema is checked (its validator loads) only when one is given.
  const schema = flags.outputSchema
    ? await (await import("./answer-schema.ts")).answerSchema(flags.outputSchema)
    : undefined;
  if (client.dispose) started.push(client.dispose);
  const environments = await commandEnvironments({
    cwd,
    settings,
    sandbox: flags.sandbox,
    addDirs: flags.addDirs,
    sandboxNetwork: flags.sandboxNetwork,
    env: sessionEnv,
    settingsEnv: files.env,
    secrets: client.secrets,
    rules: files.rules,
  });
  // Skills, agents and commands in the formats of other agents (.claude/, .agents/, .gemini/, .gong/),
  // and those of the plugins and extensions, with their hooks, servers and rules.
  const own = await discoverSetup({ cwd, home: env.HOME });
  const bundled = await bundlesFor(
    { cwd, setup: files, trusted: trust.trusted, env, confirm: request.confirm, install: flags.installPlugins },
    own,
  );
  const brought = bundled?.brought ?? own;
  if (bundled) files.rules.add(bundled.denyRules);
  // A selection is checked (its module loads) only when the flags or the settings name one.
  const tools: ToolChoice =
    (flags.tools ?? settings.tools) === undefined
      ? { tools: undefined, explicit: false }
      : (await import("./tool-selection.ts")).chooseTools(flags, {
          model: client.model,
          settings,
          sources: loaded.sources,
          env: environments.local,
          shell: environments.shell,
          skills: brought.skills.length > 0,
        });
  const hooks = await sessionHooks({
    cwd,
    settings,
    files: loaded.files,
    // The user's disableAllHooks turns a plugin's hooks off too.
    setup: bundled && !files.hooksOff ? { ...files, hooks: mergeHookConfigs(files.hooks, bundled.hooks) } : files,
    env: sessionEnv,
    warn,
    approval: flags.approval,
  });
  // Servers connect in the background from here on; the first request does not wait for them.
  const userMcp = await userMcpSources(cwd, env, flags);
  const mcp = await configureMcp(cwd, loaded, trust.trusted, env, { ...userMcp.sources, bundled: bundled?.servers });
  mcp.warnings.unshift(...userMcp.warnings);
  if (mcp.manager) started.push(() => mcp.manager!.close());
  mcp.manager?.start();
  const sessionOptions = sessionOptionsFrom({
    cwd,
    flags,
    trust,
    client,
    environments,
    tools,
    hooks,
    brought,
    mcp,
    schema,
  });
  if (bundled?.context.length) sessionOptions.contextFiles = bundled.context;

  const termination = new AbortController();
  const session = environments.session;
  return {
    cwd,
    model: client.model,
    settings,
    flags,
    approval: flags.approval ?? settings.approval ?? "ask",
    sessionOptions,
    answerSchema: schema,
    mcpSourcesAt: userMcp.at,
    notices: [
      ...request.trustNotices,
      ...files.notices,
      // Without a shell, the profile's own tool set still works but for its shell tools: said once here.
      ...(!environments.shell && !tools.explicit ? [noShellMessage(process.env.PATH ?? "")] : []),
      ...mcp.warnings,
      ...(bundled?.notices ?? []),
      ...brought.problems.map((p) => `warning: ${p}`),
    ],
    permissions: hooks.permissions,
    ruleFiles: files.ruleFiles,
    statusLine: files.statusLine,
    shellHooks: hooks.shellHooks,
    telemetry,
    brought,
    bundles: bundled?.bundles,
    trusted: trust.trusted,
    environmentFor: environments.environmentFor,
    box: environments.box,
    guardReads: environments.guardReads,
    projectAt: (dir) =>
      dir === cwd
        ? Promise.resolve({ brought, trusted: trust.trusted })
        : projectElsewhere(dir, { flags, settings, warn }, env.HOME),
    terminated: termination.signal,
    terminate(reason) {
      void session.cleanup().catch(() => {});
      // A hook still running dies with gong, as commands do.
      void hooks.shellHooks?.killRunning();
      termination.abort(new Error(reason));
    },
    maxInputBytes: settings.maxInputBytes ?? DEFAULT_MAX_INPUT_BYTES,
    warn,
    async dispose() {
      // SessionEnd hooks run as the session closes: they finish before gong exits.
      await hooks.shellHooks?.settle();
      await session.cleanup().catch(() => {});
      for (const stop of started) await stop().catch(() => {});
    },
  };
}

/** What the settings files bring (lib/setup): permission rules, shell hooks, `env`, with trust applied; the flags' settings last. */
export function settingsFiles(
  cwd: string,
  trust: TrustDecision,
  env: Record<string, string | undefined>,
  flags: Pick<SessionFlags, "extraSettings"> = {},
): Setup {
  return loadSetup({
    flagSettings: flags.extraSettings,
    cwd,
    gongHome: gongHome(),
    gongFiles: trust.loaded.layers.map((l) => ({
      file: l.file,
      scope: l.scope === "global" ? "user" : "project",
      gong: true,
      ...l.settings,
    })),
    claudeSettings: trust.settings.claudeSettings,
    trusted: trust.trusted,
    untrustedHint: untrustedHint(),
    // Even a trusted project never redirects the user's keys: their own base URLs and keys win.
    userOwned: (name) =>
      env[name] !== undefined && PROVIDERS.some((p) => p.baseUrlEnv === name || p.apiKeyEnv.includes(name)),
  });
}

interface SessionHooks {
  hooks: Hooks[];
  /** Permission rules and what the shell hooks decided, for the gate of whichever host asks. */
  permissions: SessionPermissions;
  /** The settings' shell hooks, when there are any: a session's events go to `observe`. */
  shellHooks?: ShellHooks;
}

interface HookSources {
  cwd: string;
  settings: Settings;
  /** The settings files read (a broken hook module's error names them). */
  files: string[];
  /** What the settings files bring: permission rules and shell hooks. */
  setup: Pick<Setup, "rules" | "hooks">;
  /** The variables shell hooks see. */
  env: Record<string, string | undefined>;
  /** One line of diagnostics (a shell hook's failure). */
  warn(line: string): void;
  /** The approval flag: what the unattended gate refuses (auto when not given). */
  approval: ApprovalMode | undefined;
}

/**
 * The hooks every session of the host runs, as one pipeline: the settings' TypeScript hook modules,
 * then the shell hooks in Claude Code's format, then the permission gate (the settings' rules; a
 * host that asks replaces the unattended gate with its own, see withGate).
 */
async function sessionHooks(from: HookSources): Promise<SessionHooks> {
  const { settings, cwd } = from;
  const moduleHooks =
    Array.isArray(settings.hooks) && settings.hooks.length
      ? await loadSettingsHooks(settings.hooks, cwd, from.files)
      : [];
  const permissions: SessionPermissions = {
    rules: from.setup.rules,
    cwd,
    home: from.env.HOME,
    hookDecisions: new WeakMap(),
  };
  // The shell-hook runner loads only when the settings have hooks.
  const shellHooks = Object.keys(from.setup.hooks).length
    ? new (await import("../setup/shell-hooks.ts")).ShellHooks({
        config: from.setup.hooks,
        cwd,
        env: from.env,
        permissionMode: () => claudePermissionMode(permissions.mode?.()),
        report: (line) => from.warn(`gong: ${line}`),
        decisions: permissions.hookDecisions,
      })
    : undefined;
  permissions.hookEvents = shellHooks;
  // Where no one answers (print, RPC, batch) what the approval flag asks about is refused (auto when not given);
  // hosts that ask replace this gate with theirs.
  const hooks: Hooks[] = [
    ...moduleHooks,
    ...(shellHooks ? [shellHooks.hooks] : []),
    unattendedGate(permissions, from.approval ?? "auto"),
  ];
  return { hooks, permissions, shellHooks };
}

/** Hook modules named in settings, loaded once for every session the host opens; a broken one is a configuration error. */
async function loadSettingsHooks(paths: string[], cwd: string, files: string[]): Promise<Hooks[]> {
  try {
    return await loadHookModules(paths, cwd);
  } catch (e) {
    throw new ConfigError(`Invalid "hooks" in settings (${files.join(", ")}): ${(e as Error).message}`);
  }
}

interface OptionParts {
  cwd: string;
  flags: SessionFlags;
  trust: TrustDecision;
  client: ModelClient;
  environments: CommandEnvironments;
  tools: ToolChoice;
  hooks: SessionHooks;
  brought: UserSetup;
  mcp: HostMcp;
  schema?: AnswerSchema;
}

/** The createSession options: the flags over the settings, and the parts made above. */
function sessionOptionsFrom(parts: OptionParts): CreateSessionOptions {
  const { flags, client } = parts;
  const { settings, loaded } = parts.trust;
  return {
    model: client.model,
    cwd: parts.cwd,
    env: parts.environments.session,
    secrets: client.secrets,
    tools: parts.tools.tools,
    profile: flags.profile ?? settings.profile,
    clientOptions: client.clientOptions,
    hooks: parts.hooks.hooks,
    systemPrompt: flags.systemPrompt,
    appendSystemPrompt: withAnswerFormat(flags.appendSystemPrompt, parts.schema),
    mcpServers: parts.mcp.manager,
    skills: parts.brought.skills,
    agents: parts.brought.agents,
    reasoningEffort: flags.reasoningEffort ?? settings.reasoningEffort,
    config: {
      maxTurns: flags.maxTurns ?? settings.maxTurns,
      maxOutputContinuations: settings.maxOutputContinuations,
      maxCostUsd: flags.maxCostUsd,
      defaultCommandTimeoutMs: settings.defaultCommandTimeoutMs,
      autoCompact: settings.compaction?.enabled,
      compactReserveTokens: settings.compaction?.reserveTokens,
      compactKeepRecentTokens: settings.compaction?.keepRecentTokens,
      toolOutputLimits: settings.toolOutputLimits,
      toolLineLimits: settings.toolLineLimits,
      ...toolSearchConfig(settings.mcpToolSearch),
      ...(parts.schema?.providerSchema ? { outputSchema: parts.schema.providerSchema } : {}),
    },
    observer: settings.toolOutput,
    web: {
      // Opening private addresses is the user's own decision: a project's settings cannot do it.
      allowHosts: loaded.layers.find((l) => l.scope === "global")?.settings.web?.allowHosts,
      fetchModel: settings.web?.fetchModel,
      search: flags.webSearch ?? settings.web?.search,
    },
    // Off (false) or with settings; otherwise the default: on for sessions stored under GONG_HOME.
    ...(settings.checkpoints === false || typeof settings.checkpoints === "object"
      ? { checkpoints: settings.checkpoints }
      : {}),
  };
}

/** The instructions appended last, with the form the final answer must take when a schema is given. */
function withAnswerFormat(append: string | undefined, schema: AnswerSchema | undefined): string | undefined {
  if (!schema) return append;
  const format = `Your final answer must be only a JSON value that matches this JSON Schema, with no other text around it: ${JSON.stringify(schema.schema)}`;
  return append ? `${append}\n\n${format}` : format;
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

/** Another directory's own skills, agents and commands, and whether that project is trusted under the same flag and global settings. */
async function projectElsewhere(
  dir: string,
  setup: Pick<SessionSetup, "flags" | "settings" | "warn">,
  home: string | undefined,
): Promise<{ brought: UserSetup; trusted: boolean }> {
  const brought = await discoverSetup({ cwd: dir, home });
  for (const problem of brought.problems) setup.warn(`gong: warning: ${problem}`);
  return { brought, trusted: isProjectTrusted(dir, { flag: setup.flags.trust, global: setup.settings }) };
}
