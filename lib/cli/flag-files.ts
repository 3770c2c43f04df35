/**
 * What a flag names on disk or spells inline — a text file, a JSON file, JSON given as the value,
 * a directory — read with one sentence naming the flag when it cannot be (a UsageError, exit 2).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "../core/errors.ts";

export function flagText(path: string, flag: string): string {
  try {
    return readFileSync(resolve(path), "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(`${flag} ${path}: ${code === "ENOENT" ? "no such file" : (e as Error).message}.`);
  }
}

/** JSON given as the flag's value. */
export function flagJson(text: string, flag: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${flag} is not valid JSON: ${(e as Error).message}.`);
  }
}

/** A JSON file the flag names. */
export function flagJsonFile(path: string, flag: string): unknown {
  const text = flagText(path, flag);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${flag} ${path} is not valid JSON: ${(e as Error).message}.`);
  }
}

/** An existing directory the flag names, as an absolute path. */
export function flagDirectory(dir: string, flag: string): string {
  const path = resolve(dir);
  if (!existsSync(path) || !statSync(path).isDirectory()) throw new UsageError(`${flag} ${dir}: no such directory.`);
  return path;
}
