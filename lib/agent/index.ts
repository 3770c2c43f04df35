/** The agent library every host (CLI, RPC, scripts) uses: createSession and what it works with. */
export { createSession, type CreateSessionOptions, type StoreSelection } from "./create.ts";
export { Session, type SessionState, type SubmitOptions } from "./session.ts";
export type { StopReason, SubmitResult } from "./loop.ts";
export { DEFAULT_CONFIG, resolveConfig, type SessionConfig, type SessionConfigInput } from "./config.ts";
export type { EventKind, EventListener, EventMap, EventToolCall, SessionEvent } from "./events.ts";
export {
  loadHookModules,
  type BeforeAgentResult,
  type GateResult,
  type HookErrorReport,
  type Hooks,
  type InputResult,
  type SessionOp,
} from "./hooks.ts";
export { callSignature, detectLoop, stableStringify } from "./loop-detection.ts";
export { discoverProjectDocs, PROJECT_DOC_BUDGET_BYTES, PROJECT_DOC_MARKER } from "./project-docs.ts";
export { gitSnapshot } from "./git-context.ts";
export { ABORTED_MESSAGE, SKIPPED_MESSAGE } from "./tool-execution.ts";
