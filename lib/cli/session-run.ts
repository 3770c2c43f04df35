/**
 * A session for the command line's options: trust decided (the shell asks), the worktree made when
 * asked for, the core's setup, then the mode — print, RPC, ACP, Claude Code's stream-json, the shell.
 * `gong …` runs it, and `gong init` with its own prompt.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "../core/errors.ts";
import { openSession, storeFor } from "../core/open.ts";
import { EXIT } from "../core/outcome.ts";
import { prepareSession, type SessionSetup } from "../core/prepare.ts";
import { loadSettings } from "../core/settings.ts";
import { decideTrust, type TrustDecision } from "../core/trust.ts";
import { claudePermissionMode } from "../gate/modes.ts";
import { sessionFlags, type CliOptions } from "./args.ts";
import { commandContext, expandInput, onCommandModel } from "./custom-commands.ts";
import { runPrint } from "./print.ts";
import { buildPrompt, readAll, type Io } from "./session-io.ts";
import { Termination } from "./termination.ts";

/** A session for the options as parsed (a prompt, a mode, its flags): what `gong …` runs, and `gong init`. */
export async function runSession(opts: CliOptions, io: Io): Promise<number> {
  const project = workingDirectory(opts);
  const trust = await projectTrust(project, opts, io);
  for (const notice of trust.notices) io.stderr.write(`gong: ${notice}\n`);
  // --worktree: the session works in a detached worktree of HEAD; trust and settings stay the project's.
  const worktree = opts.worktree
    ? await (await import("../batch/single-worktree.ts")).openSingleWorktree(project)
    : undefined;
  try {
    return await runSessionIn(worktree?.dir ?? project, opts, trust, io);
  } finally {
    const diff = await worktree
      ?.finish()
      .catch((e) => void io.stderr.write(`gong: the worktree could not be cleaned up: ${(e as Error).message}\n`));
    if (worktree)
      io.stderr.write(diff ? `gong: the worktree's changes: ${diff}\n` : "gong: the worktree had no changes.\n");
  }
}

/** The directory gong works in (--cwd, or where it started); one that does not exist is a usage error. */
function workingDirectory(opts: CliOptions): string {
  const cwd = resolve(opts.cwd ?? process.cwd());
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new UsageError(`--cwd ${opts.cwd}: no such directory.`);
  return cwd;
}

async function runSessionIn(cwd: string, given: CliOptions, trust: TrustDecision, io: Io): Promise<number> {
  let opts = given;
  // `gong -r` alone in a terminal: the session picker chooses (none here: the latest, as before, says so).
  if (opts.resume === true && effectiveMode(opts, io) === "interactive" && io.stdout.isTTY) {
    const picked = await (await import("./session-picker.ts")).pickOnTerminal(cwd, io);
    if (picked === null) {
      io.stderr.write("gong: no session chosen.\n");
      return EXIT.ok;
    }
    if (picked !== undefined) opts = { ...opts, resume: picked };
  }
  const setup = await prepareSession({
    cwd,
    flags: sessionFlags(opts),
    env: io.env,
    trust,
    warn: (line) => void io.stderr.write(`${line}\n`),
    // The shell asks before installing the plugins the settings ask for; other modes say how instead.
    confirm: effectiveMode(opts, io) === "interactive" ? askPerson(io) : undefined,
  });
  for (const notice of setup.notices) io.stderr.write(`gong: ${notice}\n`);
  // SIGTERM and SIGHUP end every mode; SIGINT (Ctrl-C) too, except in the shell, which reads Ctrl-C itself.
  const termination = new Termination({
    signals: effectiveMode(opts, io) === "interactive" ? ["SIGTERM", "SIGHUP"] : ["SIGTERM", "SIGHUP", "SIGINT"],
    onSignal: (signal) => setup.terminate(`gong received ${signal}`),
  });
  try {
    const code = await runMode(opts, setup, io);
    return termination.exitCode ?? code;
  } finally {
    termination.release();
    await setup.dispose();
  }
}

