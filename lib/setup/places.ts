/**
 * Where the files users bring are looked for: the project's `.gong/`, `.claude/` (and `.agents/`
 * for skills, `.gemini/` for commands), then the user's own under `$GONG_HOME` and `$HOME`. The
 * first place to define a name wins, so a project's file shadows the user's of the same name.
 */
import { readdirSync, readFileSync, statSync, type Dirent } from "node:fs";
import { homedir } from "node:os";
import { join, relative } from "node:path";
import { isInside } from "../paths.ts";
import { gongHome } from "../store/paths.ts";

export type SetupKind = "skills" | "commands" | "agents";
export type Scope = "project" | "user";

export interface Place {
  dir: string;
  scope: Scope;
  /** The tool whose layout the folder follows. */
  flavor: "gong" | "claude" | "agents" | "gemini";
}

export interface PlaceOptions {
  /** The project directory (the workspace root). */
  cwd: string;
  /** The user's home (default $HOME). */
  home?: string;
  /** gong's home (default $GONG_HOME or ~/.gong). */
  gongHome?: string;
}

const FLAVORS: Record<SetupKind, Place["flavor"][]> = {
  skills: ["gong", "claude", "agents"],
  commands: ["gong", "claude", "gemini"],
  agents: ["gong", "claude"],
};

/** The folders holding one kind of file, in precedence order: project first, then the user's. */
export function placesFor(kind: SetupKind, options: PlaceOptions): Place[] {
  const home = options.home ?? process.env.HOME ?? homedir();
  const gong = options.gongHome ?? gongHome();
  const places: Place[] = [];
  for (const flavor of FLAVORS[kind])
    places.push({ dir: join(options.cwd, `.${flavor}`, kind), scope: "project", flavor });
  for (const flavor of FLAVORS[kind])
    places.push({ dir: flavor === "gong" ? join(gong, kind) : join(home, `.${flavor}`, kind), scope: "user", flavor });
  // A project inside the home directory (or gong's home itself) would list one folder twice.
  return places.filter((p, i) => places.findIndex((q) => q.dir === p.dir) === i);
}

/** Files under `dir` (subfolders too, at most `depth` deep) whose names end with one of `extensions`, sorted. */
export function filesUnder(dir: string, extensions: string[], depth = 4): string[] {
  const found: string[] = [];
  const walk = (at: string, level: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(at, { withFileTypes: true }).sort((a, b) =>
        a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
      );
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.name.startsWith(".")) continue;
      const path = join(at, entry.name);
      // Only a link needs a stat to know what it points at.
      const info = entry.isSymbolicLink() ? statOf(path) : entry;
      if (info?.isDirectory() && level < depth) walk(path, level + 1);
      else if (info?.isFile() && extensions.some((e) => entry.name.endsWith(e))) found.push(path);
    }
  };
  walk(dir, 0);
  return found;
}

export function statOf(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** A path as the user would write it in a message: relative to the project when inside it. */
export function shownPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel && isInside(path, cwd) ? rel : path;
}

/** What a search of the places found, and one line per file that could not be used (the file and what was wrong). */
export interface Found<T> {
  items: T[];
  problems: string[];
}

/** Files larger than this are not read (a skill, command or agent file is a page or two of text). */
export const MAX_SETUP_FILE_BYTES = 4 * 1024 * 1024;

/**
 * The items of one kind the places hold: each file `filesOf` lists in a place is read by `read`
 * (an item, or what is wrong with the file: one problem line "<file>: <what>; <noun> skipped."),
 * `refuse` may turn an item away with its own problem line, and the first item of a name wins (a
 * project's over the user's). Sorted by name.
 */
export async function discover<T extends { name: string }>(
  kind: SetupKind,
  options: PlaceOptions,
  noun: string,
  filesOf: (place: Place) => string[],
  read: (file: string, place: Place) => Promise<T | string>,
  refuse: (item: T, file: string) => string | undefined = () => undefined,
): Promise<Found<T>> {
  const byName = new Map<string, T>();
  const problems: string[] = [];
  for (const place of placesFor(kind, options)) {
    for (const file of filesOf(place)) {
      const item = await read(file, place);
      const refused = typeof item === "string" ? `${file}: ${item}; ${noun} skipped.` : refuse(item, file);
      if (refused) problems.push(refused);
      else if (typeof item !== "string" && !byName.has(item.name)) byName.set(item.name, item);
    }
  }
  return { items: [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)), problems };
}

/** A setup file's text, or what keeps it from being used (over the size limit, unreadable). */
export function readSetupFile(file: string): { text: string } | string {
  const size = statOf(file)?.size ?? 0;
  if (size > MAX_SETUP_FILE_BYTES) return `the file is ${size} bytes, over the ${MAX_SETUP_FILE_BYTES}-byte limit`;
  try {
    return { text: readFileSync(file, "utf8") };
  } catch (e) {
    return `cannot be read (${(e as Error).message})`;
  }
}
