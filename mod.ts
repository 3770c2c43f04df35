/**
 * gong's SDK: everything a script imports, and nothing else. The CLI is built on exactly this.
 *
 *   import { createSession } from "./mod.ts";
 *   const session = await createSession({ model: "anthropic/claude-sonnet-4-6", cwd: "." });
 *   const { text } = await session.submit("fix the failing test");
 */

// The agent session.
export {
  createSession,
  Session,
  DEFAULT_CONFIG,
  EVENT_KINDS,
  loadHookModules,
  type CreateSessionOptions,
  type StoreSelection,
  type SessionState,
  type SubmitOptions,
  type SubmitResult,
  type StopReason,
  type SessionConfig,
  type SessionConfigInput,
  type SessionEvent,
  type EventKind,
  type EventListener,
  type Hooks,
  type GateResult,
  type InputResult,
  type BeforeAgentResult,
  type SessionOp,
} from "./lib/agent/index.ts";
export { registerProfile, profileIds, createDefaultProfile, type ProviderProfile, type ProfileFactory } from "./lib/profiles/index.ts";

// Tools and the envelope they return.
export { createToolRegistry, coreTools, TOOL_PRESETS, toDefinition, type ToolRegistry, type ToolPreset } from "./tools/registry.ts";
export type { Tool, ToolDefinition, ToolRunContext, ToolProgress, TruncationDirection } from "./tools/types.ts";
export { ERROR_CODES, FIELD, ToolError, startReply, envelopeProblems, type ToolResponse, type ErrorCode, type Reply } from "./lib/envelope.ts";
export { createObserver, type Observer, type ObserverOptions } from "./lib/observe.ts";
export { truncateHead, truncateTail, truncateLine, truncateChars, truncateLines, formatSize } from "./lib/truncate.ts";

// MCP servers (createSession({ mcpServers }) takes entries or a shared manager).
export { McpManager, type McpServerStatus, type McpServerEvent, type McpServerSettingsEntry } from "./lib/mcp/index.ts";

// Where tools run.
export { LocalEnvironment, type LocalEnvironmentOptions, type EnvPolicy } from "./lib/env/index.ts";
export type { ExecutionEnvironment, ExecOptions, ExecResult, FileInfo, DirEntry, ResolvedPath, GrepOptions, GrepResult, GlobOptions, GlobResult } from "./lib/env/types.ts";

// The LLM layer.
// (Imported module by module: lib/llm/index.ts also re-exports the adapters, which would load every SDK.)
export { createClient, type Client, type ClientOptions } from "./lib/llm/client.ts";
export { getModel, listModels } from "./lib/llm/catalog.ts";
export { LlmError } from "./lib/llm/errors.ts";
export { PROVIDERS, type CustomProvider } from "./lib/llm/providers.ts";
export type {
  Message,
  UserMessage,
  AssistantMessage,
  ToolResultMessage,
  TextPart,
  ImagePart,
  ThinkingPart,
  ToolCallPart,
  Request,
  Response,
  StreamEvent,
  Usage,
  ModelInfo,
  ReasoningEffort,
  LlmClient,
  ToolSpec,
} from "./lib/llm/types.ts";

// Session files.
export { SessionStore, listSessions, findSession, deleteSession, type SessionInfo } from "./lib/store/index.ts";

// The fake LLM server, for your own tests.
export { startFakeLlm, type FakeLlm, type FakeLlmOptions, type Script, type ScriptTurn, type Fault, type RecordedRequest } from "./lib/testing/index.ts";

export { VERSION } from "./lib/version.ts";
