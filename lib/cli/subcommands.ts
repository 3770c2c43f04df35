/**
 * gong's subcommands, declared once: a first word that names one runs it with the words after it
 * (each has its own --help and usage errors); any other first word starts a prompt — unless it
 * looks like a mistyped subcommand (`gong doctr`), which is refused with "did you mean" (see
 * lookalikeCommand). Each command's code loads only when it runs. A new subcommand (`update`,
 * `plugin`, `extensions`) is one entry here; `words` and `flags` feed the shell completions.
 */
import { UsageError } from "../core/errors.ts";
import { parseCliArgs, type CliOptions, type FlagCommand } from "./args.ts";
import { chooseWord, closest } from "./did-you-mean.ts";
import type { Io } from "./session-io.ts";
import type { Subcommand, Subcommands } from "./subcommand.ts";

export const SUBCOMMANDS: Subcommands = {
  exec: {
    summary: "run one task to the end, as codex exec does (--json: codex's JSONL events)",
    usage: "[PROMPT|-] | resume [SESSION_ID|--last] [PROMPT]",
    words: ["resume"],
    flags: [
      "--json",
      "--experimental-json",
      "--model",
      "--cd",
      "--sandbox",
      "--ask-for-approval",
      "--full-auto",
      "--dangerously-bypass-approvals-and-sandbox",
      "--skip-git-repo-check",
      "--image",
      "--config",
      "--output-schema",
      "--output-last-message",
      "--add-dir",
      "--ephemeral",
      "--color",
      "--last",
    ],
    run: async (argv, io) => (await import("./exec/command.ts")).runExec(argv, io),
  },
  mcp: {
    summary: "MCP servers: add, add-json, list, get, remove (Claude Code's syntax and scopes); serve: gong as one",
    usage: "add|add-json|list|get|remove|serve …",
    words: ["add", "add-json", "list", "get", "remove", "serve"],
    flags: ["--scope", "--transport", "--env", "--header", "--trust", "--cwd"],
    run: async (argv, io) => (await import("./mcp-command.ts")).runMcpCommand(argv, io),
  },
  doctor: {
    summary: "what gong found: keys, providers, shell, tools, sandbox, settings, MCP servers",
    usage: "",
    flags: ["--cwd", "--trust"],
    run: async (argv, io) => (await import("./doctor.ts")).runDoctor(argv, io),
  },
  init: {
    summary: "the model reads the repository and writes an AGENTS.md for it",
    usage: "",
    flags: ["--model", "--cwd", "--force"],
    run: async (argv, io) => (await import("./init-command.ts")).runInit(argv, io),
  },
  completion: {
    summary: "a completion script for bash, zsh or fish",
    usage: "bash|zsh|fish",
    words: ["bash", "zsh", "fish"],
    run: async (argv, io) => (await import("./completion-scripts.ts")).runCompletion(argv, io, SUBCOMMANDS),
  },
  sessions: {
    summary: "list this directory's sessions",
    usage: "",
    flags: ["--cwd"],
    run: flagCommand("sessions", async (opts, io) => (await import("./list-commands.ts")).sessionsCommand(opts, io)),
  },
  rewind: {
    summary: "list a session's checkpoints, or put files and conversation back to one",
    usage: "[--to TURN] [--files-only|--conversation-only] [--force] [-r SESSION]",
    flags: ["--to", "--files-only", "--conversation-only", "--force", "--resume", "--session", "--cwd"],
    run: flagCommand("rewind", async (opts, io) => (await import("./rewind-command.ts")).rewindCommand(opts, io)),
  },
  checkpoints: {
    summary: "prune old checkpoints (retention, total budget)",
    usage: "gc",
    words: ["gc"],
    flags: ["--cwd"],
    run: async (argv, io) => {
      if (argv[0] !== "--help" && argv[0] !== "-h") chooseWord(argv[0], ["gc"], "gong checkpoints");
      return flagCommand("checkpoints-gc", async (opts, out) =>
        (await import("./rewind-command.ts")).checkpointsGcCommand(opts, out),
      )(argv.slice(argv[0] === "gc" ? 1 : 0), io);
    },
  },
  export: {
    summary: "a session as a trajectory (ATIF), a transcript, a page or its own lines",
    usage: "[SESSION] --format atif|markdown|html|jsonl [-o FILE]",
    flags: ["--format", "--output", "--cwd"],
    run: flagCommand("export", async (opts, io) => (await import("./export-command.ts")).exportCommand(opts, io)),
  },
  update: {
    summary: "replace a downloaded gong with the release's newer build",
    usage: "[--release URL]",
    flags: ["--release"],
    run: async (argv, io) => (await import("./update.ts")).runUpdate(argv, io),
  },
  plugin: {
    summary: "Claude Code plugins and marketplaces: install, list, enable, disable, update, uninstall",
    usage: "install|uninstall|list|enable|disable|update|marketplace …",
    words: ["install", "uninstall", "list", "enable", "disable", "update", "marketplace"],
    flags: ["--scope", "--cwd"],
    run: async (argv, io) => (await import("./plugin-command.ts")).runPluginCommand(argv, io),
  },
  extensions: {
    summary: "gemini-cli extensions: install, uninstall, list",
    usage: "install PATH|GIT_URL [--ref REF] | uninstall NAME | list",
    words: ["install", "uninstall", "list"],
    flags: ["--ref", "--cwd"],
    run: async (argv, io) => (await import("./extensions-command.ts")).runExtensionsCommand(argv, io),
  },
  batch: {
    summary: "run many tasks at once (gong batch --help)",
    usage: "TASKS.jsonl [--workers N] …",
    words: ["run-one", "resume", "collect", "export", "status"],
    run: async (argv, io) => (await import("../batch/cli.ts")).runBatchCli(argv, io),
  },
  help: {
    summary: "this help, or a command's (gong help exec)",
    usage: "[COMMAND]",
    run: async (argv, io) => {
      const name = argv[0];
      if (name === undefined) return SUBCOMMANDS.help.run(["--help"], io);
      if (name === "--help" || name === "-h") {
        io.stdout.write((await import("./help.ts")).helpText(SUBCOMMANDS));
        return 0;
      }
      return commandNamed(name, "gong help").run(["--help"], io);
    },
  },
};

