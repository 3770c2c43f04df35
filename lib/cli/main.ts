/**
 * `gong`: parse the command line, pick a mode, run it, map what happened to an exit code
 * (0 done, 1 failed, 2 usage or configuration error, 130 interrupted). Errors are one sentence on
 * stderr; stack traces only with --verbose.
 */
import { resolve } from "node:path";
import { listModels } from "../llm/catalog.ts";
import { LlmError } from "../llm/errors.ts";
import { listChildSessions, listSessions } from "../store/list.ts";
import { VERSION } from "../version.ts";
import { HELP, parseCliArgs, UsageError, type CliOptions } from "./args.ts";
import { buildPrompt, EXIT, openSession, processIo, storeFor, readAll, type Io } from "./session-io.ts";
import { configureMcp, listMcpServers } from "./mcp.ts";
import { ConfigError } from "./model.ts";
import { runPrint } from "./print.ts";
import { expandInput, onCommandModel } from "./custom-commands.ts";
import { loadSettings, SettingsError } from "./settings.ts";
import { commandContext, prepareSession, workingDirectory, type CliSetup } from "./setup.ts";
import { Termination } from "./termination.ts";
import { decideTrust, type TrustDecision } from "./trust.ts";

export async function runCli(argv: string[], io: Io = processIo()): Promise<number> {
  let verbose = argv.includes("--verbose");
  try {
    // `gong batch …` has its own flags; only a first word "batch" means it (`gong -p batch` stays a prompt).
    if (argv[0] === "batch") return await (await import("../batch/cli.ts")).runBatchCli(argv.slice(1), io);
    // `gong update …` likewise: only as the first word, with its own flags.
    if (argv[0] === "update") return await (await import("./update.ts")).runUpdate(argv.slice(1), io);
    const opts = parseCliArgs(argv);
    verbose = opts.verbose;
    switch (opts.command) {
      case "help":
        io.stdout.write(HELP);
        return EXIT.ok;
      case "version":
        io.stdout.write(`gong ${VERSION}\n`);
        return EXIT.ok;
      case "list-models":
        return listModelsCommand(opts.listModelsFilter, io);
      case "sessions":
        return sessionsCommand(opts, io);
      case "mcp-list":
        return await mcpListCommand(opts, io);
      case "rewind":
        return (await import("./rewind-command.ts")).rewindCommand(opts, io);
      case "checkpoints-gc":
        return (await import("./rewind-command.ts")).checkpointsGcCommand(opts, io);
      default:
        return await runSession(opts, io);
    }
  } catch (e) {
    return reportError(e, verbose, io);
  }
}

async function runSession(opts: CliOptions, io: Io): Promise<number> {
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

async function runSessionIn(cwd: string, opts: CliOptions, trust: TrustDecision, io: Io): Promise<number> {
  const setup = await prepareSession(opts, cwd, trust, io.env, (line) => io.stderr.write(`${line}\n`));
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
async function projectTrust(cwd: string, opts: CliOptions, io: Io, ask = true): Promise<TrustDecision> {
  const canAsk = ask && effectiveMode(opts, io) === "interactive";
  return decideTrust(
    { cwd, flag: opts.trust, canAsk, env: io.env, input: io.stdin, output: io.stdout },
    loadSettings(cwd),
  );
}

async function runMode(opts: CliOptions, setup: CliSetup, io: Io): Promise<number> {
  // Each mode loads only what it needs: print mode, the common path, loads neither the shell nor RPC.
  if (opts.mode === "rpc") return await (await import("./rpc.ts")).runRpc(setup, io);
  // The ACP server and its SDK load only in ACP mode: other modes do not pay for them.
  if (opts.mode === "acp")
    return await (await import("./acp/server.ts")).runAcp(setup, io, {
      approval: opts.approval ?? setup.settings.approval ?? "ask",
      trust: opts.trust,
    });

  const mode = effectiveMode(opts, io);
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
          { prompt, format: opts.outputFormat, verbose: opts.verbose, terminated: setup.terminated },
          io,
        ),
      );
    } finally {
      await session.close();
      store.close();
    }
  }
  return await (await import("./interactive.ts")).runInteractive(setup, prompt, io, {
    approval: opts.approval ?? setup.settings.approval ?? "ask",
  });
}

/**
 * With no terminal to talk to (`echo task | gong`, a script, CI), the shell has no one to answer
 * it: the input runs to completion as print mode does.
 */
function effectiveMode(opts: CliOptions, io: Io): CliOptions["mode"] {
  return opts.mode === "interactive" && !io.stdin.isTTY ? "print" : opts.mode;
}

function listModelsCommand(filter: string | undefined, io: Io): number {
  const needle = filter?.toLowerCase();
  const models = listModels().filter(
    (m) => !needle || m.ref.toLowerCase().includes(needle) || m.name.toLowerCase().includes(needle),
  );
  if (models.length === 0) {
    io.stdout.write(
      `No known model matches '${filter}'. Any provider/model-id works; unknown ids get default limits.\n`,
    );
    return EXIT.ok;
  }
  const k = (n: number) => `${Math.round(n / 1000)}k`;
  for (const m of models) {
    const caps = [m.reasoning ? "reasoning" : "", m.images ? "images" : ""].filter(Boolean).join(",");
    const price = m.price.input || m.price.output ? `$${m.price.input}/$${m.price.output} per Mtok` : "";
    io.stdout.write(
      `${m.ref.padEnd(42)} ${k(m.contextWindow).padStart(6)} ctx  ${k(m.maxOutput).padStart(5)} out  ${caps.padEnd(16)} ${price}\n`,
    );
  }
  return EXIT.ok;
}

function sessionsCommand(opts: CliOptions, io: Io): number {
  const cwd = opts.cwd ?? process.cwd();
  const sessions = listSessions(cwd);
  if (sessions.length === 0) {
    io.stdout.write("No sessions in this directory yet.\n");
    return EXIT.ok;
  }
  for (const s of sessions) {
    const when = s.updated.toISOString().slice(0, 16).replace("T", " ");
    io.stdout.write(
      `${s.id.slice(0, 8)}  ${when}  ${String(Math.ceil(s.size / 1024)).padStart(6)} KB  ${s.name ?? s.firstMessage}\n`,
    );
    for (const child of listChildSessions(s.path))
      io.stdout.write(`  ↳ ${child.id.slice(0, 8)}  subagent  ${child.firstMessage}\n`);
  }
  return EXIT.ok;
}

async function mcpListCommand(opts: CliOptions, io: Io): Promise<number> {
  const cwd = resolve(opts.cwd ?? process.cwd());
  const trust = await projectTrust(cwd, opts, io, false);
  const mcp = await configureMcp(cwd, trust.loaded, trust.trusted, io.env);
  try {
    await listMcpServers(mcp, (s) => io.stdout.write(s));
  } finally {
    await mcp.manager?.close();
  }
  return EXIT.ok;
}

function reportError(e: unknown, verbose: boolean, io: Io): number {
  const message = e instanceof Error ? e.message : String(e);
  if (verbose && e instanceof Error && e.stack) io.stderr.write(`${e.stack}\n`);
  io.stderr.write(`gong: ${message}\n`);
  if (e instanceof UsageError || e instanceof ConfigError || e instanceof SettingsError) return EXIT.usage;
  if (e instanceof LlmError && (e.kind === "auth" || e.kind === "invalid_request")) return EXIT.usage;
  return EXIT.failed;
}
