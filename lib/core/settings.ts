/**
 * Settings: `~/.gong/settings.json` (or `$GONG_HOME/settings.json`) merged with the project's
 * `.gong/settings.json` — the project wins, key by key (objects merge one level deep). An invalid
 * file is a configuration error naming the file and the key.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import * as v from "valibot";
import { ENV_POLICIES } from "../env/env-vars.ts";
import { SANDBOX_MODES } from "../env/sandbox-profiles.ts";
import { REASONING_EFFORTS, WIRE_APIS } from "../llm/types.ts";
import { McpServerSettings } from "../mcp/config.ts";
import { configIssue } from "../../tools/args.ts";
import { gongHome } from "../store/paths.ts";
import { APPROVAL_MODES } from "../gate/modes.ts";

const Effort = v.picklist(REASONING_EFFORTS);
const SandboxModeSchema = v.picklist(SANDBOX_MODES);
const Positive = v.pipe(v.number(), v.integer(), v.minValue(1));

const ProviderSettings = v.strictObject({
  baseUrl: v.optional(v.string()),
  apiKeyEnv: v.optional(v.string()),
  /** Wire API of a custom provider; built-in providers keep theirs. */
  api: v.optional(v.picklist(WIRE_APIS)),
});

const SettingsSchema = v.strictObject({
  model: v.optional(v.pipe(v.string(), v.regex(/^[^/\s]+\/\S+$/, "must look like provider/model-id"))),
  tools: v.optional(v.union([v.string(), v.array(v.string())])),
  /** auto (chosen from the model) | default | anthropic | openai | gemini */
  profile: v.optional(v.string()),
  /** Timeout of a shell command that names none (every profile's shell tools); default per profile. */
  defaultCommandTimeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  reasoningEffort: v.optional(Effort),
  compaction: v.optional(
    v.strictObject({
      enabled: v.optional(v.boolean()),
      reserveTokens: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
      keepRecentTokens: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
    }),
  ),
  retry: v.optional(
    v.strictObject({
      maxRetries: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
      baseDelayMs: v.optional(v.pipe(v.number(), v.minValue(0))),
      maxDelayMs: v.optional(v.pipe(v.number(), v.minValue(0))),
    }),
  ),
  envPolicy: v.optional(v.picklist(ENV_POLICIES)),
  /** The shell commands run with (a name on PATH or an absolute path); default bash, else sh. */
  shell: v.optional(v.pipe(v.string(), v.minLength(1))),
  allowedRoots: v.optional(v.array(v.string())),
  /** TypeScript hook modules (a list of paths), or shell hooks in Claude Code's format (an object of events, lib/setup/hook-config.ts). */
  hooks: v.optional(v.union([v.array(v.string()), v.record(v.string(), v.unknown())])),
  /** Claude Code's permission rules (lib/gate/rules.ts); a rule that does not parse is reported and skipped. */
  permissions: v.optional(
    v.looseObject({
      allow: v.optional(v.array(v.unknown())),
      ask: v.optional(v.array(v.unknown())),
      deny: v.optional(v.array(v.unknown())),
    }),
  ),
  /** Commands the `edits` approval mode passes as read-only, beside the built-in list (`make lint`, `git fetch`). */
  readOnlyCommands: v.optional(v.array(v.string())),
  /** Variables set for the session and its commands, as Claude Code's `env`. */
  env: v.optional(v.record(v.string(), v.string())),
  /** false: ~/.claude/settings.json, .claude/settings.json and .claude/settings.local.json are not read. */
  claudeSettings: v.optional(v.boolean()),
  /** Claude Code's switch: no shell hook runs. */
  disableAllHooks: v.optional(v.boolean()),
  /** Claude Code's plugins turned on (`"name@marketplace": true`) or off (false); lib/setup/plugins reads them. */
  enabledPlugins: v.optional(v.record(v.string(), v.union([v.boolean(), v.array(v.string())]))),
  /** Marketplaces by name, as Claude Code's settings name them (`{ "source": { "source": "github", "repo": … } }`). */
  extraKnownMarketplaces: v.optional(v.record(v.string(), v.unknown())),
  providers: v.optional(v.record(v.string(), ProviderSettings)),
  maxTurns: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  /** Times an answer cut at the output limit is continued before the run stops unfinished (exit 3). */
  maxOutputContinuations: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  /** MCP servers by name, in the `.mcp.json` shape plus gong's keys (see lib/mcp/config.ts). */
  mcpServers: v.optional(v.record(v.string(), McpServerSettings)),
  /** MCP tool search: true (always), false (never), "auto" (MCP tool definitions over 10 % of the context window) or "auto:N" (N %). */
  mcpToolSearch: v.optional(
    v.union([
      v.boolean(),
      v.pipe(v.string(), v.regex(/^auto(:\d{1,3})?$/, 'must be true, false, "auto" or "auto:N" (N a percentage)')),
    ]),
  ),
  /** Variables passed to commands although their names look secret (exact names or `PREFIX_*`). */
  envAllow: v.optional(v.array(v.string())),
  /** The OS sandbox for commands: a mode, or the mode with network access, extra writable roots and the Unix sockets commands may reach. */
  sandbox: v.optional(
    v.union([
      SandboxModeSchema,
      v.strictObject({
        mode: SandboxModeSchema,
        network: v.optional(v.boolean()),
        writableRoots: v.optional(v.array(v.string())),
        allowUnixSockets: v.optional(v.array(v.string())),
      }),
    ]),
  ),
  /**
   * OpenTelemetry export (the OTEL_* variables win): the OTLP endpoint, its protocol and headers,
   * signals left out, and whether prompts, tool arguments and tool outputs may be included.
   */
  telemetry: v.optional(
    v.strictObject({
      endpoint: v.optional(v.pipe(v.string(), v.url())),
      protocol: v.optional(v.picklist(["http/protobuf", "http/json"])),
      headers: v.optional(v.record(v.string(), v.string())),
      traces: v.optional(v.boolean()),
      metrics: v.optional(v.boolean()),
      logs: v.optional(v.boolean()),
      logUserPrompts: v.optional(v.boolean()),
      logToolDetails: v.optional(v.boolean()),
      logToolContent: v.optional(v.boolean()),
    }),
  ),
  /** Claude Code's status line: a command given the session as JSON on stdin; its first line shows under the prompt. */
  statusLine: v.optional(
    v.looseObject({
      type: v.optional(v.literal("command")),
      command: v.pipe(v.string(), v.minLength(1)),
      padding: v.optional(v.number()),
      refreshInterval: v.optional(v.pipe(v.number(), v.minValue(1))),
    }),
  ),
  /** The address `gong update` downloads a release from (read from the global settings only). */
  releaseUrl: v.optional(v.pipe(v.string(), v.minLength(1))),
  /** Directories whose projects are trusted without asking (read from the global settings only). */
  trustedProjects: v.optional(v.array(v.string())),
  /** Characters of a tool's output the model sees, by tool name. */
  toolOutputLimits: v.optional(v.record(v.string(), Positive)),
  /** Lines of a tool's output the model sees, by tool name. */
  toolLineLimits: v.optional(v.record(v.string(), Positive)),
  /** Where complete outputs go and how much of them events carry. */
  toolOutput: v.optional(
    v.strictObject({
      eventLimitChars: v.optional(Positive),
      spillCapBytes: v.optional(Positive),
      spillBudgetBytes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
      retentionDays: v.optional(v.pipe(v.number(), v.minValue(0))),
    }),
  ),
  /** Largest prompt read from stdin or @file, in bytes (default 32 MB). */
  maxInputBytes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  /** Which tool calls wait for the user's consent where a host asks (the interactive shell, ACP): ask | edits | auto. */
  approval: v.optional(v.picklist(APPROVAL_MODES)),
  /**
   * The web tools: `allowHosts` opens loopback/private hosts to the fetch tool (read from the
   * global settings only), `fetchModel` answers fetch prompts, `search` turns on the provider's own web search.
   */
  web: v.optional(
    v.strictObject({
      allowHosts: v.optional(v.array(v.string())),
      fetchModel: v.optional(v.pipe(v.string(), v.regex(/^[^/\s]+\/\S+$/, "must look like provider/model-id"))),
      search: v.optional(v.boolean()),
    }),
  ),
  /** The interactive shell shows the model's reasoning text, dimmed (default true), or "collapsed" into one line. */
  showThinking: v.optional(v.union([v.boolean(), v.literal("collapsed")])),
  /** Checkpoints before each user turn, for rewind: false turns them off; caps per file and checkpoint, retention, total budget. */
  checkpoints: v.optional(
    v.union([
      v.boolean(),
      v.strictObject({
        maxFileBytes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
        maxCheckpointBytes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
        maxFiles: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
        retentionDays: v.optional(v.pipe(v.number(), v.minValue(0))),
        maxStoreBytes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
      }),
    ]),
  ),
  /**
   * The interactive shell tells the terminal when a turn that took at least `afterSeconds`
   * (default 10) ends: a bell, or an OSC 9 desktop notification. Off when unset.
   */
  notify: v.optional(
    v.strictObject({
      with: v.picklist(["bell", "osc9"]),
      afterSeconds: v.optional(v.pipe(v.number(), v.minValue(0))),
    }),
  ),
});