/** A subcommand that takes gong's own flags (parsed by args.ts), with its help from the declaration. */
function flagCommand(command: FlagCommand, run: (opts: CliOptions, io: Io) => Promise<number>) {
  const name = command === "checkpoints-gc" ? "checkpoints" : command;
  return async (argv: string[], io: Io): Promise<number> => {
    const opts = parseCliArgs(argv, command);
    if (opts.command === "help") {
      io.stdout.write(commandHelp(name));
      return 0;
    }
    return run(opts, io);
  };
}

/** A declared command's help: its usage, what it does, its flags. */
export function commandHelp(name: string): string {
  const c = SUBCOMMANDS[name];
  const flags = c.flags?.length ? `\nFlags: ${c.flags.join(", ")}\n` : "";
  return `gong ${name} — ${c.summary}\n\nUsage:\n  gong ${name}${c.usage ? ` ${c.usage}` : ""}\n${flags}`;
}

/** The subcommand a word names exactly, if any. */
export function subcommandOf(word: string | undefined): Subcommand | undefined {
  return word !== undefined && Object.hasOwn(SUBCOMMANDS, word) ? SUBCOMMANDS[word] : undefined;
}

/** The subcommand named `word`, or a usage error with the nearest name. */
function commandNamed(word: string, context: string): Subcommand {
  const found = subcommandOf(word);
  if (found) return found;
  const near = closest(word, Object.keys(SUBCOMMANDS));
  throw new UsageError(`${context}: no command '${word}'.${near ? ` Did you mean '${near}'?` : ""}`);
}

/**
 * A word that is not a subcommand but looks like one: an unquoted single word a known name is one
 * typo away from (`doctr`, `sesions`, `mpc`), or a subcommand's exact name written after flags
 * (`gong --cwd x sessions`). The sentence says what was meant and how to send the word as a prompt.
 */
export function lookalikeCommand(word: string, first: boolean): string | undefined {
  if (!/^[a-z][a-z-]*$/i.test(word)) return undefined;
  const near = closest(word, Object.keys(SUBCOMMANDS));
  if (near === undefined || (first && near === word)) return undefined;
  const meant =
    near === word
      ? `'${word}' is a gong command: write it first (gong ${word} …)`
      : `'${word}' is not a gong command. Did you mean 'gong ${near}'?`;
  return `${meant} To send '${word}' to the model as a prompt, use -p: gong -p "${word} …".`;
}
