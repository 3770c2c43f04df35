/**
 * Trust for project files. A repository's `.gong/settings.json` is written by whoever wrote the
 * repository: the settings in it that run code (`hooks`, `mcpServers`), decide where the user's
 * keys go (`providers`), loosen what commands may see and touch (`envPolicy`, `envAllow`,
 * `allowedRoots`, `sandbox` — a project could turn it off or widen it) or stop gong from asking
 * before it acts (`approval`) take effect only for a trusted project.
 *
 * A project is trusted when gong runs with `--trust`, when the global settings list it (or a
 * directory above it) under `trustedProjects`, or when the user said yes once in the interactive
 * shell — remembered in `$GONG_HOME/trusted.json`. The global settings are the user's own and are
 * never filtered. Whatever the trust, a project never overrides a base URL the user set in their
 * own environment (`ANTHROPIC_BASE_URL`, …).
 */
import { existsSync, mkdirSync, readFileSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { isInside } from "../paths.ts";
import { findProvider } from "../llm/providers.ts";
import { writeFileAtomicSync } from "../temp-files.ts";
import { gongHome } from "../store/paths.ts";
import { asksForPlugins, projectTrustRequests } from "../setup/settings-files.ts";
import { mergeSettings, type LoadedSettings, type Settings } from "./settings.ts";

/** Project settings keys that need trust: whatever runs code, redirects keys or lowers the user's guard. */
export const TRUST_KEYS = [
  "hooks",
  "mcpServers",
  "providers",
  "envPolicy",
  "envAllow",
  "allowedRoots",
  "sandbox",
  "approval",
  "env",
  "readOnlyCommands",
  "shell",
  "telemetry",
  "disableAllHooks",
] as const;

export interface TrustOptions {
  /** `--trust` was given. */
  flag?: boolean;
  /** The global settings (their `trustedProjects`). */
  global?: Settings;
  /** Where trusted.json lives; default $GONG_HOME. */
  home?: string;
}

/** Whether `root`'s project settings may run code and redirect credentials. */
export function isProjectTrusted(root: string, options: TrustOptions = {}): boolean {
  if (options.flag) return true;
  const project = canonical(root);
  const listed = (options.global?.trustedProjects ?? []).map((p) => canonical(expandHome(p)));
  if (listed.some((dir) => isInside(project, dir))) return true;
  return readTrusted(options.home).includes(project);
}

/** Remembers the user's yes for `root` (temp file + rename: never a half-written list). */
export function rememberTrust(root: string, home = gongHome()): void {
  const file = trustFile(home);
  const list = readTrusted(home);
  const project = canonical(root);
  if (list.includes(project)) return;
  mkdirSync(dirname(file), { recursive: true });
  writeFileAtomicSync(file, `${JSON.stringify({ trusted: [...list, project] }, null, 2)}\n`, { mode: 0o600 });
}

/** The trust-requiring keys a project layer sets, as the user would name them (`providers.anthropic.baseUrl`). */
export function trustRequests(project: Settings | undefined): string[] {
  if (!project) return [];
  const found: string[] = [];
  for (const key of TRUST_KEYS) {
    const value = project[key as keyof Settings];
    if (value === undefined) continue;
    if (key === "providers") {
      for (const [name, p] of Object.entries(project.providers ?? {}))
        for (const field of Object.keys(p)) found.push(`providers.${name}.${field}`);
    } else found.push(key);
  }
  // Allow rules widen what runs unasked; deny and ask rules only restrict, so they need no trust.
  if (project.permissions?.allow?.length) found.push("permissions.allow");
  // Plugins run code: a project may ask for them (lib/setup/plugins installs and runs them once it is trusted).
  if (asksForPlugins(project)) found.push("enabledPlugins");
  return found;
}

export interface TrustedSettings {
  settings: Settings;
  /** One-line notices for stderr: what was ignored and why. */
  notices: string[];
}

/**
 * The merged settings with the project's trust-requiring keys left out unless `trusted`, and any
 * project base URL left out where the user's environment sets that provider's own.
 */
export function applyTrust(
  loaded: LoadedSettings,
  trusted: boolean,
  env: Record<string, string | undefined>,
): TrustedSettings {
  const notices: string[] = [];
  let merged: Settings = {};
  for (const layer of loaded.layers) {
    let settings = layer.settings;
    if (layer.scope === "project") {
      // A project cannot trust itself.
      settings = omit(settings, ["trustedProjects"]);
      const requests = trustRequests(settings);
      if (!trusted && requests.length > 0) {
        settings = omit(settings, TRUST_KEYS);
        if (settings.permissions?.allow)
          settings = { ...settings, permissions: { ...settings.permissions, allow: undefined } };
        notices.push(`ignoring ${requests.join(", ")} from ${layer.file}: ${untrustedHint()}`);
      }
      const kept = keepUserBaseUrls(settings, env);
      settings = kept.settings;
      for (const name of kept.ignored)
        notices.push(
          `ignoring providers.${name}.baseUrl from ${layer.file}: ${findProvider(name)?.baseUrlEnv} is set in your environment and wins.`,
        );
    }
    merged = mergeSettings(merged, settings);
  }
  return { settings: merged, notices };
}

/** Why a project's settings were left out, and how to trust it: the end of every such notice. */
export function untrustedHint(): string {
  return `the project is not trusted (run with --trust, or list it under "trustedProjects" in ${join(gongHome(), "settings.json")}).`;
}

/** The global layer of loaded settings (empty when there is no global file). */
export function globalSettings(loaded: LoadedSettings): Settings {
  return loaded.layers.find((l) => l.scope === "global")?.settings ?? {};
}

export function projectSettings(loaded: LoadedSettings): { file: string; settings: Settings } | undefined {
  return loaded.layers.find((l) => l.scope === "project");
}

function keepUserBaseUrls(
  settings: Settings,
  env: Record<string, string | undefined>,
): { settings: Settings; ignored: string[] } {
  const ignored: string[] = [];
  if (!settings.providers) return { settings, ignored };
  const providers: NonNullable<Settings["providers"]> = {};
  for (const [name, p] of Object.entries(settings.providers)) {
    const variable = findProvider(name)?.baseUrlEnv;
    if (p.baseUrl && variable && env[variable]) {
      ignored.push(name);
      const { baseUrl: _dropped, ...rest } = p;
      providers[name] = rest;
    } else providers[name] = p;
  }
  return { settings: { ...settings, providers }, ignored };
}

function trustFile(home = gongHome()): string {
  return join(home, "trusted.json");
}

function readTrusted(home?: string): string[] {
  const file = trustFile(home);
  if (!existsSync(file)) return [];
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as { trusted?: unknown };
    return Array.isArray(parsed.trusted) ? parsed.trusted.filter((p): p is string => typeof p === "string") : [];
  } catch {
    return []; // an unreadable list trusts nothing
  }
}

