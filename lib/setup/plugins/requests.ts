/**
 * What the settings files ask for, as Claude Code reads `enabledPlugins` and
 * `extraKnownMarketplaces`: every file gong reads (user, then project, then local) may turn a
 * plugin on (`true`, or a list of version constraints) or off (`false`), the later file winning; a
 * project's files may ask only once the project is trusted (their `false` always holds: it only
 * takes away). A plugin turned on that is not installed, and the marketplace it needs, are
 * requests: installed when the user confirms (or the host was told to), else named in one line.
 */
import { describeSource, PluginError, type PluginHome } from "./store.ts";
import { addMarketplace } from "./marketplaces.ts";
import { installPlugin } from "./install.ts";
import { checkAs, KnownMarketplaceSchema, PLUGIN_ID, type MarketplaceSource } from "./schema.ts";

/** One settings file's plugin keys, as read (before trust). */
export interface PluginLayer {
  file: string;
  scope: "user" | "project";
  enabledPlugins?: unknown;
  extraKnownMarketplaces?: unknown;
}

export interface Enabled {
  on: boolean;
  /** The file whose value holds. */
  file: string;
  /** A project's `true` that does not hold: the project is not trusted. */
  untrusted?: boolean;
}

/** Each plugin id's state, the later file winning; lines for values that are not a state. */
export function enabledPlugins(
  layers: readonly PluginLayer[],
  trusted: boolean,
  notices: string[],
): Map<string, Enabled> {
  const state = new Map<string, Enabled>();
  for (const layer of layers) {
    const map = layer.enabledPlugins;
    if (map === undefined) continue;
    if (!isObject(map)) {
      notices.push(
        `${layer.file}: "enabledPlugins" must be an object of "name@marketplace": true or false; it was not read.`,
      );
      continue;
    }
    for (const [id, value] of Object.entries(map)) {
      if (!PLUGIN_ID.test(id)) {
        notices.push(`${layer.file}: enabledPlugins names '${id}', which is not name@marketplace; it was skipped.`);
        continue;
      }
      const on = value === true || Array.isArray(value);
      if (!on && value !== false) {
        notices.push(`${layer.file}: enabledPlugins.${id} must be true or false; it was skipped.`);
        continue;
      }
      // An untrusted project may turn plugins off, never on (its settings' notice says what was left out).
      if (on && layer.scope === "project" && !trusted) {
        if (!state.has(id)) state.set(id, { on: false, file: layer.file, untrusted: true });
        continue;
      }
      state.set(id, { on, file: layer.file });
    }
  }
  return state;
}

/** Marketplaces the settings name, by name (a project's only when it is trusted). */
export function declaredMarketplaces(
  layers: readonly PluginLayer[],
  trusted: boolean,
  notices: string[],
): Map<string, { source: MarketplaceSource; file: string }> {
  const out = new Map<string, { source: MarketplaceSource; file: string }>();
  for (const layer of layers) {
    const map = layer.extraKnownMarketplaces;
    if (map === undefined || (layer.scope === "project" && !trusted)) continue;
    if (!isObject(map)) {
      notices.push(`${layer.file}: "extraKnownMarketplaces" must be an object of marketplaces; it was not read.`);
      continue;
    }
    for (const [name, value] of Object.entries(map)) {
      const checked = checkAs(KnownMarketplaceSchema, value);
      if ("problem" in checked)
        notices.push(`${layer.file}: extraKnownMarketplaces.${name}: ${checked.problem}; it was skipped.`);
      else out.set(name, { source: checked.value.source, file: layer.file });
    }
  }
  return out;
}

export interface InstallRequest {
  home: PluginHome;
  /** Plugins turned on, by id. */
  enabled: Map<string, Enabled>;
  declared: Map<string, { source: MarketplaceSource; file: string }>;
  /** Asks the person at the terminal; absent where no one can answer. */
  confirm?(question: string): Promise<boolean>;
  /** Install without asking (the host's flag). */
  install?: boolean;
  notices: string[];
}

/** Installs the plugins turned on but missing (and the marketplaces they need) once confirmed; else says how. */
export async function installRequested(request: InstallRequest): Promise<void> {
  const { home, notices } = request;
  const installed = home.installedPlugins();
  const known = home.knownMarketplaces();
  const missing = [...request.enabled].filter(([id, e]) => e.on && !installed[id]);
  if (missing.length === 0) return;
  const toAdd = new Map<string, MarketplaceSource>();
  const plugins: Array<[string, string, Enabled]> = [];
  for (const [id, e] of missing) {
    const [, name, marketplace] = PLUGIN_ID.exec(id)!;
    if (!known[marketplace]) {
      const declared = request.declared.get(marketplace);
      if (!declared) {
        notices.push(
          `${e.file} turns on ${id}, but no marketplace '${marketplace}' is known: add it with 'gong plugin marketplace add SOURCE', then 'gong plugin install ${id}'.`,
        );
        continue;
      }
      toAdd.set(marketplace, declared.source);
    }
    plugins.push([name, marketplace, e]);
  }
  if (plugins.length === 0) return;
  const what = [
    ...[...toAdd].map(([name, source]) => `the marketplace ${name} (${describeSource(source)})`),
    ...plugins.map(([name, marketplace]) => `the plugin ${name}@${marketplace}`),
  ].join(", ");
  const files = [...new Set(plugins.map(([, , e]) => e.file))].join(", ");
  const yes =
    request.install ||
    (request.confirm !== undefined &&
      (await request.confirm(
        `${files} ${plugins.length > 1 ? "ask" : "asks"} for ${what}, not installed yet. Install now? [y/N] `,
      )));
  if (!yes) {
    const ids = plugins.map(([name, marketplace]) => `${name}@${marketplace}`);
    notices.push(
      `${files} turns on ${ids.join(", ")}, not installed: run 'gong plugin install ${ids[0]}'${ids.length > 1 ? " (and the others)" : ""}, or start gong with --install-plugins.`,
    );
    return;
  }
  const failed = new Set<string>();
  for (const [name, source] of toAdd) {
    try {
      await addMarketplace(home, source, name);
    } catch (e) {
      failed.add(name);
      notices.push(messageOf(e));
    }
  }
  for (const [name, marketplace] of plugins) {
    if (failed.has(marketplace)) continue;
    try {
      const done = await installPlugin(home, name, marketplace);
      notices.push(`installed ${done.id} ${shortCommit(done.record.gitCommitSha, done.record.version)}.`);
    } catch (e) {
      notices.push(messageOf(e));
    }
  }
}

export function shortCommit(commit: string | undefined, version: string): string {
  return commit ? `at ${commit.slice(0, 12)}` : `version ${version}`;
}

function messageOf(e: unknown): string {
  if (e instanceof PluginError) return e.message;
  return `plugins: ${(e as Error).message}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
