/**
 * What createSession takes: the model, the workspace, the profile and tools, the environment, the
 * session file, hooks, MCP servers, skills and agents, the web settings and checkpoints. Its own
 * module, so child agents (subagents/child-sessions.ts) take the same options without importing
 * the builder that builds them.
 */
import type { SecretPolicy } from "../env/env-vars.ts";
import type { ExecutionEnvironment } from "../env/types.ts";
import type { ClientOptions } from "../llm/client.ts";
import type { LlmClient, ReasoningEffort } from "../llm/types.ts";
import type { ObserverOptions } from "../output/policy.ts";
import type { ProfileFactory } from "../profiles/types.ts";
import type { SessionStore } from "../store/session-store.ts";
import type { McpServerSettingsEntry } from "../mcp/config.ts";
import type { McpManager } from "../mcp/manager.ts";
import type { ToolPreset } from "../../tools/registry.ts";
import type { Tool } from "../../tools/types.ts";
import type { UserChannel } from "../../tools/user-channel.ts";
import type { SessionConfigInput } from "./config.ts";
import type { Hooks } from "./vocabulary.ts";
import type { AgentDefinition } from "../setup/agents.ts";
import type { Skill } from "../setup/skills.ts";
import type { ContextFile } from "../setup/plugins/extensions.ts";
import type { WebSettings } from "../web/access.ts";
import type { CheckpointSettings } from "../checkpoints/settings.ts";

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
   * Instruction files from outside the project, before its own (a gemini-cli extension's context
   * file, read by the profiles that read the file name in `readAs`).
   */
  contextFiles?: readonly ContextFile[];
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
