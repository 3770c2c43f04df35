/**
 * Tab completion in the shell's input: a slash command at the start of the input (`/mo` →
 * `/model `), and an `@path` anywhere in it, from the workspace's files (`@src/` lists the entries
 * of src/, `@src/ma` → `@src/main.ts `). Hidden entries are offered only once a `.` is typed.
 */
import { readdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

export interface CompletionItem {
  /** What replaces the completed word. */
  value: string;
  /** How the candidate is listed. */
  label: string;
}

export interface Completion {
  /** The part of the input the chosen value replaces. */
  start: number;
  end: number;
  items: CompletionItem[];
}

export interface CommandInfo {
  name: string;
  usage: string;
  help: string;
}

/** More entries than this in one directory are not all offered. */
const MAX_ENTRIES = 500;

export function completeInput(line: string, cursor: number, cwd: string, commands: CommandInfo[]): Completion | null {
  const before = line.slice(0, cursor);
  // The completed word runs on to the next space after the cursor.
  const end = cursor + (/^\S*/.exec(line.slice(cursor))?.[0].length ?? 0);
  const slash = /^\/(\S*)$/.exec(before);
  if (slash) {
    const prefix = slash[1].toLowerCase();
    const matches = commands.filter((c) => c.name.startsWith(prefix));
    const width = Math.max(0, ...matches.map((c) => c.usage.length));
    return {
      start: 0,
      end,
      items: matches.map((c) => ({ value: `/${c.name} `, label: `${c.usage.padEnd(width)}  ${c.help}` })),
    };
  }
  const at = /(?:^|\s)@(\S*)$/.exec(before);
  if (at) return { start: cursor - at[1].length - 1, end, items: completePath(at[1], cwd) };
  return null;
}

function completePath(partial: string, cwd: string): CompletionItem[] {
  const slash = partial.lastIndexOf("/");
  const dirPart = partial.slice(0, slash + 1);
  const base = partial.slice(slash + 1);
  const dir = dirPart.startsWith("~/") ? join(homedir(), dirPart.slice(2)) : resolve(cwd, dirPart || ".");
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.startsWith(base) && (base.startsWith(".") || !n.startsWith(".")));
  } catch {
    return [];
  }
  names.sort();
  return names.slice(0, MAX_ENTRIES).map((name) => {
    const isDir = isDirectory(join(dir, name));
    return { value: `@${dirPart}${name}${isDir ? "/" : " "}`, label: `${name}${isDir ? "/" : ""}` };
  });
}

/** Follows links, so a link to a directory completes like one. */
function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The longest start all values share. */
export function commonPrefix(values: string[]): string {
  if (values.length === 0) return "";
  let prefix = values[0];
  for (const v of values) {
    let i = 0;
    while (i < prefix.length && i < v.length && prefix[i] === v[i]) i++;
    prefix = prefix.slice(0, i);
  }
  return prefix;
}
