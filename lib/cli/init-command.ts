/**
 * `gong init`: the model reads the repository and writes AGENTS.md (the prompt of /init), run to
 * the end as `gong -p` runs. It gets the reading tools and the file tools, no shell: it can look
 * and write, not run commands. gong's session flags apply (--model, --cwd, --trust, …).
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { UsageError } from "../core/errors.ts";
import { EXIT } from "../core/outcome.ts";
import { parseCliArgs } from "./args.ts";
import { INIT_PROMPT } from "./init-prompt.ts";
import type { Io } from "./session-io.ts";
import { runSession } from "./session-run.ts";

export const INIT_HELP = `gong init — the model reads the repository and writes AGENTS.md

Usage:
  gong init [--model M] [--cwd DIR] [any of gong's session flags]

It reads the build files, documentation, CI and source layout, then writes AGENTS.md at the root
(an existing one is rewritten, keeping what is still true). Its tools read and write files; it
runs no commands. The shell's /init does the same inside a session.
`;

export async function runInit(argv: string[], io: Io): Promise<number> {
  const opts = parseCliArgs(argv);
  if (opts.command === "help") {
    io.stdout.write(INIT_HELP);
    return EXIT.ok;
  }
  if (opts.command !== "run" || opts.prompt !== undefined || opts.attachments.length > 0)
    throw new UsageError("'gong init' takes no prompt: it writes AGENTS.md. Run 'gong init --help' for usage.");
  if (opts.mode === "rpc" || opts.mode === "acp")
    throw new UsageError("'gong init' runs to the end: leave out --mode.");
  const file = join(resolve(opts.cwd ?? process.cwd()), "AGENTS.md");
  const code = await runSession(
    { ...opts, prompt: INIT_PROMPT, printAsked: true, mode: "print", tools: opts.tools ?? "readonly,write,edit" },
    io,
  );
  if (code !== EXIT.ok) return code;
  if (!existsSync(file)) {
    io.stderr.write(`gong: the model did not write ${file}.\n`);
    return EXIT.failed;
  }
  io.stderr.write(`gong: wrote ${file}\n`);
  return EXIT.ok;
}
