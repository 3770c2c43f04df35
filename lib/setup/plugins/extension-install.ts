/**
 * `gong extensions install PATH|GIT_URL`, as gemini-cli installs: a copy of the folder (a clone of
 * the repository, at `--ref` when given) becomes `~/.gemini/extensions/<name>/`, with
 * `.gemini-extension-install.json` recording where it came from, so gemini-cli sees it too. The
 * copy is staged and read whole first: a manifest that does not parse, a link out of the folder
 * or a failed clone installs nothing.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readExtension, EXTENSION_MANIFEST, INSTALL_METADATA, type Extension } from "./extensions.ts";
import { copyFolder, installFolder } from "./folders.ts";
import { clone, githubUrl } from "./git.ts";
import { PluginError } from "./store.ts";

/** The user's extension folder. */
export function userExtensionsDir(home = process.env.HOME ?? homedir()): string {
  return join(home, ".gemini", "extensions");
}

/** Installs an extension from a local folder or a git repository; the extension as installed. */
export async function installExtension(
  source: string,
  options: { cwd: string; ref?: string; home?: string },
): Promise<Extension> {
  const local = resolve(options.cwd, source);
  const isLocal = existsSync(local);
  const temp = mkdtempSync(join(tmpdir(), "gong-extension-"));
  try {
    let folder = local;
    if (!isLocal) {
      if (
        !/^(https?|ssh|git|file):\/\//.test(source) &&
        !/^[\w.-]+@[\w.-]+:/.test(source) &&
        !/^[\w.-]+\/[\w.-]+$/.test(source)
      )
        throw new PluginError(`'${source}' is neither a folder nor a git URL; nothing was installed.`);
      folder = join(temp, "repo");
      const url = /^[\w.-]+\/[\w.-]+$/.test(source) ? githubUrl(source) : source;
      await clone(url, folder, { ref: options.ref }).catch((e: Error) => {
        throw new PluginError(`extension ${source}: ${e.message}; nothing was installed.`);
      });
    }
    if (!existsSync(join(folder, EXTENSION_MANIFEST)))
      throw new PluginError(`${source} has no ${EXTENSION_MANIFEST}; nothing was installed.`);
    // The name is the manifest's: read it from a staged copy, then rename the copy to it.
    const staged = join(temp, "copy");
    copyFolder(folder, staged, `extension ${source}`);
    const read = await readExtension(staged, "user", options.cwd);
    if (!read || read.broken)
      throw new PluginError(`${read?.broken ?? `${source} could not be read`}; nothing was installed.`);
    const dest = join(userExtensionsDir(options.home), read.name);
    if (existsSync(dest))
      throw new PluginError(`an extension named '${read.name}' is already installed (${dest}); uninstall it first.`);
    const metadata = {
      source: isLocal ? local : source,
      type: isLocal ? "local" : "git",
      ...(options.ref ? { ref: options.ref } : {}),
    };
    await installFolder(dest, (into) => {
      copyFolder(staged, into, `extension ${source}`);
      writeFileSync(join(into, INSTALL_METADATA), `${JSON.stringify(metadata, null, 2)}\n`);
    });
    return (await readExtension(dest, "user", options.cwd))!;
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/** Removes an installed extension's folder. */
export function uninstallExtension(name: string, home?: string): string {
  const dest = join(userExtensionsDir(home), name);
  if (
    !/^[\w.-]+$/.test(name) ||
    (!existsSync(join(dest, EXTENSION_MANIFEST)) && !existsSync(join(dest, INSTALL_METADATA)))
  )
    throw new PluginError(`no extension named '${name}' is installed in ${userExtensionsDir(home)}.`);
  rmSync(dest, { recursive: true, force: true });
  return dest;
}
