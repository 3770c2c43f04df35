/**
 * What a Claude Code user's settings bring: permission rules, shell hooks and `env`, read from
 * `~/.gong/settings.json`, `~/.claude/settings.json`, `.gong/settings.json`,
 * `.claude/settings.json`, `.claude/settings.local.json` and `.gong/settings.local.json` (where
 * gong's "always" answers go), in that order; answers remembered in `$GONG_HOME/approvals.json`
 * before rules existed load as the user's allow rules. The `.claude` files are read as Claude Code wrote
 * them: keys gong does not use (`enabledPlugins`, `statusLine`, …) are ignored, and a file that
 * does not parse is one line naming it — the session goes on. `"claudeSettings": false` in gong's
 * settings leaves the `.claude` files out.
 *
 * Trust: a project's hooks, `env` and allow rules run code or widen permissions, so they apply
 * only to a trusted project; its deny and ask rules only restrict and apply always. `disableAllHooks`
 * lowers the user's guard: the user's own files turn every shell hook off with it, a trusted
 * project only its own hooks, an untrusted project nothing. gong's own
 * `.gong/settings.json` is filtered by lib/core/trust.ts (which says so); the other project files
 * are filtered here, with one line in Claude Code's shape: "Ignoring 3 permissions.allow entries …".
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { mergeHookConfigs, parseHookConfig, type HookConfig } from "./hook-config.ts";
import { legacyApprovalRules } from "./legacy-approvals.ts";
import { BEHAVIORS, parseRule, PermissionRules, type PermissionRule } from "../gate/rules.ts";
import { READ_ONLY_COMMANDS } from "../gate/shell/read-only.ts";

export type SetupScope = "user" | "project";

/** One settings file's part in the setup, as read (before trust). */
export interface SetupFile {
  file: string;
  scope: SetupScope;
  /** Whether it is one of gong's own files (trust.ts filters those and names what it left out). */
  gong: boolean;
  permissions?: { allow?: unknown[]; ask?: unknown[]; deny?: unknown[] };
  hooks?: unknown;
  env?: Record<string, string>;
  readOnlyCommands?: string[];
  disableAllHooks?: boolean;
  /** Claude Code's `model` key (an alias such as `sonnet`, or a model id). */
  model?: string;
  /** Claude Code's plugin keys (lib/setup/plugins reads them). */
  enabledPlugins?: unknown;
  extraKnownMarketplaces?: unknown;
  /** Claude Code's `statusLine` (a command: a project's runs only in a trusted project). */
  statusLine?: unknown;
}

/** The status line command the files set (the last file setting one wins), and the file it came from. */
export interface StatusLineSource {
  command: string;
  refreshInterval?: number;
  padding?: number;
  file: string;
}

export interface Setup {
  rules: PermissionRules;
  hooks: HookConfig;
  /** The user's `disableAllHooks`: every hook is off, a plugin's too. */
  hooksOff: boolean;
  /** Each file's plugin keys, in the order read (user files first); trust is applied where they are used. */
  pluginLayers: Array<Pick<SetupFile, "file" | "scope" | "enabledPlugins" | "extraKnownMarketplaces">>;
  /** Variables for the session (later files win). */
  env: Record<string, string>;
  /** One line each for stderr: files that did not parse, rules that did not, what trust left out. */
  notices: string[];
  /** The file project "always" answers are written to, and the user's. */
  ruleFiles: Record<SetupScope, string>;
  /** The `model` of Claude Code's settings (the last file that sets one), and where it was set. */
  model?: { name: string; source: string };
  statusLine?: StatusLineSource;
}

export interface SetupOptions {
  cwd: string;
  /** gong's home ($GONG_HOME or ~/.gong). */
  gongHome: string;
  /** The user's home, for ~/.claude (tests point it elsewhere). */
  home?: string;
  /** gong's own two files as lib/core/settings.ts read them (validated there). */
  gongFiles: SetupFile[];
  /** false leaves the .claude files out. */
  claudeSettings?: boolean;
  trusted: boolean;
  untrustedHint: string;
  /** Variables a project's `env` may not override (a base URL or key the user set): kept, with a notice. */
  userOwned?(name: string): boolean;
  /** Settings in Claude Code's format from the command line (`--settings`, `--allowedTools`), read last, as the user's. */
  flagSettings?: { source: string; settings: Record<string, unknown> }[];
}

