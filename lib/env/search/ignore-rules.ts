/**
 * .gitignore handling shared by the TypeScript engines and the fd post-filter.
 *
 * Each directory may hold ignore files; their rules apply to paths below that directory and beat
 * the rules of its ancestors (git's precedence). A `RuleLayer` is one directory's rules linked to
 * its parent's, so a walker carries one pointer per directory and directories without ignore
 * files share their parent's layer.
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import ignore, { type Ignore } from "ignore";
import { isInside, toPosix } from "../../paths.ts";

/** The ignore files ripgrep honours, in rising precedence. */
export const GREP_IGNORE_FILES = [".gitignore", ".ignore", ".rgignore"] as const;
/** The ignore files fd honours, in rising precedence. */
export const FIND_IGNORE_FILES = [".gitignore", ".ignore", ".fdignore"] as const;

export interface RuleLayer {
  /** Absolute directory the rules are relative to. */
  base: string;
  rules: Ignore;
  parent: RuleLayer | null;
}

/** True when the layers say `absolute` (a directory when `isDir`) is ignored; deeper layers win. */
export function isIgnored(layer: RuleLayer | null, absolute: string, isDir: boolean): boolean {
  for (let l = layer; l; l = l.parent) {
    const rel = toPosix(relative(l.base, absolute));
    if (rel === "" || !isInside(absolute, l.base)) continue;
    const verdict = l.rules.test(isDir ? `${rel}/` : rel);
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

/**
 * The layer for directory `dir`: `parent` plus the rules of the ignore files named in
 * `present` (the directory listing tells which exist, so no read is wasted).
 */
export async function layerFor(
  dir: string,
  parent: RuleLayer | null,
  ignoreFiles: readonly string[],
  present: (name: string) => boolean,
): Promise<RuleLayer | null> {
  const texts: string[] = [];
  for (const name of ignoreFiles) {
    if (!present(name)) continue;
    try {
      texts.push(await readFile(join(dir, name), "utf8"));
    } catch {
      // Unreadable ignore file: git ignores it too.
    }
  }
  if (texts.length === 0) return parent;
  return { base: dir, rules: ignore({ allowRelativePaths: true }).add(texts.join("\n")), parent };
}

/**
 * Layers for the directories from `root` down to (excluding) `start`, so a search in a
 * subdirectory still honours the project's top-level .gitignore, as ripgrep and fd do.
 */
export function ancestorLayers(root: string, start: string, ignoreFiles: readonly string[]): RuleLayer | null {
  if (start === root || !isInside(start, root)) return null;
  const dirs: string[] = [];
  for (let d = dirname(start); ; d = dirname(d)) {
    dirs.unshift(d);
    if (d === root || d === dirname(d)) break;
  }
  let layer: RuleLayer | null = null;
  for (const dir of dirs) layer = layerFromDisk(dir, layer, ignoreFiles);
  return layer;
}

/** `parent` plus the rules of whichever ignore files exist in `dir` (read synchronously: few, small). */
function layerFromDisk(dir: string, parent: RuleLayer | null, ignoreFiles: readonly string[]): RuleLayer | null {
  const texts: string[] = [];
  for (const name of ignoreFiles) {
    try {
      texts.push(readFileSync(join(dir, name), "utf8"));
    } catch {
      // Absent: nothing to add.
    }
  }
  return texts.length === 0
    ? parent
    : { base: dir, rules: ignore({ allowRelativePaths: true }).add(texts.join("\n")), parent };
}

/**
 * Answers "is this path ignored?" for paths found by someone else (fd outside a git repository,
 * where old fd versions skip .gitignore). Loads each directory's rules once, on demand.
 */
export class IgnoreOracle {
  private readonly layers = new Map<string, RuleLayer | null>();
  private readonly dirVerdicts = new Map<string, boolean>();

  constructor(
    root: string,
    private readonly start: string,
    private readonly ignoreFiles: readonly string[],
  ) {
    this.layers.set(start, this.withOwnRules(start, ancestorLayers(root, start, ignoreFiles)));
  }

  /** True when `absolute` (below the start directory) or one of its parent directories is ignored. */
  ignored(absolute: string, isDir: boolean): boolean {
    const parent = dirname(absolute);
    if (parent !== this.start && this.dirIgnored(parent)) return true;
    return isIgnored(this.layerOf(parent), absolute, isDir);
  }

  private dirIgnored(dir: string): boolean {
    let verdict = this.dirVerdicts.get(dir);
    if (verdict === undefined) {
      const parent = dirname(dir);
      verdict =
        (parent !== this.start && parent !== dir && this.dirIgnored(parent)) ||
        isIgnored(this.layerOf(parent), dir, true);
      this.dirVerdicts.set(dir, verdict);
    }
    return verdict;
  }

  private layerOf(dir: string): RuleLayer | null {
    const known = this.layers.get(dir);
    if (known !== undefined) return known;
    const parent = dirname(dir);
    const layer = parent === dir ? null : this.withOwnRules(dir, this.layerOf(parent));
    this.layers.set(dir, layer);
    return layer;
  }

  private withOwnRules(dir: string, parent: RuleLayer | null): RuleLayer | null {
    return layerFromDisk(dir, parent, this.ignoreFiles);
  }
}
