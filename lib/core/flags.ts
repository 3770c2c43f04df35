/**
 * What a host asks of a session, as a plain value. Each host maps its own flags onto it — gong's
 * command line (lib/cli/args.ts), a batch task's fields (lib/batch), an editor's request — and
 * calls `prepareSession` once; the settings fill in whatever is left unset.
 */
import type { ApprovalMode } from "../gate/modes.ts";
import type { SandboxMode } from "../env/sandbox-profiles.ts";
import type { ReasoningEffort } from "../llm/types.ts";
import type { McpServerSettingsEntry } from "../mcp/config.ts";

export interface SessionFlags {
  /** provider/model-id; default the settings' `model`, then the first provider whose key is set. */
  model?: string;
  /** A key for the model's provider, over the settings' and the environment's. */
  apiKey?: string;
  /** A base URL for the model's provider, over the settings'. */
  baseUrl?: string;
  reasoningEffort?: ReasoningEffort;
  /** A preset or a comma-separated list as `--tools` reads it, or tool names; default the settings' `tools`. */
  tools?: string | readonly string[];
  /** auto (from the model) | default | anthropic | openai | gemini; default the settings' `profile`. */
  profile?: string;
  /** Replaces the profile's base instructions. */
  systemPrompt?: string;
  /** Appended to the system prompt, last. */
  appendSystemPrompt?: string;
  /** Model turns before the run stops; default the settings' `maxTurns`. */
  maxTurns?: number;
  /** No model call starts once an input cost this many US dollars. */
  maxCostUsd?: number;
  /** Boxes commands with the OS sandbox; default the settings' `sandbox`, else off. */
  sandbox?: SandboxMode;
  /** Offers the provider's own web search; default the settings' `web.search`. */
  webSearch?: boolean;
  /** Which calls wait for consent where the host can ask; default the settings' `approval`, then "ask". */
  approval?: ApprovalMode;
  /** Lets the project's settings and files that run code take effect (`--trust`). */
  trust?: boolean;
  /** Installs the plugins the settings turn on but are not installed, without asking (`--install-plugins`). */
  installPlugins?: boolean;
  /** Which session file the host's first session uses; default a new one. */
  session?: SessionChoice;
  /** With `latest` or `resume`: continue in a new file branched off the session, leaving it to its owner. */
  fork?: boolean;
  /** A name for the session (resumable by it). */
  name?: string;
  /**
   * Settings in Claude Code's format given on the command line — `--settings`, and the rules of
   * `--allowedTools` / `--disallowedTools` — read after every settings file, each named by its source.
   */
  extraSettings?: FlagSettings[];
  /** Directories the tools may read and write besides the working directory (`--add-dir`). */
  addDirs?: string[];
  /** MCP servers given on the command line (`--mcp-config`), `.mcp.json`'s shape, with their source. */
  mcpConfigs?: { source: string; servers: Record<string, McpServerSettingsEntry> }[];
  /** Only the servers of `mcpConfigs` run (`--strict-mcp-config`). */
  strictMcpConfig?: boolean;
  /** codex's config.toml is not read for MCP servers (codex's `--ignore-user-config`). */
  skipCodexConfig?: boolean;
  /** Models to fall back to, in order, when the model is overloaded or not available (`--fallback-model`). */
  fallbackModels?: string[];
  /** The final answer must be JSON valid against this schema (`--json-schema`, codex's `--output-schema`). */
  outputSchema?: { schema: unknown; source: string };
  /** Lets sandboxed commands reach the network (codex's `sandbox_workspace_write.network_access`). */
  sandboxNetwork?: boolean;
}

/** Settings in Claude Code's format from a flag: `permissions`, `env`, `hooks`, `model`. */
export interface FlagSettings {
  /** The flag, or the file it named (`--allowedTools`, `/home/me/ci-settings.json`). */
  source: string;
  settings: Record<string, unknown>;
}

export type SessionChoice =
  /** A new session file: under `dir` when given, else GONG_HOME's folder for the working directory; `id` chosen by the host. */
  | { kind: "new"; dir?: string; id?: string }
  /** Nothing is written. */
  | { kind: "unsaved" }
  /** The working directory's most recent session (a new one when there is none). */
  | { kind: "latest" }
  /** A session by name, id prefix or file path. */
  | { kind: "resume"; ref: string };
