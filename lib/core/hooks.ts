/**
 * The hooks every session of a host runs, as one pipeline: the settings' TypeScript hook modules,
 * then the shell hooks in Claude Code's format, then the permission gate (the settings' rules; a
 * host that asks replaces the unattended gate with its own, see withGate).
 */
import { loadHookModules, type Hooks } from "../agent/index.ts";
import { claudePermissionMode, unattendedGate, type SessionPermissions } from "../cli/approval.ts";
import type { Setup } from "../setup/settings-files.ts";
import type { ShellHooks } from "../setup/shell-hooks.ts";
import { ConfigError } from "./errors.ts";
import type { Settings } from "./settings.ts";

export interface SessionHooks {
  hooks: Hooks[];
  /** Permission rules and what the shell hooks decided, for the gate of whichever host asks. */
  permissions: SessionPermissions;
  /** The settings' shell hooks, when there are any: a session's events go to `observe`. */
  shellHooks?: ShellHooks;
}

export interface HookSources {
  cwd: string;
  settings: Settings;
  /** The settings files read (a broken hook module's error names them). */
  files: string[];
  /** What the settings files bring: permission rules and shell hooks. */
  setup: Pick<Setup, "rules" | "hooks">;
  /** The variables shell hooks see. */
  env: Record<string, string | undefined>;
  /** One line of diagnostics (a shell hook's failure). */
  warn(line: string): void;
}

export async function sessionHooks(from: HookSources): Promise<SessionHooks> {
  const { settings, cwd } = from;
  const moduleHooks =
    Array.isArray(settings.hooks) && settings.hooks.length
      ? await loadSettingsHooks(settings.hooks, cwd, from.files)
      : [];
  const permissions: SessionPermissions = { rules: from.setup.rules, cwd, hookDecisions: new WeakMap() };
  // The shell-hook runner loads only when the settings have hooks.
  const shellHooks = Object.keys(from.setup.hooks).length
    ? new (await import("../setup/shell-hooks.ts")).ShellHooks({
        config: from.setup.hooks,
        cwd,
        env: from.env,
        permissionMode: () => claudePermissionMode(permissions.mode?.()),
        report: (line) => from.warn(`gong: ${line}`),
        decisions: permissions.hookDecisions,
      })
    : undefined;
  permissions.hookEvents = shellHooks;
  const hooks: Hooks[] = [...moduleHooks, ...(shellHooks ? [shellHooks.hooks] : []), unattendedGate(permissions)];
  return { hooks, permissions, shellHooks };
}

/** Hook modules named in settings, loaded once for every session the host opens; a broken one is a configuration error. */
async function loadSettingsHooks(paths: string[], cwd: string, files: string[]): Promise<Hooks[]> {
  try {
    return await loadHookModules(paths, cwd);
  } catch (e) {
    throw new ConfigError(`Invalid "hooks" in settings (${files.join(", ")}): ${(e as Error).message}`);
  }
}