function omit(settings: Settings, keys: readonly string[]): Settings {
  return Object.fromEntries(Object.entries(settings).filter(([k]) => !keys.includes(k))) as Settings;
}

/** The real path (links resolved), or the absolute path when it cannot be resolved. */
export function canonical(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}

function expandHome(path: string): string {
  return path === "~" || path.startsWith("~/") ? join(homedir(), path.slice(1)) : path;
}

/** The settings a run goes by (`settings`), and in `notices` one line each for stderr: what trust left out of the project's. */
export interface TrustDecision extends TrustedSettings {
  /** Whether project-level settings that run code or redirect credentials may take effect. */
  trusted: boolean;
  /** The settings files as read, before trust: which file set what. */
  loaded: LoadedSettings;
}

export interface TrustQuestion {
  /** The project root (the working directory). */
  cwd: string;
  /** `--trust`. */
  flag: boolean;
  /** The user's environment (their own base URLs win over the project's). */
  env: Record<string, string | undefined>;
  /** Puts the question to the person at the terminal (true: yes); absent where no one can answer. */
  ask?(question: string): Promise<boolean>;
}

/**
 * Trusted already (flag, global list, remembered)? Otherwise, when the project asks for something
 * that needs trust and someone can answer, ask once; a yes is remembered.
 */
export async function decideTrust(q: TrustQuestion, loaded: LoadedSettings): Promise<TrustDecision> {
  const trusted = await askIfNeeded(q, loaded);
  return { trusted, loaded, ...applyTrust(loaded, trusted, q.env) };
}

async function askIfNeeded(q: TrustQuestion, loaded: LoadedSettings): Promise<boolean> {
  if (isProjectTrusted(q.cwd, { flag: q.flag, global: globalSettings(loaded) })) return true;
  const project = projectSettings(loaded);
  const requests = trustRequests(project?.settings);
  // The project's .mcp.json starts servers, which is running code too.
  const mcpJson = join(q.cwd, ".mcp.json");
  const asks = [
    ...(project && requests.length > 0 ? [`${project.file} sets ${requests.join(", ")}`] : []),
    ...projectTrustRequests(q.cwd, loaded.settings.claudeSettings),
    ...(existsSync(mcpJson) ? [`${mcpJson} starts MCP servers`] : []),
  ];
  if (asks.length === 0 || !q.ask) return false;
  const trusted = await q.ask(
    `${asks.join("; ")}: settings that run code, decide where your API keys and files go, or ask you less.\n` +
      `Trust this project (${canonical(q.cwd)})? Your answer is remembered. [y/N] `,
  );
  if (trusted) rememberTrust(q.cwd);
  return trusted;
}
