/**
 * What a command line runs, as the permission gate reads it: its simple commands (split.ts), and
 * through every wrapper what each of them runs (wrappers.ts) — `X=1 rm`, `bash -c 'rm …'`, `sudo
 * rm`, `xargs rm`, `find -exec rm` and `/bin/rm` all show an `rm`. Every command found is a layer:
 * deny and ask rules meet each layer in each of its forms (as written, without the variables in
 * front, the program's path cut to its name); allow rules and the read-only list must cover every
 * layer that is not a transparent wrapper. A line gong cannot read with certainty is `uncertain`.
 */
import { splitCommand, SUBSTITUTION } from "./split.ts";
import { ASSIGNMENT, programName, unwrap } from "./wrappers.ts";

export interface ShellCommand {
  /** The words, quotes removed, without the variables in front. */
  words: string[];
  /** Variables set in front (`X=1`). */
  assignments: string[];
  /** Redirections that write a file, this command's and those of what runs it. */
  redirects: string[];
  writesFile: boolean;
  /** A wrapper that changes nothing about what it runs may do: rules judge what it runs instead. */
  transparent: boolean;
  /** More arguments are added when it runs (xargs, find -exec … +, rg --pre). */
  moreArgs: boolean;
}

export interface ReadCommand {
  /** Every command found, wrappers and what they run alike. */
  commands: ShellCommand[];
  /** Why the line could not be read with certainty, when so. */
  uncertain?: string;
}

/** How deep scripts inside scripts are read (`bash -c "sh -c '…'"`). */
const MAX_DEPTH = 8;

const cache = new Map<string, ReadCommand>();

/** The commands of a command line (read once per distinct line: a session asks about the same ones). */
export function readCommand(source: string): ReadCommand {
  const known = cache.get(source);
  if (known) return known;
  const commands: ShellCommand[] = [];
  let uncertain: string | undefined;
  const note = (why: string | undefined) => {
    if (why !== undefined) uncertain ??= why;
  };

  interface Around {
    redirects: string[];
    writesFile: boolean;
    moreArgs: boolean;
    stdin?: string;
  }
  const readScript = (text: string, around: Omit<Around, "moreArgs" | "stdin">, depth: number) => {
    if (depth > MAX_DEPTH) return note("commands nested too deeply");
    const split = splitCommand(text);
    note(split.opaque);
    for (const c of split.commands) {
      readSimple(
        c.words,
        {
          redirects: [...around.redirects, ...c.redirects],
          writesFile: around.writesFile || c.writesFile,
          moreArgs: false,
          stdin: c.stdin,
        },
        depth,
      );
    }
  };
  const readSimple = (all: string[], around: Around, depth: number) => {
    let i = 0;
    while (i < all.length && ASSIGNMENT.test(all[i])) i++;
    const words = all.slice(i);
    const layer: ShellCommand = {
      words,
      assignments: all.slice(0, i),
      redirects: around.redirects,
      writesFile: around.writesFile,
      transparent: false,
      moreArgs: around.moreArgs,
    };
    commands.push(layer);
    if (words.length === 0) return;
    if (isDynamic(words[0])) return note(`a command name gong cannot know before it runs (${words[0]})`);
    if (programName(words[0]) === "alias") {
      // An alias runs later, wherever its name is used: what it stands for is read now.
      note("an alias definition");
      for (const w of words.slice(1)) if (w.includes("=")) readScript(w.slice(w.indexOf("=") + 1), around, depth + 1);
      return;
    }
    const inner = unwrap(words, around.stdin);
    if (!inner) return;
    note(inner.uncertain);
    layer.transparent = inner.transparent && layer.assignments.length === 0;
    const within = { redirects: around.redirects, writesFile: around.writesFile };
    if (depth >= MAX_DEPTH && (inner.runs?.length || inner.scripts?.length)) return note("commands nested too deeply");
    for (const run of inner.runs ?? []) readSimple(run, { ...within, moreArgs: inner.moreArgs ?? false }, depth + 1);
    for (const script of inner.scripts ?? []) readScript(script, within, depth + 1);
  };

  readScript(source, { redirects: [], writesFile: false }, 0);
  const read: ReadCommand = uncertain === undefined ? { commands } : { commands, uncertain };
  if (cache.size > 500) cache.clear();
  cache.set(source, read);
  return read;
}

/**
 * A command name the shell only knows when it runs: a variable, a substitution, a glob or a brace
 * expansion (`$CMD`, `$(which rm)`, `/bin/r?`, `{rm,x}`).
 */
function isDynamic(word: string): boolean {
  return (
    word.includes("$") ||
    word.includes("`") ||
    word.includes(SUBSTITUTION) ||
    /[*?]/.test(word) ||
    /\[[^\]]*\]/.test(word.slice(1)) ||
    /\{[^}]*[,.][^}]*\}/.test(word)
  );
}

/** The command as written, with its variables and file-writing redirections: what an allow rule must cover. */
export function writtenText(c: ShellCommand): string {
  const text = [...c.assignments, ...c.words, ...c.redirects].join(" ");
  // Arguments added when it runs are unknown: only a rule ending in a wildcard covers them.
  return c.moreArgs ? `${text} …` : text;
}

/**
 * Every form a deny or ask rule meets: as written, without the variables in front, the program by
 * its name, and git without the options before its subcommand (`git -C repo push` is a `git push`).
 */
export function deniableTexts(c: ShellCommand): string[] {
  const bare = c.words.join(" ");
  const out = [bare, [bare, ...c.redirects].join(" ")];
  if (c.assignments.length > 0) out.push(writtenText(c));
  const program = programName(c.words[0] ?? "");
  if (program !== c.words[0]) out.push([program, ...c.words.slice(1)].join(" "));
  if (program === "git") {
    const sub = gitSubcommand(c.words);
    if (sub > 1) out.push(["git", ...c.words.slice(sub)].join(" "));
  }
  return out;
}

/** git's options that take the next word as their value. */
const GIT_VALUED = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"]);

/** Where git's subcommand starts, past the options before it. */
function gitSubcommand(words: readonly string[]): number {
  let i = 1;
  while (i < words.length && words[i].startsWith("-")) i += GIT_VALUED.has(words[i]) ? 2 : 1;
  return i;
}

/**
 * Names the text of an uncertain line mentions: a deny rule whose command words are all among them
 * still refuses it (`CMD=rm; $CMD x` names rm). Paths count by their last part.
 */
export function mentionedWords(source: string): Set<string> {
  const out = new Set<string>();
  for (const token of source.match(/[A-Za-z0-9_./+-]+/g) ?? []) {
    out.add(token);
    if (token.includes("/")) out.add(programName(token));
  }
  return out;
}
