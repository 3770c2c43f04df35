/**
 * Custom slash commands in the formats users have: Claude Code's markdown files
 * (`.claude/commands/`, `.gong/commands/`, and the user's; frontmatter `description`,
 * `argument-hint`, `allowed-tools`, `model`; `$ARGUMENTS`, `$1…`, `@file`, `` !`cmd` ``) and
 * gemini-cli's TOML files (`.gemini/commands/**\/*.toml`, `git/commit.toml` is `/git:commit`;
 * `prompt`, `description`; `{{args}}`, `!{…}`, `@{…}`). A command expands into the text sent to
 * the model; shell parts run first, and from a project only when the project is trusted.
 */
import { Buffer } from "node:buffer";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join, relative, resolve } from "node:path";
import { FrontmatterError, nameList, optionalFrontmatter, type Frontmatter } from "./frontmatter.ts";
import {
  discover,
  filesUnder,
  readSetupFile,
  shownPath,
  statOf,
  type Found,
  type PlaceOptions,
  type Scope,
} from "./places.ts";
import type { ExecutionEnvironment } from "../env/types.ts";
import { parseFlatToml, TomlError } from "./toml.ts";

export interface CustomCommand {
  /** What follows the slash: `review`, `git:commit`. */
  name: string;
  description?: string;
  argumentHint?: string;
  allowedTools?: string[];
  /** The model the command asks for (Claude Code's `model`). */
  model?: string;
  /** The markdown body or the TOML `prompt`. */
  template: string;
  syntax: "claude" | "gemini";
  file: string;
  scope: Scope;
  /** The plugin or extension it came with (`superpowers@superpowers-dev`), if any. */
  plugin?: string;
}

/** Names the built-in commands take: a file of the same name is left out (and said so). */
export function discoverCommands(
  options: PlaceOptions,
  builtIn: readonly string[] = [],
): Promise<Found<CustomCommand>> {
  return discover(
    "commands",
    options,
    "command",
    (place) => filesUnder(place.dir, [place.flavor === "gemini" ? ".toml" : ".md"]),
    (file, place) => {
      const gemini = place.flavor === "gemini";
      const name = gemini ? relative(place.dir, file).slice(0, -5).split(/[\\/]/).join(":") : basename(file, ".md");
      return readCommand(file, name, place.scope, gemini);
    },
    (command, file) =>
      builtIn.includes(command.name.toLowerCase())
        ? `${file}: /${command.name} is a built-in command; the file is not used.`
        : undefined,
  );
}

/** A command named `name` (what follows the slash), or what is wrong with its file. */
export async function readCommand(
  file: string,
  name: string,
  scope: Scope,
  gemini: boolean,
): Promise<CustomCommand | string> {
  if (!/^[\w.:-]+$/.test(name)) return `'/${name}' is not a command name (letters, digits, '-', '_', '.', ':')`;
  const read = readSetupFile(file);
  if (typeof read === "string") return read;
  const { text } = read;
  if (gemini) {
    let data: Record<string, unknown>;
    try {
      data = parseFlatToml(text);
    } catch (e) {
      return e instanceof TomlError ? `is not valid TOML: ${e.message}` : (e as Error).message;
    }
    if (typeof data.prompt !== "string" || !data.prompt.trim()) return "it has no 'prompt' string";
    const command: CustomCommand = { name, template: data.prompt, syntax: "gemini", file, scope };
    if (typeof data.description === "string") command.description = data.description;
    return command;
  }
  let parsed: Frontmatter;
  try {
    parsed = await optionalFrontmatter(text);
  } catch (e) {
    return e instanceof FrontmatterError ? e.message : (e as Error).message;
  }
  const { data, body } = parsed;
  if (!body.trim()) return "its body (the prompt) is empty";
  const command: CustomCommand = { name, template: body, syntax: "claude", file, scope };
  if (typeof data.description === "string") command.description = data.description;
  if (typeof data["argument-hint"] === "string") command.argumentHint = data["argument-hint"];
  else if (Array.isArray(data["argument-hint"])) command.argumentHint = `[${data["argument-hint"].join("] [")}]`;
  const allowed = nameList(data["allowed-tools"]);
  if (allowed) command.allowedTools = allowed;
  if (typeof data.model === "string" && data.model) command.model = data.model;
  return command;
}