/**
 * Whether the project's own settings that run code or redirect credentials take effect: --trust,
 * the global list, a remembered yes, or — in the interactive shell — the user's answer now.
 */
async function projectTrust(cwd: string, opts: CliOptions, io: Io): Promise<TrustDecision> {
  const canAsk = effectiveMode(opts, io) === "interactive";
  return decideTrust(
    {
      cwd,
      flag: opts.trust,
      env: io.env,
      // Only the shell asks: the question's reader loads then.
      ask: canAsk ? askPerson(io) : undefined,
    },
    loadSettings(cwd),
  );
}

/** A yes/no question put to the person at the terminal (its reader loads with the first question). */
function askPerson(io: Io): (question: string) => Promise<boolean> {
  return async (question) => (await import("./trust-question.ts")).askOnTerminal(io.stdin, io.stdout)(question);
}

async function runMode(opts: CliOptions, setup: SessionSetup, io: Io): Promise<number> {
  // Each mode loads only what it needs: print mode, the common path, loads neither the shell nor RPC.
  if (opts.mode === "rpc") return await (await import("./rpc.ts")).runRpc(setup, io);
  // The ACP server and its SDK load only in ACP mode: other modes do not pay for them.
  if (opts.mode === "acp") return await (await import("./acp/server.ts")).runAcp(setup, io);

  const mode = effectiveMode(opts, io);
  // Claude Code's streaming protocol: user messages as JSON lines on stdin, Claude Code's messages on stdout.
  if (opts.claude.inputFormat === "stream-json") {
    if (opts.outputFormat !== "stream-json")
      throw new UsageError("--input-format stream-json needs --output-format stream-json.");
    if (opts.prompt !== undefined)
      throw new UsageError("With --input-format stream-json the prompt comes on stdin, as user messages.");
    return await (await import("./claude-stream/run.ts")).runClaudeStream(
      setup,
      // Where no one answers, what the flags did not ask about runs (the gate's headless default).
      {
        replay: opts.claude.replayUserMessages,
        // A program that answers (canUseTool) is asked what Claude Code's default mode asks; otherwise what the flags did not ask about runs.
        permissionMode:
          opts.claude.permissionMode === "dontAsk"
            ? "dontAsk"
            : claudePermissionMode(setup.flags.approval ?? (opts.claude.programAnswers ? "ask" : "auto")),
        programAnswers: opts.claude.programAnswers,
        partialMessages: opts.claude.partialMessages,
      },
      io,
    );
  }
  const piped = !io.stdin.isTTY && mode === "print" ? await readAll(io.stdin, setup.maxInputBytes) : undefined;
  // `gong -p "/review src"`: a custom command's expansion is the prompt.
  const input = opts.prompt !== undefined ? await expandInput(opts.prompt, commandContext(setup)) : undefined;
  const words = input?.text;
  const prompt =
    words !== undefined || opts.attachments.length > 0 || piped
      ? buildPrompt(words, opts.attachments, piped, setup.cwd, setup.maxInputBytes)
      : undefined;

  if (mode === "print") {
    if (!prompt) throw new UsageError('Print mode needs a prompt: gong -p "your task" (or pipe one on stdin).');
    if (setup.terminated.aborted) return EXIT.interrupted;
    const store = storeFor(setup);
    const session = await openSession(setup, store);
    try {
      return await onCommandModel(session, input?.model, () =>
        runPrint(
          session,
          {
            prompt,
            format: opts.outputFormat,
            verbose: opts.verbose,
            terminated: setup.terminated,
            schema: setup.answerSchema,
          },
          io,
        ),
      );
    } finally {
      await session.close();
      store.close();
    }
  }
  return await (await import("./interactive.ts")).runInteractive(setup, prompt, io);
}

/**
 * With no terminal to talk to (`echo task | gong`, a script, CI), the shell has no one to answer
 * it: the input runs to completion as print mode does.
 */
function effectiveMode(opts: CliOptions, io: Io): CliOptions["mode"] {
  return opts.mode === "interactive" && !io.stdin.isTTY ? "print" : opts.mode;
}
