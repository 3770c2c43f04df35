/** The execution environment: the interface tools code against and the local implementation. */
export type * from "./types.ts";
export { LocalEnvironment, LOCAL_DEFAULTS, clampTimeout, type LocalEnvironmentOptions } from "./local.ts";
export {
  ALWAYS_KEPT,
  ENV_POLICIES,
  KNOWN_SECRETS,
  SECRET_WORDS,
  commandEnv,
  isSecretName,
  isWithheld,
  secretPolicy,
  SECRET_NAMES_ONLY,
  type EnvPolicy,
  type SecretPolicy,
} from "./env-vars.ts";
export { hideOwnSecrets, type HiddenSecrets } from "./own-secrets.ts";
export { ProcessTrees, TREE_MARKER, type ProcessTree } from "./process-trees.ts";
export { OutputCollector } from "./output-collector.ts";
export { runCommand, type RunCommandOptions } from "./exec.ts";
export { fsError } from "./fs-errors.ts";
export { SandboxedEnvironment, SandboxUnavailableError, findSandboxProgram, type SandboxOptions } from "./sandbox.ts";
export {
  SANDBOX_MODES,
  bubblewrapArgs,
  seatbeltProfile,
  type SandboxMode,
  type SandboxPolicy,
} from "./sandbox-profiles.ts";
