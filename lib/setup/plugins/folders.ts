/**
 * Folders of plugins and extensions as gong installs them: a copy made in a temporary folder beside
 * the destination and renamed into place whole, so an install that fails half-way leaves nothing; a
 * link that leads out of the folder (or `..` in a path) is refused, since it would let a plugin
 * reach files it does not hold.
 */
import {
  chmodSync,
  copyFileSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { randomHex } from "../../hash.ts";
import { isInside } from "../../paths.ts";
import { PluginError } from "./store.ts";

/** Folders never copied into an install: a clone's own history. */
const LEFT_OUT = new Set([".git"]);

/**
 * Copies `from` into the new folder `to`: files with their modes, folders, and links that stay
 * inside `from` (as what they lead to). `what` names the plugin in the error a link out of it gives.
 */
export function copyFolder(from: string, to: string, what: string): void {
  const root = realpathSync(from);
  const walk = (src: string, dest: string) => {
    mkdirSync(dest, { recursive: true });
    for (const entry of readdirSync(src, { withFileTypes: true })) {
      if (LEFT_OUT.has(entry.name)) continue;
      const path = join(src, entry.name);
      const target = join(dest, entry.name);
      let real = path;
      if (entry.isSymbolicLink()) {
        real = resolve(dirname(path), readlinkSync(path));
        const resolved = realOrNone(path);
        if (!resolved || !isInside(resolved, root))
          throw new PluginError(
            `${what}: ${relative(root, path)} is a link to ${real}, outside the plugin's folder; nothing was installed.`,
          );
        real = resolved;
      }
      const info = statSync(real);
      if (info.isDirectory()) walk(real, target);
      else if (info.isFile()) {
        copyFileSync(real, target);
        chmodSync(target, info.mode & 0o777);
      }
    }
  };
  walk(root, to);
}

function realOrNone(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** A fresh temporary folder beside `dest` (same file system, so the final rename is atomic). */
export function stagingFolder(dest: string): string {
  mkdirSync(dirname(dest), { recursive: true });
  return join(dirname(dest), `.staging-${randomHex(6)}`);
}

/**
 * Runs `fill` on a staging folder, then puts it at `dest` in one rename (an existing `dest` is
 * replaced only once the new one is complete). On any failure the staging folder is removed.
 */
export async function installFolder(dest: string, fill: (staging: string) => Promise<void> | void): Promise<void> {
  const staging = stagingFolder(dest);
  try {
    await fill(staging);
    const old = existsAsFolder(dest) ? `${staging}.old` : undefined;
    if (old) renameSync(dest, old);
    renameSync(staging, dest);
    if (old) rmSync(old, { recursive: true, force: true });
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
}

function existsAsFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * `path` (relative to `root`, as a manifest names it) as a real path inside `root`; undefined when
 * it leads out (`..`, or a link).
 */
export function insideRoot(root: string, path: string): string | undefined {
  const joined = resolve(root, path);
  if (!isInside(joined, root)) return undefined;
  const real = realOrNone(joined);
  // A path that does not exist yet is judged as written; one that exists, by where it really is.
  if (!real) return joined;
  return isInside(real, realOrNone(root) ?? root) ? real : undefined;
}