/** The command a line of input calls, with its arguments; undefined when it calls none of these. */
export function matchCommand(
  text: string,
  commands: readonly CustomCommand[],
): { command: CustomCommand; args: string } | undefined {
  const m = /^\/([\w.:-]+)(?:[ \t]+([\s\S]*))?$/.exec(text.trim());
  if (!m) return undefined;
  const command = commands.find((c) => c.name === m[1]);
  return command ? { command, args: (m[2] ?? "").trim() } : undefined;
}

export interface ShellRunner {
  /** Runs a command in the project directory; resolves to its output (and exit status when not 0). */
  run(command: string): Promise<string>;
  /** Whether a project's commands may run shell parts. */
  trusted: boolean;
  /** The end of the notice for an untrusted project: why, and how to trust it. */
  untrustedHint: string;
}

/** Shell parts run as the model's commands do: in the project, through the (possibly sandboxed) environment. */
export function environmentShell(env: ExecutionEnvironment, trusted: boolean, untrustedHint: string): ShellRunner {
  return {
    trusted,
    untrustedHint,
    async run(line) {
      try {
        const result = await env.exec(line, { timeoutMs: SHELL_TIMEOUT_MS });
        const output = result.output.trimEnd();
        if (result.timedOut) return `${output}\n[stopped after ${SHELL_TIMEOUT_MS / 1000} s]`;
        return result.exitCode === 0 ? output : `${output}\n[exit code ${result.exitCode ?? result.signal}]`;
      } catch (e) {
        return `[could not run: ${(e as Error).message}]`;
      }
    },
  };
}

const SHELL_TIMEOUT_MS = 30_000;

export interface ExpandOptions {
  cwd: string;
  /** Shell parts are not run without it. */
  shell?: ShellRunner;
}

export interface Expansion {
  /** The text for the model. */
  text: string;
  /** One line each: what was left out and why (an untrusted shell part, a missing or looping @ file). */
  notices: string[];
}

/** Nested `@` includes stop at this depth. */
const MAX_INCLUDE_DEPTH = 5;
/** Bytes of one included file or one command's output. */
const MAX_PART_BYTES = 256 * 1024;

/** The text a command call sends to the model. */
export async function expandCommand(command: CustomCommand, args: string, options: ExpandOptions): Promise<Expansion> {
  const notices: string[] = [];
  const where = shownPath(command.file, options.cwd);
  const runShell = async (line: string): Promise<string> => {
    if (command.scope === "project" && !options.shell?.trusted) {
      notices.push(
        `ignoring the shell command \`${line}\` in ${where}: ${options.shell?.untrustedHint ?? "shell commands are not run here."}`,
      );
      return `[not run: ${line}]`;
    }
    if (!options.shell) return `[not run: ${line}]`;
    return cut((await options.shell.run(line)).trimEnd(), `the output of \`${line}\``);
  };
  const text =
    command.syntax === "gemini"
      ? await expandGemini(command, args, options, runShell, notices)
      : await expandClaude(command, args, options, runShell, notices);
  return { text, notices };
}

// ------------------------------------------------------------------------------ Claude Code

