/**
 * `gong`: a declared subcommand (subcommands.ts), or the command line parsed and its session run
 * (session-run.ts); what happened becomes an exit code (0 done, 1 failed, 2 usage or configuration
 * error, 3 unfinished, 4 an answer off its schema, 130 interrupted). Errors are one sentence on
 * stderr; stack traces only with --verbose.
 */
import { ConfigError, UsageError } from "../core/errors.ts";
import { EXIT } from "../core/outcome.ts";
import { SettingsError } from "../core/settings.ts";
import { LlmError } from "../llm/errors.ts";
import { VERSION } from "../version.ts";
import { parseCliArgs, type CliOptions } from "./args.ts";
import { lookalikeCommand, SUBCOMMANDS, subcommandOf } from "./subcommands.ts";
import { processIo, type Io } from "./session-io.ts";
import { runSession } from "./session-run.ts";

export async function runCli(argv: string[], io: Io = processIo()): Promise<number> {
  let verbose = argv.includes("--verbose");
  try {
    // A first word that names a subcommand runs it with the words after it (subcommands.ts).
    const subcommand = subcommandOf(argv[0]);
    if (subcommand) return await subcommand.run(argv.slice(1), io);
    const opts = parseCliArgs(argv);
    verbose = opts.verbose;
    switch (opts.command) {
      case "help":
        io.stdout.write((await import("./help.ts")).helpText(SUBCOMMANDS));
        return EXIT.ok;
      case "version":
        io.stdout.write(`gong ${VERSION}\n`);
        return EXIT.ok;
      // The listing commands load only when asked for.
      case "list-models":
        return (await import("./list-commands.ts")).listModelsCommand(opts.listModelsFilter, io);
      default:
        refuseLookalike(opts, argv);
        return await runSession(opts, io);
    }
  } catch (e) {
    return reportError(e, verbose, io);
  }
}

/** `gong doctr`, `gong sesions`: a word that looks like a subcommand is not sent to the model unless -p says so. */
function refuseLookalike(opts: CliOptions, argv: string[]): void {
  if (opts.printAsked || opts.prompt === undefined) return;
  const first = opts.prompt.split(" ")[0];
  const typed = argv.find((a) => a === first);
  // Only a word typed on its own: a quoted sentence ("doctor my code") is a prompt.
  if (typed === undefined) return;
  const sentence = lookalikeCommand(first, argv[0] === first);
  if (sentence) throw new UsageError(sentence);
}

function reportError(e: unknown, verbose: boolean, io: Io): number {
  const message = e instanceof Error ? e.message : String(e);
  if (verbose && e instanceof Error && e.stack) io.stderr.write(`${e.stack}\n`);
  io.stderr.write(`gong: ${message}\n`);
  if (e instanceof UsageError || e instanceof ConfigError || e instanceof SettingsError) return EXIT.usage;
  if (e instanceof LlmError && (e.kind === "auth" || e.kind === "invalid_request")) return EXIT.usage;
  return EXIT.failed;
}
