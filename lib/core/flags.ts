/**
 * What a host asks of a session, as a plain value. Each host maps its own flags onto it — gong's
 * command line (lib/cli/args.ts), a batch task's fields (lib/batch), an editor's request — and
 * calls `prepareSession` once; the settings fill in whatever is left unset.
 */
import type { ApprovalMode } from "../gate/modes.ts";
import type { SandboxMode } from "../env/sandbox-profiles.ts";
import type { ReasoningEffort } from "../llm/types.ts";

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
}

export type SessionChoice =
  /** A new session file: under `dir` when given, else GONG_HOME's folder for the working directory. */
  | { kind: "new"; dir?: string }
  /** Nothing is written. */
  | { kind: "unsaved" }
  /** The working directory's most recent session (a new one when there is none). */
  | { kind: "latest" }
  /** A session by name, id prefix or file path. */
  | { kind: "resume"; ref: string };
