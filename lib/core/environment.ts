/**
 * Where a host's commands run: the shell (the `shell` setting, else bash, else sh), the variables
 * they see (the settings' policy and `env`, never the variables keys are read from), the roots they
 * may touch, and the OS sandbox — the `sandbox` flag wins over the `sandbox` setting; "off" (the
 * default) runs commands unboxed. A sandbox that was asked for and cannot run, or a shell named in
 * settings that is missing, is a configuration error with one sentence, never a silent fall-back.
 */
import { LocalEnvironment } from "../env/local.ts";
import { chooseShell, ShellNotFoundError, type ShellChoice } from "../env/shell.ts";
import type { EnvPolicy, SecretPolicy } from "../env/env-vars.ts";
import type { ExecutionEnvironment } from "../env/types.ts";
import type { PermissionRules } from "../gate/rules.ts";
import type { SandboxedEnvironment, SandboxOptions } from "../env/sandbox.ts";
import type { SandboxMode } from "../env/sandbox-profiles.ts";
import { gongHome } from "../store/paths.ts";
import { ConfigError } from "./errors.ts";
import type { Settings } from "./settings.ts";

export interface CommandEnvironments {
  /** The shell commands run with; null when none is on PATH. */
  shell: ShellChoice | null;
  /** An environment rooted at `root` with the settings' roots and variable policy (unboxed). */
  environmentFor(root: string): LocalEnvironment;
  /** The working directory's own environment, unboxed. */
  local: LocalEnvironment;
  /** The session's environment: `local`, boxed when the sandbox is on. */
  session: ExecutionEnvironment;
  /** Boxes an environment's commands as the sandbox asks; undefined when off. */
  box?: Boxer;
  /** Keeps the files `Read` deny rules cover from the tools (hosts that make environments of their own). */
  guardReads(env: ExecutionEnvironment): ExecutionEnvironment;
}

export interface EnvironmentChoice {
  cwd: string;
  settings: Settings;
  /** The sandbox flag, over the setting. */
  sandbox: SandboxMode | undefined;
  /** Directories commands may touch besides the working directory and the settings' roots (`--add-dir`). */
  addDirs?: string[];
  /** Sandboxed commands may reach the network (over the setting). */
  sandboxNetwork?: boolean;
  /** The user's environment with the settings' `env` on top. */
  env: Record<string, string | undefined>;
  /** The settings' `env`: passed to commands although some names look secret (they were set on purpose). */
  settingsEnv: Record<string, string>;
  /** The variables keys are read from: withheld whatever the settings say. */
  secrets: SecretPolicy;
  /** The permission rules: the files a `Read` deny covers are kept from every read and search. */
  rules: PermissionRules;
}

export async function commandEnvironments(choice: EnvironmentChoice): Promise<CommandEnvironments> {
  const { settings, secrets } = choice;
  const shell = commandShell(settings.shell);
  const envAllow = [
    ...(settings.envAllow ?? []),
    ...Object.keys(choice.settingsEnv).filter((name) => !secrets.keyVariables.has(name)),
  ];
  const environmentFor = (root: string) =>
    new LocalEnvironment({
      root,
      extraRoots: [...(settings.allowedRoots ?? []), ...(choice.addDirs ?? [])],
      envPolicy: settings.envPolicy as EnvPolicy | undefined,
      envAllow,
      baseEnv: choice.env,
      shell: settings.shell,
      secrets,
    });
  const local = environmentFor(choice.cwd);
  const box = await sandboxFor(choice.sandbox, settings.sandbox, choice);
  // Searches and reads never hand the model what a Read deny rule covers (the guard loads only when one does).
  const guard = choice.rules.withholdsReads() ? (await import("../gate/read-guard.ts")).ReadGuard : undefined;
  const guardReads = (env: ExecutionEnvironment): ExecutionEnvironment => (guard ? new guard(env, choice.rules) : env);
  const session = guardReads(box ? await boxChecked(box, local) : local);
  return { shell, environmentFor, local, session, box, guardReads };
}

/** The shell commands will run with (null: none on PATH); a shell named in settings that is missing stops here. */
function commandShell(configured: string | undefined): ShellChoice | null {
  try {
    return chooseShell(process.env.PATH ?? "", configured);
  } catch (e) {
    if (e instanceof ShellNotFoundError)
      throw new ConfigError(`Invalid "shell" in settings: ${e.message[0].toLowerCase()}${e.message.slice(1)}`);
    throw e;
  }
}

/** Boxes an environment's commands; undefined when no sandbox was asked for. */
export type Boxer = (inner: ExecutionEnvironment) => ExecutionEnvironment;

/** The function that boxes each environment as asked, or undefined for "off" (the sandbox code then never loads). */
async function sandboxFor(
  flag: SandboxMode | undefined,
  setting: Settings["sandbox"],
  extra: Pick<EnvironmentChoice, "addDirs" | "sandboxNetwork">,
): Promise<Boxer | undefined> {
  const configured = typeof setting === "string" ? { mode: setting } : setting;
  const mode = flag ?? configured?.mode ?? "off";
  if (mode === "off") return undefined;
  const { SandboxedEnvironment } = await import("../env/sandbox.ts");
  const writable = [...(configured?.writableRoots ?? []), ...(extra.addDirs ?? [])];
  const options: SandboxOptions = {
    mode,
    network: extra.sandboxNetwork ?? configured?.network,
    writableRoots: writable.length > 0 ? writable : undefined,
    allowUnixSockets: configured?.allowUnixSockets,
    gongHome: gongHome(),
  };
  return (inner) => new SandboxedEnvironment(inner, options);
}

/** `box(inner)`, with a sandbox that cannot run turned into a configuration error (exit 2). */
async function boxChecked(box: Boxer, inner: ExecutionEnvironment): Promise<ExecutionEnvironment> {
  const { SandboxUnavailableError } = await import("../env/sandbox.ts");
  try {
    const boxed = box(inner) as SandboxedEnvironment;
    await boxed.check();
    return boxed;
  } catch (e) {
    if (e instanceof SandboxUnavailableError) throw new ConfigError(e.message);
    throw e;
  }
}