export type Settings = v.InferOutput<typeof SettingsSchema>;

export class SettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SettingsError";
  }
}

export interface LoadedSettings {
  settings: Settings;
  /** The files that were read, global first. */
  files: string[];
  /** For each key set, the file its value came from (so an error can name it). */
  sources: Partial<Record<keyof Settings, string>>;
  /** Each file's own settings, global first (for what depends on where a key was set). */
  layers: { file: string; scope: "global" | "project"; settings: Settings }[];
}

export function loadSettings(cwd: string): LoadedSettings {
  const globalFile = join(gongHome(), "settings.json");
  const projectFile = join(cwd, ".gong", "settings.json");
  const files: string[] = [];
  const sources: LoadedSettings["sources"] = {};
  const layers: LoadedSettings["layers"] = [];
  let merged: Settings = {};
  for (const [file, base, scope] of [
    [globalFile, dirname(globalFile), "global"],
    [projectFile, cwd, "project"],
  ] as const) {
    if (!existsSync(file)) continue;
    const loaded = readSettingsFile(file, base);
    merged = mergeSettings(merged, loaded);
    for (const key of Object.keys(loaded) as (keyof Settings)[]) sources[key] = file;
    files.push(file);
    layers.push({ file, scope, settings: loaded });
  }
  return { settings: merged, files, sources, layers };
}

