/**
 * Installing a plugin of a known marketplace: its entry's source (a folder of the marketplace, a
 * GitHub repository, a git URL, a folder of a git repository) is copied into a staging folder,
 * read whole (a manifest that does not parse, a path it names that is missing or leads out of the
 * folder, a link out of it: nothing is installed), and renamed into
 * `$GONG_HOME/plugins/cache/<marketplace>/<plugin>/<commit>/`. The installed list records the
 * commit; an update installs the newest one beside it and removes the old folder after.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { statOf } from "../places.ts";
import { PLUGIN_ID, type MarketplaceEntry } from "./schema.ts";
import { readPlugin, type PluginParts } from "./contents.ts";
import { copyFolder, insideRoot, installFolder } from "./folders.ts";
import { clone, githubUrl, headCommit } from "./git.ts";
import { pluginNames, viewMarketplace, type MarketplaceView } from "./marketplaces.ts";
import { PluginError, type InstalledPlugin, type PluginHome } from "./store.ts";

/** `name@marketplace` split; `name` alone is looked up in every known marketplace. */
export function resolvePluginId(home: PluginHome, text: string): { name: string; marketplace: string } {
  const m = PLUGIN_ID.exec(text);
  if (m) return { name: m[1], marketplace: m[2] };
  if (!/^[A-Za-z0-9][-A-Za-z0-9._]*$/.test(text))
    throw new PluginError(
      `'${text}' is not a plugin: write NAME@MARKETPLACE (gong plugin list shows the marketplaces).`,
    );
  const holders = Object.keys(home.knownMarketplaces()).filter((name) =>
    viewMarketplace(home, name).manifest.plugins.some((p) => p.name === text),
  );
  if (holders.length === 1) return { name: text, marketplace: holders[0] };
  throw new PluginError(
    holders.length === 0
      ? `no known marketplace has a plugin named '${text}' (gong plugin marketplace add SOURCE adds one).`
      : `'${text}' is in more than one marketplace (${holders.join(", ")}): write ${text}@MARKETPLACE.`,
  );
}

export interface Installed {
  id: string;
  record: InstalledPlugin;
  parts: PluginParts;
}

/** Installs (or moves to the marketplace's current commit) `name@marketplace`. */
export async function installPlugin(home: PluginHome, name: string, marketplace: string): Promise<Installed> {
  const id = `${name}@${marketplace}`;
  const view = viewMarketplace(home, marketplace);
  const entry = view.manifest.plugins.find((p) => p.name === name);
  if (!entry)
    throw new PluginError(
      `marketplace '${marketplace}' has no plugin named '${name}'${view.manifest.plugins.length ? ` (it has ${pluginNames(view.manifest)})` : ""}.`,
    );
  const fetched = await fetchPlugin(view, entry, id);
  try {
    const before = home.installedPlugins()[id];
    const version = entry.version ?? "unknown";
    const dest = join(home.cacheOf(marketplace, name), fetched.commit?.slice(0, 12) ?? version);
    let parts: PluginParts | undefined;
    await installFolder(dest, async (staging) => {
      copyFolder(fetched.folder, staging, `plugin ${id}`);
      parts = await readPlugin({ id, name, root: staging, data: home.dataOf(id) });
      if (parts.fatal.length > 0) throw new PluginError(`${parts.fatal[0]} Nothing was installed.`);
    });
    // The parts were read in the staging folder: read again where they now are.
    parts = await readPlugin({ id, name, root: dest, data: home.dataOf(id) });
    const now = new Date().toISOString();
    const record: InstalledPlugin = {
      version: parts.manifest?.version ?? version,
      installedAt: before?.installedAt ?? now,
      lastUpdated: now,
      installPath: dest,
      ...(fetched.commit ? { gitCommitSha: fetched.commit } : {}),
    };
    home.saveInstalledPlugins({ ...home.installedPlugins(), [id]: record });
    if (before && before.installPath !== dest) rmSync(before.installPath, { recursive: true, force: true });
    return { id, record, parts };
  } finally {
    fetched.cleanup();
  }
}

/** Removes an installed plugin's folder and record (its data folder is kept, as Claude Code keeps it). */
export function uninstallPlugin(home: PluginHome, id: string): InstalledPlugin {
  const list = home.installedPlugins();
  const record = list[id];
  if (!record) throw new PluginError(`${id} is not installed (gong plugin list shows what is).`);
  delete list[id];
  home.saveInstalledPlugins(list);
  rmSync(record.installPath, { recursive: true, force: true });
  return record;
}

/** The plugin's folder as its source gives it (maybe a temporary clone), and the commit it is at. */
async function fetchPlugin(
  view: MarketplaceView,
  entry: MarketplaceEntry,
  id: string,
): Promise<{ folder: string; commit?: string; cleanup(): void }> {
  const { source } = entry;
  if (typeof source === "string") {
    const base = view.manifest.metadata?.pluginRoot;
    const relative = base && !source.startsWith("./") ? join(base, source) : source;
    const folder = insideRoot(view.root, relative);
    if (!folder)
      throw new PluginError(
        `plugin ${id}: its source ${source} leads outside the marketplace's folder (${view.root}); nothing was installed.`,
      );
    if (!statOf(folder)?.isDirectory())
      throw new PluginError(
        `plugin ${id}: its source ${source} is not a folder of the marketplace; nothing was installed.`,
      );
    return { folder, commit: view.known.commit, cleanup() {} };
  }
  if (source.source === "npm" || source.source === "pip")
    throw new PluginError(
      `plugin ${id} comes from a ${source.source} package; gong installs plugins from git repositories and folders only.`,
    );
  const git = source as { source: string; repo?: string; url?: string; path?: string; ref?: string; sha?: string };
  const temp = mkdtempSync(join(tmpdir(), "gong-plugin-"));
  const cleanup = () => rmSync(temp, { recursive: true, force: true });
  try {
    const repo = join(temp, "repo");
    // git-subdir's url may be GitHub's owner/repo shorthand too.
    const where = git.repo ?? git.url ?? "";
    const url = git.repo || /^[A-Za-z0-9][\w.-]*\/[\w.-]+$/.test(where) ? githubUrl(where) : where;
    await clone(url, repo, { ref: git.ref, sha: git.sha });
    const commit = await headCommit(repo);
    if (git.source !== "git-subdir") return { folder: repo, commit, cleanup };
    const folder = insideRoot(repo, git.path ?? ".");
    if (!folder)
      throw new PluginError(`plugin ${id}: its path ${git.path} leads outside its repository; nothing was installed.`);
    return { folder, commit, cleanup };
  } catch (e) {
    cleanup();
    throw e instanceof PluginError
      ? e
      : new PluginError(`plugin ${id}: ${(e as Error).message}; nothing was installed.`);
  }
}
