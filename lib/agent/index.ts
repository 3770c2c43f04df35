/** The agent library every host (CLI, RPC, scripts) uses: createSession and what it works with. */
export { createSession } from "./create.ts";
export type { CreateSessionOptions, StoreSelection } from "./session-options.ts";
export { Session, type SessionState, type SubmitOptions } from "./session.ts";
export { DEFAULT_CONFIG, resolveConfig, type SessionConfig, type SessionConfigInput } from "./config.ts";
export type {
  BeforeAgentResult,
  EventKind,
  EventListener,
  EventMap,
  EventToolCall,
  GateResult,
  HookErrorReport,
  Hooks,
  InputResult,
  SessionEvent,
  SessionOp,
  StopReason,
  SubmitResult,
} from "./vocabulary.ts";
export { loadHookModules } from "./hooks.ts";
export { callSignature, detectLoop, stableStringify } from "./loop-detection.ts";
export { discoverProjectDocs, PROJECT_DOC_BUDGET_BYTES, PROJECT_DOC_MARKER } from "./project-docs.ts";
export { gitSnapshot } from "./git-context.ts";
export { ABORTED_MESSAGE, SKIPPED_MESSAGE } from "./tool-execution.ts";
