/**
 * Find an executable on a PATH value. ripgrep and fd are optional, so their absence is an answer
 * ("use the TypeScript engine"), never an error. Answers are cached per (names, PATH) because a
 * search runs many times with the same PATH.
 */
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";

const cache = new Map<string, string | null>();

/** Absolute path of the first of `names` found on `pathEnv`, or null. */
export function findExecutable(names: readonly string[], pathEnv: string): string | null {
  const key = `${names.join(",")}\0${pathEnv}`;
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const found = search(names, pathEnv);
  cache.set(key, found);
  return found;
}

function search(names: readonly string[], pathEnv: string): string | null {
  const dirs = pathEnv.split(delimiter).filter((d) => d !== "");
  for (const name of names) {
    for (const dir of dirs) {
      const candidate = join(dir, name);
      try {
        if (!statSync(candidate).isFile()) continue;
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // Not here; keep looking.
      }
    }
  }
  return null;
}