/** Reads and validates one file; `~` in hook paths and roots is the home directory, relative ones are made absolute against `base`. */
export function readSettingsFile(file: string, base = dirname(file)): Settings {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new SettingsError(`Invalid settings in ${file}: ${(e as Error).message}`);
  }
  const result = v.safeParse(SettingsSchema, withoutClaudeCodeKeys(raw));
  if (!result.success) {
    throw new SettingsError(`Invalid settings in ${file}: ${configIssue(result.issues[0])}`);
  }
  const settings = result.output;
  const absolute = (p: string) =>
    isAbsolute(p) ? p : p === "~" || p.startsWith("~/") ? join(homedir(), p.slice(1)) : resolve(base, p);
  if (Array.isArray(settings.hooks)) settings.hooks = settings.hooks.map(absolute);
  if (settings.allowedRoots) settings.allowedRoots = settings.allowedRoots.map(absolute);
  if (settings.trustedProjects) settings.trustedProjects = settings.trustedProjects.map(absolute);
  if (typeof settings.sandbox === "object" && settings.sandbox.writableRoots)
    settings.sandbox.writableRoots = settings.sandbox.writableRoots.map(absolute);
  if (typeof settings.sandbox === "object" && settings.sandbox.allowUnixSockets)
    settings.sandbox.allowUnixSockets = settings.sandbox.allowUnixSockets.map(absolute);
  return settings;
}

/**
 * Claude Code's settings that gong has no use for: a file copied from `.claude/settings.json` keeps
 * them, and they are ignored rather than refused.
 */
const CLAUDE_CODE_KEYS = [
  "$schema",
  "apiKeyHelper",
  "cleanupPeriodDays",
  "companyAnnouncements",
  "outputStyle",
  "includeCoAuthoredBy",
  "alwaysThinkingEnabled",
  "spinnerTipsEnabled",
  "forceLoginMethod",
  "enableAllProjectMcpServers",
  "enabledMcpjsonServers",
  "disabledMcpjsonServers",
];

function withoutClaudeCodeKeys(raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  return Object.fromEntries(Object.entries(raw).filter(([k]) => !CLAUDE_CODE_KEYS.includes(k)));
}

export function mergeSettings(base: Settings, over: Settings): Settings {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const prev = out[key];
    out[key] =
      value &&
      typeof value === "object" &&
      !Array.isArray(value) &&
      prev &&
      typeof prev === "object" &&
      !Array.isArray(prev)
        ? { ...(prev as object), ...(value as object) }
        : value;
  }
  return out as Settings;
}
