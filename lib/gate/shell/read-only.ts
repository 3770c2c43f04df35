/**
 * The commands that only read, passed without asking under the `edits` approval mode: an entry
 * covers the command and any arguments, except the options that make a listed command write a file
 * or run another program (`sort -o`, `rg --pre`, `find -exec`, `uniq in out`, `tree -o`).
 * `readOnlyCommands` in settings adds entries. A line passes only when it is read with certainty,
 * writes no file and every command in it that is not a transparent wrapper is on the list, without
 * variables in front (`LD_PRELOAD=… ls` runs more than ls).
 */
import type { ReadCommand, ShellCommand } from "./commands.ts";

export const READ_ONLY_COMMANDS: readonly string[] = [
  "ls",
  "cat",
  "head",
  "tail",
  "wc",
  "pwd",
  "echo",
  "printf",
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "fd",
  "fdfind",
  "find",
  "tree",
  "stat",
  "file",
  "du",
  "df",
  "which",
  "type",
  "command -v",
  "command -V",
  "whoami",
  "id",
  "date",
  "uname",
  "hostname",
  "basename",
  "dirname",
  "realpath",
  "readlink",
  "sort",
  "uniq",
  "cut",
  "diff",
  "cmp",
  "true",
  "false",
  "test",
  "[",
  "cd",
  "git status",
  "git log",
  "git diff",
  "git show",
  "git rev-parse",
  "git ls-files",
  "git blame",
  "git branch --show-current",
];

/** Entries that cover only themselves: more arguments could change what they do (`git branch --show-current -D x`). */
const EXACT = new Set(["git branch --show-current"]);

/** Whether a listed command's arguments make it write a file, change the system or run a program. */
const WRITES: Record<string, (args: string[]) => boolean> = {
  find: (a) => a.some((w) => /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/.test(w)),
  sort: (a) => a.some((w) => /^(--output|--compress-program)/.test(w) || /^-[A-Za-z]*o/.test(w)),
  rg: (a) => a.some((w) => /^--(pre|hostname-bin)(=|$)/.test(w)),
  fd: (a) => a.some(fdExecutes),
  fdfind: (a) => a.some(fdExecutes),
  git: (a) => a.some((w) => /^--output/.test(w)),
  // uniq [OPTION]… [INPUT [OUTPUT]]: a second operand is a file it writes.
  uniq: (a) => operands(a, ["-f", "-s", "-w"]).length >= 2,
  tree: (a) => a.some((w) => /^-(o|R)/.test(w)),
  date: (a) => a.some((w) => /^(-s|--set)/.test(w) || /^-[A-Za-z]*s/.test(w)),
  // hostname NAME (or -F FILE) sets the name.
  hostname: (a) => a.some((w) => /^(-F|--file)/.test(w)) || operands(a, []).length > 0,
  file: (a) => a.some((w) => /^(-C|--compile)$/.test(w)),
};

function fdExecutes(w: string): boolean {
  return /^--exec(-batch)?(=|$)/.test(w) || /^-[A-Za-z]*[xX]$/.test(w);
}

/** The words that are not options (nor the values of `valued` options). */
function operands(args: string[], valued: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--") return [...out, ...args.slice(i + 1)];
    if (valued.includes(args[i])) i++;
    else if (!args[i].startsWith("-") || args[i] === "-") out.push(args[i]);
  }
  return out;
}

function listed(entry: string, c: ShellCommand): boolean {
  const text = c.words.join(" ");
  if (text === entry) return true;
  return !EXACT.has(entry) && text.startsWith(`${entry} `);
}

/** Whether one command only reads: listed, no variables in front, no file written, no writing option. */
export function readsOnly(c: ShellCommand, entries: readonly string[]): boolean {
  if (c.assignments.length > 0 || c.writesFile || c.words.length === 0) return false;
  if (!entries.some((entry) => listed(entry, c))) return false;
  const writes = WRITES[c.words[0]];
  return !writes?.(c.words.slice(1));
}

/** Whether a whole line only reads (see the top of this file). */
export function isReadOnly(read: ReadCommand, entries: readonly string[] = READ_ONLY_COMMANDS): boolean {
  if (read.uncertain !== undefined || read.commands.length === 0) return false;
  return read.commands.every((c) => c.transparent || readsOnly(c, entries));
}
