/**
 * `gong/tools`: the kit for writing and running tools outside a session — the registry and its
 * presets, the envelope every tool returns, the execution environment tools run in, and the
 * framework truncation applied to their output.
 *
 *   import { createToolRegistry } from "gong/tools";
 *   const tools = createToolRegistry({ cwd: process.cwd(), preset: "readonly" });
 *   const page = await tools.execute("read", { path: "README.md" });
 */
export {
  createToolRegistry,
  coreTools,
  optionalTools,
  TOOL_PRESETS,
  type ToolRegistry,
  type ToolRegistryOptions,
  type ToolPreset,
  type ExecuteOptions,
} from "./registry.ts";
export { TOOL_KINDS, type Tool, type ToolKind, type ToolProgress, type ToolRunContext } from "./types.ts";
export type { ToolSpec } from "../lib/llm/types.ts";
export { describeCall, summarizeResult, filesOf, kindOf, type CallDescription } from "./metadata.ts";
export { PLAN_STATUSES, type Plan, type PlanItem, type PlanStatus } from "./plan.ts";
// Each profile's plan tool (Claude Code's, codex's, gemini-cli's shape over the one plan capability).
export { planTools } from "../lib/profiles/index.ts";
export { todoWriteTool } from "../lib/profiles/anthropic/plan.ts";
export { updatePlanTool } from "../lib/profiles/openai/plan.ts";
export { writeTodosTool } from "../lib/profiles/gemini/plan.ts";
export {
  parsePatch,
  applyPatch,
  PatchParseError,
  APPLY_PATCH_LARK_GRAMMAR,
  type ApplyPatchOptions,
  type ParsedPatch,
  type PatchOutcome,
  type FileChange,
} from "./apply-patch/index.ts";
// The provider-aligned profiles' tools (Claude Code's, codex's, gemini-cli's) and the table of background commands they share.
export { anthropicTools } from "../lib/profiles/anthropic/tools.ts";
export { openaiTools } from "../lib/profiles/openai/tools.ts";
export { geminiTools } from "../lib/profiles/gemini/tools.ts";
export { ProcessTable, type BackgroundProcess } from "./processes.ts";
// How a tool names another tool in a hint: the profile in force gives ctx.toolNames.
export { toolChoice, toolFor, type ToolNames } from "./naming.ts";
export {
  ERROR_CODES,
  ToolError,
  type ToolResponse,
  type ErrorCode,
  type Reply,
  type ToolStatus,
} from "../lib/envelope.ts";
export {
  LocalEnvironment,
  secretPolicy,
  type LocalEnvironmentOptions,
  type EnvPolicy,
  type SecretPolicy,
} from "../lib/env/index.ts";
export {
  SandboxedEnvironment,
  SandboxUnavailableError,
  hideOwnSecrets,
  isSecretName,
  ProcessTrees,
  type SandboxOptions,
  type SandboxMode,
} from "../lib/env/index.ts";
export type {
  ExecutionEnvironment,
  ExecOptions,
  ExecResult,
  FileInfo,
  DirEntry,
  ResolvedPath,
  GrepOptions,
  GrepResult,
  GlobOptions,
  GlobResult,
} from "../lib/env/types.ts";
export {
  createObserver,
  type Observer,
  type ObserverOptions,
  type Observed,
  type ObserveOptions,
  type ToolLimits,
  type TruncationInfo,
} from "../lib/output/policy.ts";
export { OutputCapture, DEFAULT_EVENT_LIMIT_CHARS, type CapturedOutput } from "../lib/output/capture.ts";
export {
  cutOutput,
  formatSize,
  type CutResult,
  type CutLimits,
  type HeldText,
  type TruncateMode,
} from "../lib/output/cut.ts";
export { CAPABILITY_LIMITS, limitsFor, type LimitCapability } from "../lib/profiles/tool-limits.ts";
// What a session offers the model: one value built from a profile and a selection (the CLI's --tools check builds the same).
export { buildToolset, type Toolset, type ToolsetEntry, type ToolsetInput } from "../lib/agent/toolset.ts";
export { getProfileFactory } from "../lib/profiles/index.ts";
