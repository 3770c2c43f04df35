#!/usr/bin/env bun
/**
 * The `gong` binary's entry. `--version` answers before anything else is loaded, so it costs
 * nothing; every other command loads the CLI lazily. No top-level await (bytecode builds refuse it).
 */
import { VERSION } from "./lib/version.ts";

// A reader that closes the pipe early (`gong … | head -1`) is not an error worth a stack trace;
// print mode stops its work when it sees this, every other command just ends its output.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
});

async function main(argv: string[]): Promise<number> {
  if (argv.length === 1 && (argv[0] === "-v" || argv[0] === "--version")) {
    process.stdout.write(`gong ${VERSION}\n`);
    return 0;
  }
  // Before anything starts a command: gong's keys must not stay readable in /proc/<gong>/environ.
  const { hideOwnSecrets } = await import("./lib/env/own-secrets.ts");
  hideOwnSecrets();
  const { runCli } = await import("./lib/cli/main.ts");
  return runCli(argv);
}

main(process.argv.slice(2)).then(
  (code) => process.stdout.write("", () => process.exit(code)),
  (error) => {
    process.stderr.write(`gong: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