/** Reads every file, applies trust, and builds the rules and hooks. */
export function loadSetup(options: SetupOptions): Setup {
  const notices: string[] = [];
  const home = options.home ?? homedir();
  const files = setupFiles(options, home, notices);
  const rules: PermissionRule[] = [];
  const hooks: Record<SetupScope, HookConfig> = { user: {}, project: {} };
  const hooksOff: Record<SetupScope, boolean> = { user: false, project: false };
  const env: Record<string, string> = {};
  const readOnly = [...READ_ONLY_COMMANDS];
  let model: Setup["model"];
  let statusLine: StatusLineSource | undefined;
  for (const f of files) {
    if (f.model !== undefined && !f.gong) model = { name: f.model, source: f.file };
    const untrusted = f.scope === "project" && !options.trusted;
    const ignored: string[] = [];
    // A project's rules start at the project, the user's at home (`/x` in a pattern).
    const base = f.scope === "project" ? options.cwd : home;
    for (const behavior of BEHAVIORS) {
      const list = f.permissions?.[behavior];
      if (list === undefined) continue;
      if (!Array.isArray(list)) {
        notices.push(`${f.file}: permissions.${behavior} must be a list of rules; it was skipped.`);
        continue;
      }
      if (behavior === "allow" && untrusted) {
        if (list.length > 0)
          ignored.push(`${list.length} permissions.allow ${list.length === 1 ? "entry" : "entries"}`);
        continue;
      }
      for (const raw of list) {
        const rule = parseRule(raw, behavior, f.file, base);
        if ("error" in rule) notices.push(`${f.file}: permissions.${behavior}: ${rule.error}; the rule was skipped.`);
        else rules.push(rule);
      }
    }
    if (f.hooks !== undefined && !Array.isArray(f.hooks)) {
      if (untrusted) ignored.push("hooks");
      else hooks[f.scope] = mergeHookConfigs(hooks[f.scope], parseHookConfig(f.hooks, f.file, notices));
    }
    if (f.env !== undefined) {
      if (untrusted) ignored.push("env");
      else {
        const values = stringValues(f.env, f.file, notices);
        for (const [name, value] of Object.entries(values)) {
          if (f.scope === "project" && options.userOwned?.(name))
            notices.push(`${f.file}: env.${name} is ignored: your own ${name} wins over a project's.`);
          else env[name] = value;
        }
      }
    }
    if (f.readOnlyCommands && !untrusted) readOnly.push(...f.readOnlyCommands);
    // An untrusted project's status line command never runs; only the shell shows one, and its trust question names it.
    if (f.statusLine !== undefined && !untrusted)
      statusLine = statusLineOf(f.statusLine, f.file, notices) ?? statusLine;
    if (f.disableAllHooks === true) {
      if (untrusted) ignored.push("disableAllHooks");
      else hooksOff[f.scope] = true;
    }
    // A project asks for plugins only once trusted (lib/setup/plugins applies it; the line is said here).
    if (untrusted && asksForPlugins(f))
      ignored.push(...(["enabledPlugins", "extraKnownMarketplaces"] as const).filter((key) => f[key] !== undefined));
    // gong's own project file: trust.ts already said what it left out.
    if (ignored.length > 0 && !f.gong)
      notices.push(`Ignoring ${ignored.join(", ")} from ${f.file}: ${options.untrustedHint}`);
  }
  return {
    rules: new PermissionRules(rules, options.cwd, readOnly),
    // The user's switch turns every hook off; a project's, only the project's own.
    hooks: hooksOff.user ? {} : mergeHookConfigs(hooks.user, hooksOff.project ? {} : hooks.project),
    hooksOff: hooksOff.user,
    pluginLayers: files
      .filter((f) => f.enabledPlugins !== undefined || f.extraKnownMarketplaces !== undefined)
      .map(({ file, scope, enabledPlugins, extraKnownMarketplaces }) => ({
        file,
        scope,
        enabledPlugins,
        extraKnownMarketplaces,
      })),
    env,
    notices,
    ruleFiles: {
      project: join(options.cwd, ".gong", "settings.local.json"),
      user: join(options.gongHome, "settings.json"),
    },
    model,
    ...(statusLine ? { statusLine } : {}),
  };
}

/** A `statusLine` value as Claude Code takes it: `{"type": "command", "command": "…"}`; anything else is said and skipped. */
function statusLineOf(value: unknown, file: string, notices: string[]): StatusLineSource | undefined {
  const o = value as { type?: unknown; command?: unknown; refreshInterval?: unknown; padding?: unknown } | null;
  if (
    typeof o !== "object" ||
    o === null ||
    typeof o.command !== "string" ||
    !o.command.trim() ||
    (o.type !== undefined && o.type !== "command")
  ) {
    notices.push(`${file}: statusLine must be {"type": "command", "command": "…"}; it was skipped.`);
    return undefined;
  }
  return {
    command: o.command,
    file,
    ...(typeof o.refreshInterval === "number" && o.refreshInterval >= 1 ? { refreshInterval: o.refreshInterval } : {}),
    ...(typeof o.padding === "number" ? { padding: o.padding } : {}),
  };
}

