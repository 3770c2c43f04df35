/**
 * gong's SDK: what a script needs to run sessions, and nothing else. The CLI is built on it.
 *
 *   import { createSession } from "gong";
 *   const session = await createSession({ model: "anthropic/claude-sonnet-4-6", cwd: "." });
 *   const { text } = await session.submit("fix the failing test");
 *
 * Writing tools (the registry, the envelope, the environment, truncation) is `gong/tools`;
 * the fake LLM server for tests is `gong/testing`.
 */

// The agent session.
export { createSession, DEFAULT_CONFIG } from "./lib/agent/index.ts";
export type {
  Session,
  CreateSessionOptions,
  StoreSelection,
  SessionState,
  SubmitOptions,
  SubmitResult,
  StopReason,
  SessionConfig,
  SessionConfigInput,
  SessionEvent,
  EventKind,
  EventMap,
  EventToolCall,
  EventListener,
  Hooks,
  GateResult,
  InputResult,
  BeforeAgentResult,
  SessionOp,
} from "./lib/agent/index.ts";
export { registerProfile, profileIds, profileForModel, AUTO_PROFILE } from "./lib/profiles/index.ts";
export type { ProviderProfile, ProfileFactory } from "./lib/profiles/index.ts";
export type { Tool, ToolKind, ToolPreset, ToolResponse, ErrorCode, Plan, PlanItem } from "./tools/mod.ts";

// What users bring from other agents: createSession({ skills, agents }) takes what these find.
export { discoverSetup } from "./lib/setup/index.ts";
export type { UserSetup, Skill, AgentDefinition, CustomCommand } from "./lib/setup/index.ts";
// Checkpoints and rewind: session.checkpoints(), session.previewRewind(), session.rewind().
export { RewindError, RewindConflictError } from "./lib/checkpoints/restore.ts";
export { CheckpointStoreError } from "./lib/checkpoints/store.ts";
export type { CheckpointInfo, RewindOptions, RewindPreview, RewindResult } from "./lib/checkpoints/checkpointer.ts";
export type { FileChange } from "./lib/checkpoints/restore.ts";
export type { CheckpointSettings } from "./lib/checkpoints/settings.ts";

// MCP servers: createSession({ mcpServers }) takes entries or a manager shared by sessions.
export { McpManager, type McpServerStatus, type McpServerEvent, type McpServerSettingsEntry } from "./lib/mcp/index.ts";

// The LLM layer. (Imported module by module: the adapters load their SDKs only when used.)
export { createClient, type Client, type ClientOptions } from "./lib/llm/client.ts";
export { getModel, listModels } from "./lib/llm/catalog.ts";
export { LlmError } from "./lib/llm/errors.ts";
export type { CustomProvider } from "./lib/llm/providers.ts";
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
} from "./lib/llm/types.ts";

// Session files.
export { SessionStore } from "./lib/store/session-store.ts";
export { SessionLockedError } from "./lib/store/lock.ts";
export { listSessions, findSession, deleteSession, type SessionInfo } from "./lib/store/list.ts";

// Many tasks at once: `gong batch` for scripts (results are files under `out`).
export { runBatch, type BatchOptions, type BatchReport } from "./lib/batch/batch.ts";
export type { BatchEvent, Progress } from "./lib/batch/runner-host.ts";
export { parseTasks, type Task, type TaskDefaults, type TaskProblem } from "./lib/batch/task.ts";
export type { AttemptResult, Summary, TaskStatus } from "./lib/batch/result.ts";

export { VERSION } from "./lib/version.ts";
