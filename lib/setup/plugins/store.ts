/**
 * Where plugins live under gong's home, in Claude Code's layout:
 *
 *   $GONG_HOME/plugins/known_marketplaces.json   name → { source, installLocation, lastUpdated, commit }
 *   $GONG_HOME/plugins/installed_plugins.json    { version: 1, plugins: { "name@marketplace": { version,
 *                                                   installedAt, lastUpdated, installPath, gitCommitSha } } }
 *   $GONG_HOME/plugins/marketplaces/<name>/       a cloned marketplace
 *   $GONG_HOME/plugins/cache/<marketplace>/<plugin>/<commit or version>/   an installed plugin
 *   $GONG_HOME/plugins/data/<name-marketplace>/   the plugin's own data (${CLAUDE_PLUGIN_DATA})
 *
 * Both lists are written whole, atomically; a list that does not parse is an error naming it
 * (gong never overwrites what it cannot read).
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { writeFileAtomicSync } from "../../temp-files.ts";
import { gongHome } from "../../store/paths.ts";
import { MarketplaceSourceSchema, parseJsonAs, type MarketplaceSource } from "./schema.ts";

export class PluginError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PluginError";
  }
}

const KnownSchema = v.record(
  v.string(),
  v.looseObject({
    source: MarketplaceSourceSchema,
    installLocation: v.string(),
    lastUpdated: v.string(),
    commit: v.optional(v.string()),
  }),
);
export type KnownMarketplace = v.InferOutput<typeof KnownSchema>[string];

const InstalledSchema = v.looseObject({
  version: v.literal(1),
  plugins: v.record(
    v.string(),
    v.looseObject({
      version: v.string(),
      installedAt: v.string(),
      lastUpdated: v.optional(v.string()),
      installPath: v.string(),
      gitCommitSha: v.optional(v.string()),
    }),
  ),
});
export type InstalledPlugin = v.InferOutput<typeof InstalledSchema>["plugins"][string];

/** The plugin folders under one gong home. */
export class PluginHome {
  readonly root: string;
  constructor(home = gongHome()) {
    this.root = join(home, "plugins");
  }

  get knownFile(): string {
    return join(this.root, "known_marketplaces.json");
  }
  get installedFile(): string {
    return join(this.root, "installed_plugins.json");
  }
  get marketplaces(): string {
    return join(this.root, "marketplaces");
  }
  cacheOf(marketplace: string, plugin: string): string {
    return join(this.root, "cache", marketplace, plugin);
  }
  /** The data folder of a plugin (Claude Code's ${CLAUDE_PLUGIN_DATA}); made where a hook or server may use it. */
  dataOf(id: string): string {
    return join(this.root, "data", id.replace(/[^A-Za-z0-9_-]/g, "-"));
  }

  knownMarketplaces(): Record<string, KnownMarketplace> {
    return readList(this.knownFile, KnownSchema, {});
  }
  saveKnownMarketplaces(list: Record<string, KnownMarketplace>): void {
    writeList(this.knownFile, list);
  }
  installedPlugins(): Record<string, InstalledPlugin> {
    return readList(this.installedFile, InstalledSchema, { version: 1 as const, plugins: {} }).plugins;
  }
  saveInstalledPlugins(plugins: Record<string, InstalledPlugin>): void {
    writeList(this.installedFile, { version: 1, plugins });
  }
}

function readList<T>(file: string, schema: v.GenericSchema<unknown, T>, empty: T): T {
  if (!existsSync(file)) return empty;
  const read = parseJsonAs(schema, readFileSync(file, "utf8"));
  if ("problem" in read) throw new PluginError(`${file} ${read.problem}; fix or remove it.`);
  return read.value;
}

function writeList(file: string, value: unknown): void {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileAtomicSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** A source as the user would write it: `github obra/superpowers`, `git https://…`, `directory ./m`. */
export function describeSource(source: MarketplaceSource): string {
  const s = source as Record<string, unknown>;
  const where = s.repo ?? s.url ?? s.path ?? s.package ?? "";
  const ref = typeof s.ref === "string" ? `#${s.ref}` : "";
  return `${source.source}${where ? ` ${String(where)}` : ""}${ref}`;
}
