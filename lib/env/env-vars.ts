/**
 * Which environment variables a command sees (docs/conformance.md: 004 §4.2 "environment variable
 * filtering").
 *
 * Policies:
 * - "filtered" (default): everything except secrets (see `isSecretName`) and `BASH_ENV`, so no
 *   startup file runs before a command (use `commandPrefix` for set-up instead).
 * - "inherit": everything, unchanged.
 * - "core": only the always-kept set below.
 * - "none": only PATH, so `bash` and the usual tools can still be found.
 * The always-kept set is never filtered; names in `allow` pass "filtered" even when they look
 * secret (a user's deliberate choice, e.g. `SSH_AUTH_SOCK`); per-call variables are added last,
 * on top of any policy. A variable gong reads a key from (named by the `SecretPolicy` the
 * environment is given) counts as a secret whatever its name.
 */

export const ENV_POLICIES = ["filtered", "inherit", "core", "none"] as const;
export type EnvPolicy = (typeof ENV_POLICIES)[number];

/** Variables every policy but "none" keeps. */
export const ALWAYS_KEPT: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "TERM",
  "TMPDIR",
  "TZ",
  "GOPATH",
  "GOROOT",
  "CARGO_HOME",
  "RUSTUP_HOME",
  "NVM_DIR",
  "PYENV_ROOT",
  "VIRTUAL_ENV",
  "JAVA_HOME",
  "BUN_INSTALL",
  "DENO_DIR",
  "NODE_PATH",
];

/**
 * Words that mark a secret when one of the name's words is exactly that word (or its plural):
 * `AWS_SECRET_ACCESS_KEY`, `STRIPE_SECRET_KEY`, `ANTHROPIC_AUTH_TOKEN`, `npm_config__authToken`,
 * but not `MONKEY`, `GIT_AUTHOR_NAME` or `TOKENIZER_PATH`, whose words only begin or end alike.
 */
export const SECRET_WORDS: readonly string[] = [
  "KEY",
  "APIKEY",
  "SECRET",
  "TOKEN",
  "PASSWORD",
  "PASSWD",
  "PASS",
  "PASSPHRASE",
  "CREDENTIAL",
  "AUTH",
  "OAUTH",
  "PRIVATE",
  "SESSION",
  "COOKIE",
];

/** Secrets whose names carry none of the words: connection strings with passwords, webhook URLs, … */
export const KNOWN_SECRETS: readonly string[] = [
  "PGPASSWORD",
  "MYSQL_PWD",
  "DATABASE_URL",
  "REDIS_URL",
  "MONGODB_URI",
  "MONGO_URL",
  "AMQP_URL",
  "SENTRY_DSN",
  "SLACK_WEBHOOK_URL",
  "DISCORD_WEBHOOK_URL",
  "GITHUB_PAT",
  "CI_JOB_JWT",
  "CI_JOB_JWT_V2",
];

/** Names that contain a secret word but hold none: desktop-session plumbing. */
const NOT_SECRETS = new Set([
  "DBUS_SESSION_BUS_ADDRESS",
  "DESKTOP_SESSION",
  "SESSION_MANAGER",
  "XDG_SESSION_ID",
  "XDG_SESSION_TYPE",
  "XDG_SESSION_CLASS",
  "XDG_SESSION_DESKTOP",
]);

/** Variables dropped by "filtered" even though they are no secret. */
const STARTUP_FILES = new Set(["BASH_ENV"]);

const SECRET_SET = new Set(SECRET_WORDS.flatMap((w) => [w, `${w}S`]));
const KNOWN_SET = new Set(KNOWN_SECRETS);

/** The words of a variable name: split at `_`, `-`, `.`, `/`, `:` and where lower case meets upper case. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toUpperCase());
}

export function isSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  if (NOT_SECRETS.has(upper)) return false;
  return KNOWN_SET.has(upper) || nameWords(name).some((w) => SECRET_SET.has(w));
}

/**
 * Which variables count as secrets besides the secret-looking names: the variables gong reads keys
 * from (every provider's `apiKeyEnv`, `MYLAB_ACCESS` as much as `ANTHROPIC_API_KEY`). A value, built
 * once by whoever knows the providers (the CLI, createSession) and handed to the environment; nothing
 * global changes when a client or a session is created.
 */
export interface SecretPolicy {
  /** Variables withheld from commands whatever their names (the always-kept set stays kept). */
  readonly keyVariables: ReadonlySet<string>;
}

/** A policy withholding `keyVariables` as well as the secret-looking names. */
export function secretPolicy(keyVariables: Iterable<string> = []): SecretPolicy {
  return { keyVariables: new Set([...keyVariables].filter((name) => name && !isAlwaysKept(name))) };
}

/** Secret-looking names only: the policy of an environment nobody told about key variables. */
export const SECRET_NAMES_ONLY: SecretPolicy = secretPolicy();

/** A secret by its name, or a variable the policy names as one gong reads a key from. */
export function isWithheld(name: string, policy: SecretPolicy = SECRET_NAMES_ONLY): boolean {
  return policy.keyVariables.has(name) || isSecretName(name);
}

export function isAlwaysKept(name: string): boolean {
  return ALWAYS_KEPT.includes(name) || name.startsWith("LC_");
}

/** `NAME` or a `PREFIX_*` pattern from an allow-list matches `name` (case-sensitive, as variables are). */
export function matchesAllowList(name: string, allow: readonly string[]): boolean {
  return allow.some((a) => (a.endsWith("*") ? name.startsWith(a.slice(0, -1)) : a === name));
}

/** The environment a command runs with under `policy`, from `base` plus `extra`; `secrets` says which variables are keys. */
export function commandEnv(
  policy: EnvPolicy,
  base: Record<string, string | undefined>,
  extra: Record<string, string> = {},
  allow: readonly string[] = [],
  secrets: SecretPolicy = SECRET_NAMES_ONLY,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || !keeps(policy, name, allow, secrets)) continue;
    out[name] = value;
  }
  return Object.assign(out, extra);
}

function keeps(policy: EnvPolicy, name: string, allow: readonly string[], secrets: SecretPolicy): boolean {
  switch (policy) {
    case "inherit":
      return true;
    case "none":
      return name === "PATH";
    case "core":
      return isAlwaysKept(name) || matchesAllowList(name, allow);
    case "filtered":
      return (
        isAlwaysKept(name) || matchesAllowList(name, allow) || (!isWithheld(name, secrets) && !STARTUP_FILES.has(name))
      );
  }
}
