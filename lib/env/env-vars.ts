/**
 * Which environment variables a command sees (004 §4.2 "environment variable filtering").
 *
 * Policies:
 * - "filtered" (default): everything except secrets — names ending in API_KEY, SECRET, TOKEN,
 *   PASSWORD or CREDENTIAL, either as the whole name or after an underscore (`OPENAI_API_KEY`,
 *   `GITHUB_TOKEN`, `TOKEN`; not `TOKENIZER_PATH`), case-insensitive — and `BASH_ENV`, so no
 *   startup file runs before a command (use `commandPrefix` for set-up instead).
 * - "inherit": everything, unchanged.
 * - "core": only the always-kept set below.
 * - "none": only PATH, so `bash` and the usual tools can still be found.
 * The always-kept set is never filtered; per-call variables are added last, on top of any policy.
 */

export const ENV_POLICIES = ["filtered", "inherit", "core", "none"] as const;
export type EnvPolicy = (typeof ENV_POLICIES)[number];

/** Variables every policy but "none" keeps. */
export const ALWAYS_KEPT: readonly string[] = [
  "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "TMPDIR", "TZ",
  "GOPATH", "GOROOT", "CARGO_HOME", "RUSTUP_HOME", "NVM_DIR", "PYENV_ROOT", "VIRTUAL_ENV",
  "JAVA_HOME", "BUN_INSTALL", "DENO_DIR", "NODE_PATH",
];

const SECRET_NAME = /(^|_)(API_KEY|SECRET|TOKEN|PASSWORD|CREDENTIAL)$/i;
/** Variables dropped by "filtered" even though they are no secret. */
const STARTUP_FILES = new Set(["BASH_ENV"]);

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

export function isAlwaysKept(name: string): boolean {
  return ALWAYS_KEPT.includes(name) || name.startsWith("LC_");
}

/** The environment a command runs with under `policy`, from `base` plus `extra`. */
export function commandEnv(
  policy: EnvPolicy,
  base: Record<string, string | undefined>,
  extra: Record<string, string> = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || !keeps(policy, name)) continue;
    out[name] = value;
  }
  return Object.assign(out, extra);
}

function keeps(policy: EnvPolicy, name: string): boolean {
  switch (policy) {
    case "inherit":
      return true;
    case "none":
      return name === "PATH";
    case "core":
      return isAlwaysKept(name);
    case "filtered":
      return isAlwaysKept(name) || (!isSecretName(name) && !STARTUP_FILES.has(name));
  }
}