function setupFiles(options: SetupOptions, home: string, notices: string[]): SetupFile[] {
  const gongUser = options.gongFiles.filter((f) => f.scope === "user");
  const gongProject = options.gongFiles.filter((f) => f.scope === "project");
  const claude = options.claudeSettings !== false;
  const read = (file: string, scope: SetupScope) => readForeignFile(file, scope, notices);
  const legacy = legacyApprovalRules(options.gongHome, options.cwd);
  return [
    ...gongUser,
    ...(legacy.rules.length
      ? [{ file: legacy.file, scope: "user" as const, gong: true, permissions: { allow: legacy.rules } }]
      : []),
    ...(claude ? read(join(home, ".claude", "settings.json"), "user") : []),
    ...gongProject,
    ...(claude ? read(join(options.cwd, ".claude", "settings.json"), "project") : []),
    ...(claude ? read(join(options.cwd, ".claude", "settings.local.json"), "project") : []),
    ...read(join(options.cwd, ".gong", "settings.local.json"), "project"),
    ...(options.flagSettings ?? []).map((f) => foreignSettings(f.settings, f.source, "user")),
  ].filter((f, i, all) => all.findIndex((g) => g.file === f.file) === i);
}

/** A Claude Code settings file (or gong's local one): only the keys the setup uses, leniently. */
function readForeignFile(file: string, scope: SetupScope, notices: string[]): SetupFile[] {
  if (!existsSync(file)) return [];
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    notices.push(`${file} is not valid JSON (${(e as Error).message}); it was not read.`);
    return [];
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    notices.push(`${file} does not hold a JSON object; it was not read.`);
    return [];
  }
  return [foreignSettings(raw as Record<string, unknown>, file, scope)];
}

/** The keys the setup uses of a settings object in Claude Code's format (a file's, or a flag's). */
function foreignSettings(o: Record<string, unknown>, file: string, scope: SetupScope): SetupFile {
  const permissions =
    typeof o.permissions === "object" && o.permissions !== null
      ? (o.permissions as SetupFile["permissions"])
      : undefined;
  const env =
    typeof o.env === "object" && o.env !== null && !Array.isArray(o.env)
      ? (o.env as Record<string, string>)
      : undefined;
  return {
    file,
    scope,
    gong: false,
    permissions,
    hooks: o.hooks,
    env,
    disableAllHooks: o.disableAllHooks === true ? true : undefined,
    enabledPlugins: o.enabledPlugins,
    extraKnownMarketplaces: o.extraKnownMarketplaces,
    statusLine: o.statusLine,
    model: typeof o.model === "string" && o.model.trim() ? o.model.trim() : undefined,
  };
}

/** Whether a file turns a plugin on or names a marketplace (what a project may do only once trusted). */
export function asksForPlugins(f: Pick<SetupFile, "enabledPlugins" | "extraKnownMarketplaces">): boolean {
  const on = (v: unknown) => v === true || Array.isArray(v);
  const enabled =
    typeof f.enabledPlugins === "object" && f.enabledPlugins !== null && Object.values(f.enabledPlugins).some(on);
  const marketplaces =
    typeof f.extraKnownMarketplaces === "object" &&
    f.extraKnownMarketplaces !== null &&
    Object.keys(f.extraKnownMarketplaces).length > 0;
  return enabled || marketplaces;
}

function stringValues(env: Record<string, unknown>, file: string, notices: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (typeof v === "string") out[k] = v;
    else if (typeof v === "number" || typeof v === "boolean") out[k] = String(v);
    else notices.push(`${file}: env.${k} must be a string; it was not set.`);
  }
  return out;
}

/** What the project's `.claude` files and `.gong/settings.local.json` ask that needs trust, for the question the shell asks once. */
export function projectTrustRequests(cwd: string, claudeSettings: boolean | undefined): string[] {
  const out: string[] = [];
  const claude =
    claudeSettings === false
      ? []
      : [join(cwd, ".claude", "settings.json"), join(cwd, ".claude", "settings.local.json")];
  for (const file of [...claude, join(cwd, ".gong", "settings.local.json")]) {
    const [f] = readForeignFile(file, "project", []);
    if (!f) continue;
    const keys = [
      ...(f.hooks !== undefined ? ["hooks"] : []),
      ...(f.permissions?.allow?.length ? ["permissions.allow"] : []),
      ...(f.env ? ["env"] : []),
      ...(f.disableAllHooks ? ["disableAllHooks"] : []),
      ...(asksForPlugins(f) ? ["enabledPlugins"] : []),
      ...(f.statusLine !== undefined ? ["statusLine"] : []),
    ];
    if (keys.length > 0) out.push(`${file} sets ${keys.join(", ")}`);
  }
  return out;
}
