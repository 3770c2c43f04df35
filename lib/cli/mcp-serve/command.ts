/**
 * `gong mcp serve [flags]`: gong as an MCP server on stdin/stdout, for other agents and programs
 * (Claude Code, codex, gemini-cli, gong itself, the SDKs' clients) to call as a tool. It takes
 * gong's session flags (model, key, base URL, approval, sandbox, tools, profile, trust, …) as the
 * defaults of every task, and `--file-tools` to offer gong's file tools too. The server's own
 * setup is prepared before the first message is read, so a bad flag or settings file ends it at
 * once (exit 2) instead of failing every call. stdout carries protocol messages only.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { Readable, Writable } from "node:stream";
import { UsageError } from "../../core/errors.ts";
import { EXIT } from "../../core/outcome.ts";
import { prepareSession } from "../../core/prepare.ts";
import { parseCliArgs, sessionFlags, type CliOptions } from "../args.ts";
import type { Io } from "../session-io.ts";
import { Termination } from "../termination.ts";
import { McpServeHost } from "./host.ts";

export const MCP_SERVE_HELP = `gong mcp serve — gong as an MCP server on stdio

Usage:
  gong mcp serve [--model PROVIDER/ID] [--approval MODE] [--sandbox MODE] [--file-tools] [flags]

Tools offered:
  gong         run a task in a new session (prompt, cwd, model, approval-policy, sandbox, …);
               answers with the session's final message and its threadId
  gong-reply   continue a session (threadId, prompt)
  read, write, edit, grep, find, ls   with --file-tools: gong's file tools in the server's directory

Flags are gong's session flags, the defaults of every task: --model, --api-key, --base-url,
--reasoning-effort, --tools, --profile, --system-prompt, --append-system-prompt, --cwd,
--max-turns, --max-cost-usd, --sandbox, --approval, --web-search, --trust, --no-session, --verbose.
Permission questions go to the client when it answers MCP elicitation requests; otherwise what
--approval would ask is refused, as in print mode.

Add it to Claude Code:  claude mcp add gong -- gong mcp serve
`;

export async function runMcpServe(argv: string[], io: Io): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.stdout.write(MCP_SERVE_HELP);
    return EXIT.ok;
  }
  const opts = parseCliArgs(argv.filter((a) => a !== "--file-tools"));
  refuseOtherFlags(opts);
  const cwd = resolve(opts.cwd ?? process.cwd());
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new UsageError(`--cwd ${opts.cwd}: no such directory.`);
  const flags = sessionFlags(opts);
  const warn = (line: string) => void io.stderr.write(`${line}\n`);
  const setup = await prepareSession({ cwd, flags, env: io.env, warn });
  for (const notice of setup.notices) warn(`gong: ${notice}`);

  const host = new McpServeHost({ cwd, flags, env: io.env, warn, fileTools: argv.includes("--file-tools") }, setup);
  const stop = new AbortController();
  const termination = new Termination({
    signals: ["SIGTERM", "SIGHUP", "SIGINT"],
    onSignal: (signal) => {
      host.terminate(`gong received ${signal}`);
      stop.abort();
    },
  });
  const transport = new StdioServerTransport(io.stdin as Readable, io.stdout as Writable);
  // The client went away (its end of stdin closed, or stdout broke): the tasks stop with it.
  const gone = () => void transport.close();
  io.stdin.on("end", gone);
  io.stdin.on("close", gone);
  io.stdout.on("error", gone);
  try {
    await host.serve(transport, stop.signal);
    return termination.exitCode ?? EXIT.ok;
  } finally {
    termination.release();
    io.stdin.off("end", gone);
    io.stdin.off("close", gone);
    io.stdout.off("error", gone);
  }
}

/** The flags that choose another mode or one session file mean nothing here: each call chooses its session. */
function refuseOtherFlags(opts: CliOptions): void {
  if (opts.command !== "run")
    throw new UsageError("'gong mcp serve' takes gong's session flags only (gong mcp serve --help lists them).");
  if (opts.prompt !== undefined || opts.attachments.length > 0)
    throw new UsageError("'gong mcp serve' takes no prompt: the client sends each task with the gong tool.");
  if (opts.mode !== "interactive")
    throw new UsageError("'gong mcp serve' speaks MCP on stdio: leave out -p, --mode and --output-format.");
  if (opts.continue || opts.resume !== undefined || opts.session || opts.fork || opts.name || opts.worktree)
    throw new UsageError(
      "Each gong call starts its own session and gong-reply continues one: leave out -c, -r, --session, --fork, --name and --worktree.",
    );
}