async function expandClaude(
  command: CustomCommand,
  args: string,
  options: ExpandOptions,
  runShell: (line: string) => Promise<string>,
  notices: string[],
): Promise<string> {
  const positional = splitArguments(args);
  const usesArguments = /\$ARGUMENTS|\$\d/.test(command.template);
  const substitute = (text: string, quote: (s: string) => string) =>
    text.replace(/\$ARGUMENTS|\$(\d+)/g, (_, n: string | undefined) =>
      n === undefined ? quote(args) : quote(positional[Number(n) - 1] ?? ""),
    );
  // Shell parts first (arguments inside them are quoted for the shell), then the arguments, then @ files.
  const pieces: string[] = [];
  let last = 0;
  for (const m of command.template.matchAll(/!`([^`\n]+)`/g)) {
    pieces.push(substitute(command.template.slice(last, m.index), (s) => s));
    pieces.push(await runShell(substitute(m[1], shellQuote)));
    last = m.index! + m[0].length;
  }
  pieces.push(substitute(command.template.slice(last), (s) => s));
  let text = pieces.join("");
  if (args && !usesArguments) text = `${text.trimEnd()}\n\nARGUMENTS: ${args}`;
  const files = includeMentions(text, options.cwd, notices, [command.file], 1);
  return files.length > 0 ? `${text.trimEnd()}\n\n${files.join("\n\n")}` : text;
}

/**
 * `@path` mentions of existing files, each as a `<file>` block (mentions inside those files too, up
 * to MAX_INCLUDE_DEPTH; one that leads back to a file already on the way is left out and said).
 */
function includeMentions(text: string, cwd: string, notices: string[], chain: string[], depth: number): string[] {
  const blocks: string[] = [];
  for (const m of text.matchAll(/(?:^|[\s(])@((?:~\/)?[\w./-][^\s`'"),;]*)/g)) {
    const mention = m[1].replace(/[.:]+$/, "");
    const path = resolveMention(mention, cwd);
    if (!statOf(path)?.isFile()) continue;
    const loop = chain.indexOf(path);
    if (loop !== -1) {
      notices.push(
        `${shownPath(chain[0], cwd)}: @ includes loop (${[...chain.slice(loop), path].map((p) => shownPath(p, cwd)).join(" → ")}); the repeated file is left out.`,
      );
      continue;
    }
    if (depth > MAX_INCLUDE_DEPTH) {
      notices.push(
        `${shownPath(chain[0], cwd)}: @ includes nest deeper than ${MAX_INCLUDE_DEPTH} at @${mention}; left out.`,
      );
      continue;
    }
    const content = readPart(path, `@${mention}`, notices);
    if (content === undefined) continue;
    blocks.push(`<file path="${mention}">\n${content.trimEnd()}\n</file>`);
    blocks.push(...includeMentions(content, cwd, notices, [...chain, path], depth + 1));
  }
  return blocks;
}

function resolveMention(mention: string, cwd: string): string {
  return mention.startsWith("~/") ? join(process.env.HOME ?? homedir(), mention.slice(2)) : resolve(cwd, mention);
}

// ------------------------------------------------------------------------------ gemini-cli

async function expandGemini(
  command: CustomCommand,
  args: string,
  options: ExpandOptions,
  runShell: (line: string) => Promise<string>,
  notices: string[],
): Promise<string> {
  // gemini-cli's order: @{files}, then !{shell} (with {{args}} quoted inside), then {{args}}.
  let text = await replaceBraced(command.template, "@{", async (path) => {
    const content = readPart(resolveMention(path.trim(), options.cwd), `@{${path}}`, notices);
    return content ?? `[@{${path}}: not included]`;
  });
  text = await replaceBraced(text, "!{", (line) => runShell(line.replaceAll("{{args}}", shellQuote(args))));
  if (text.includes("{{args}}")) return text.replaceAll("{{args}}", args);
  return args ? `${text.trimEnd()}\n\n/${command.name} ${args}` : text;
}

/** Replaces each `open…}` (braces inside balanced) with what `fn` makes of its inside. */
async function replaceBraced(text: string, open: string, fn: (inside: string) => Promise<string>): Promise<string> {
  let out = "";
  let i = 0;
  for (;;) {
    const start = text.indexOf(open, i);
    if (start === -1) return out + text.slice(i);
    let depth = 1;
    let j = start + open.length;
    while (j < text.length && depth > 0) {
      if (text[j] === "{") depth++;
      else if (text[j] === "}") depth--;
      j++;
    }
    if (depth > 0) return out + text.slice(i);
    out += text.slice(i, start) + (await fn(text.slice(start + open.length, j - 1)));
    i = j;
  }
}

// ------------------------------------------------------------------------------ shared

function readPart(path: string, what: string, notices: string[]): string | undefined {
  const info = statOf(path);
  if (!info?.isFile()) {
    notices.push(`${what}: ${info ? "not a file (only files are included)" : "no such file"}; not included.`);
    return undefined;
  }
  try {
    return cut(readFileSync(path, "utf8"), what);
  } catch (e) {
    notices.push(`${what}: cannot be read (${(e as Error).message}); not included.`);
    return undefined;
  }
}

function cut(text: string, what: string): string {
  if (Buffer.byteLength(text) <= MAX_PART_BYTES) return text;
  return `${Buffer.from(text).subarray(0, MAX_PART_BYTES).toString("utf8")}\n[${what} cut at ${MAX_PART_BYTES / 1024} KB]`;
}

/** Arguments split as a shell would split words: spaces separate, quotes group. */
export function splitArguments(args: string): string[] {
  const words: string[] = [];
  for (const m of args.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g))
    words.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] ?? m[3]));
  return words;
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
