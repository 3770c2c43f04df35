/**
 * Marketplaces, Claude Code's way: a git repository (GitHub's `owner/repo`, or any git URL) or a
 * local folder holding `.claude-plugin/marketplace.json`, or that file itself. A repository is
 * cloned under `$GONG_HOME/plugins/marketplaces/<name>/` (staged, then renamed: a clone that fails
 * leaves nothing); a local one is read where it is. The list of known marketplaces records each
 * one's source, folder and the commit it is at.
 */
import { existsSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { isInside } from "../../paths.ts";
import { readSetupFile } from "../places.ts";
import { stagingFolder } from "./folders.ts";
import { clone, githubUrl, headCommit, pull } from "./git.ts";
import { MarketplaceSchema, parseJsonAs, type Marketplace, type MarketplaceSource } from "./schema.ts";
import { describeSource, PluginError, type KnownMarketplace, type PluginHome } from "./store.ts";

export const MARKETPLACE_FILE = join(".claude-plugin", "marketplace.json");

/** A known marketplace, read. */
export interface MarketplaceView {
  name: string;
  known: KnownMarketplace;
  /** The folder relative plugin sources start from (the one holding `.claude-plugin/`). */
  root: string;
  manifest: Marketplace;
}

/**
 * What `gong plugin marketplace add` takes: a local folder or marketplace.json (when it exists),
 * `owner/repo` (GitHub), or a git URL; `#ref` after either names a branch or tag.
 */
export function parseMarketplaceSource(text: string, cwd: string): MarketplaceSource {
  const local = resolve(cwd, text);
  if (existsSync(local))
    return statSync(local).isDirectory() ? { source: "directory", path: local } : { source: "file", path: local };
  const [where, ref] = text.split("#", 2) as [string, string | undefined];
  const pinned = ref ? { ref } : {};
  if (/^[A-Za-z0-9][\w.-]*\/[\w.-]+$/.test(where) && !where.endsWith(".git"))
    return { source: "github", repo: where, ...pinned };
  if (/^(https?|ssh|git|file):\/\//.test(where) || /^[\w.-]+@[\w.-]+:/.test(where) || where.endsWith(".git"))
    return { source: "git", url: where, ...pinned };
  throw new PluginError(
    `'${text}' is not a marketplace source: give owner/repo (GitHub), a git URL, or a local folder holding ${MARKETPLACE_FILE}.`,
  );
}

/** A marketplace's plugins for a sentence: every name up to ten, else the first ten and how many more. */
export function pluginNames(manifest: Marketplace): string {
  const names = manifest.plugins.map((p) => p.name);
  return names.length > 10 ? `${names.slice(0, 10).join(", ")} and ${names.length - 10} more` : names.join(", ");
}

/** Reads the marketplace file of a folder; a PluginError names the file and what is wrong. */
export function readMarketplaceFile(file: string): Marketplace {
  const read = readSetupFile(file);
  if (typeof read === "string") throw new PluginError(`marketplace file ${file}: ${read}.`);
  const parsed = parseJsonAs(MarketplaceSchema, read.text);
  if ("problem" in parsed) throw new PluginError(`marketplace file ${file} ${parsed.problem}.`);
  return parsed.value;
}

/** The folder a marketplace's relative plugin sources start from, and its file. */
function locate(source: MarketplaceSource, folder: string): { root: string; file: string } {
  if (source.source === "file") {
    const file = folder;
    const dir = dirname(file);
    return { root: basename(dir) === ".claude-plugin" ? dirname(dir) : dir, file };
  }
  const custom = (source as { path?: string }).path;
  const file =
    source.source === "directory" ? join(folder, MARKETPLACE_FILE) : join(folder, custom ?? MARKETPLACE_FILE);
  if (!isInside(resolve(file), folder))
    throw new PluginError(`the marketplace path ${custom} leads outside the repository; nothing was added.`);
  return { root: folder, file };
}

/** A known marketplace and its manifest, read from where it was installed. */
export function viewMarketplace(home: PluginHome, name: string): MarketplaceView {
  const known = home.knownMarketplaces()[name];
  if (!known)
    throw new PluginError(
      `no marketplace named '${name}' is known: add it with 'gong plugin marketplace add SOURCE' (gong plugin marketplace list shows those known).`,
    );
  const { root, file } = locate(known.source, known.installLocation);
  return { name, known, root, manifest: readMarketplaceFile(file) };
}

/**
 * Adds a marketplace: clones it (a git source) or reads it where it is (a local one), and records
 * it under the name its manifest gives. `expected`: the name a settings file knows it by, which
 * the manifest must give too.
 */
export async function addMarketplace(
  home: PluginHome,
  source: MarketplaceSource,
  expected?: string,
): Promise<MarketplaceView> {
  const list = home.knownMarketplaces();
  const check = (manifest: Marketplace) => {
    if (expected !== undefined && manifest.name !== expected)
      throw new PluginError(
        `the marketplace from ${describeSource(source)} is named '${manifest.name}', not '${expected}' as the settings say; nothing was added.`,
      );
    const other = list[manifest.name];
    if (other)
      throw new PluginError(
        `a marketplace named '${manifest.name}' is already added (${describeSource(other.source)}); remove it first (gong plugin marketplace remove ${manifest.name}) or update it.`,
      );
  };
  let installLocation: string;
  let manifest: Marketplace;
  if (source.source === "directory" || source.source === "file") {
    installLocation = resolve(source.path);
    manifest = readMarketplaceFile(locate(source, installLocation).file);
    check(manifest);
  } else if (source.source === "github" || source.source === "git") {
    const url = source.source === "github" ? githubUrl(source.repo) : source.url;
    // The name is known only once the manifest is read: the clone is staged, then renamed to it.
    const staging = stagingFolder(join(home.marketplaces, "new"));
    try {
      await clone(url, staging, { ref: source.ref }).catch((e: Error) => {
        throw new PluginError(`marketplace ${describeSource(source)}: ${e.message}; nothing was added.`);
      });
      manifest = readMarketplaceFile(locate(source, staging).file);
      check(manifest);
      installLocation = join(home.marketplaces, manifest.name);
      // A folder of that name no list knows is what a stopped add left: it is replaced.
      rmSync(installLocation, { recursive: true, force: true });
      renameSync(staging, installLocation);
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  } else throw unsupported(source);
  const known: KnownMarketplace = {
    source,
    installLocation,
    lastUpdated: new Date().toISOString(),
    ...(await commitOf(installLocation)),
  };
  home.saveKnownMarketplaces({ ...list, [manifest.name]: known });
  return { name: manifest.name, known, root: locate(source, installLocation).root, manifest };
}

/** Moves a marketplace to its source's newest commit (a clone), or reads it again (a local one). */
export async function updateMarketplace(home: PluginHome, name: string): Promise<MarketplaceView> {
  const view = viewMarketplace(home, name);
  const { source } = view.known;
  if (source.source === "github" || source.source === "git") await pull(view.known.installLocation, source.ref);
  const { root, file } = locate(source, view.known.installLocation);
  const manifest = readMarketplaceFile(file);
  const known: KnownMarketplace = {
    ...view.known,
    lastUpdated: new Date().toISOString(),
    ...(await commitOf(view.known.installLocation)),
  };
  home.saveKnownMarketplaces({ ...home.knownMarketplaces(), [name]: known });
  return { name, known, root, manifest };
}

/** Forgets a marketplace and removes its clone (a local folder is left alone). */
export function removeMarketplace(home: PluginHome, name: string): void {
  const list = home.knownMarketplaces();
  const known = list[name];
  if (!known) throw new PluginError(`no marketplace named '${name}' is known (gong plugin marketplace list).`);
  delete list[name];
  home.saveKnownMarketplaces(list);
  if (isInside(known.installLocation, home.marketplaces))
    rmSync(known.installLocation, { recursive: true, force: true });
}

async function commitOf(folder: string): Promise<{ commit?: string }> {
  const commit = await headCommit(folder);
  return commit ? { commit } : {};
}

function unsupported(source: MarketplaceSource): PluginError {
  return new PluginError(
    `gong cannot add a marketplace of source '${source.source}': it adds GitHub repositories, git URLs and local folders.`,
  );
}
