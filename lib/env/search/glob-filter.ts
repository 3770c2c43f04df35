/**
 * Glob matching with ripgrep's and fd's meaning: a glob without "/" matches the file's name at any
 * depth; a glob with "/" matches the path relative to the searched directory. Dotfiles match.
 */
import picomatch from "picomatch";

export type PathMatcher = (rel: string, name: string) => boolean;

/** A matcher for `glob`; a leading "!" inverts it (rg's exclusion form). */
export function compileGlob(glob: string, { nocase = false }: { nocase?: boolean } = {}): PathMatcher {
  const negated = glob.startsWith("!");
  const body = globBody(glob);
  const test = picomatch(body, { dot: true, nocase });
  const matches: PathMatcher = body.includes("/") ? (rel) => test(rel) : (_rel, name) => test(name);
  return negated ? (rel, name) => !matches(rel, name) : matches;
}

/** True when the glob is matched against whole relative paths rather than names. */
export function globHasPath(glob: string): boolean {
  return globBody(glob).includes("/");
}

/** The glob without "!": "./src/*.ts" and "/src/*.ts" both mean "src/*.ts" below the searched directory. */
export function globBody(glob: string): string {
  return glob
    .replace(/^!/, "")
    .replace(/^(\.\/)+/, "")
    .replace(/^\/+/, "");
}
