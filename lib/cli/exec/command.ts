/**
 * `gong exec [PROMPT|-]`, `gong exec resume [SESSION_ID|--last] [PROMPT]`: codex's `exec`, as a
 * host of the core. One task runs to the end: its progress goes to stderr and the final message to
 * stdout, or with `--json` codex's JSONL events to stdout (events.ts). codex's defaults hold: the
 * read-only sandbox, no approvals (nothing is asked: the sandbox bounds what runs), and a refusal
 * to run outside a git repository (or a trusted project) without `--skip-git-repo-check`.
 *
 * Sandboxes map onto gong's (`danger-full-access` is off); approvals onto gong's modes (`never`,
 * `on-request` and `on-failure`: nothing is asked — there is no one to ask; `untrusted`: file
 * changes and read-only commands pass, other commands are refused). Exit codes are codex's: 0 done,
 * 1 failed (2 a usage or configuration error; 4 an answer that never matched --output-schema).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, extname, join, resolve } from "node:path";
import type { ApprovalMode } from "../../gate/modes.ts";
import { UsageError } from "../../core/errors.ts";
import type { SessionChoice, SessionFlags } from "../../core/flags.ts";
import { openSession, storeFor } from "../../core/open.ts";
import { EXIT, runHeadless } from "../../core/outcome.ts";
import { prepareSession } from "../../core/prepare.ts";
import { loadSettings } from "../../core/settings.ts";
import { decideTrust } from "../../core/trust.ts";
import { writeFileAtomic } from "../../env/local-files.ts";
import type { SandboxMode } from "../../env/sandbox-profiles.ts";
import { resolveModelName } from "../../llm/catalog.ts";
import { VERSION } from "../../version.ts";
import { reportProgress } from "../print.ts";
import { makeStyle, useColor } from "../render.ts";
import { readAll, type Io } from "../session-io.ts";
import { Termination } from "../termination.ts";
import { flagDirectory, flagJsonFile } from "../flag-files.ts";
import { parseExecArgs, type CodexApproval, type CodexSandbox, type ExecOptions } from "./args.ts";
import { execConfig, type ExecConfig } from "./config-keys.ts";
import { CodexEvents } from "./events.ts";

export const EXEC_HELP = `gong exec — run one task to the end, as codex exec does

Usage:
  gong exec [OPTIONS] [PROMPT]            the prompt, or - (or nothing) to read it from stdin
  gong exec resume [SESSION_ID|--last] [PROMPT]

Options (codex's):
  -m, --model MODEL                 provider/id, or an id of the catalog (gpt-5.2, claude-sonnet-4-6)
  -C, --cd DIR                      work in DIR
  -s, --sandbox MODE                read-only (default) | workspace-write | danger-full-access
  -a, --ask-for-approval POLICY     never (default) | on-request | on-failure | untrusted
      --full-auto                   -s workspace-write -a on-request
      --dangerously-bypass-approvals-and-sandbox   no sandbox, nothing asked (alias --yolo)
      --skip-git-repo-check         run outside a git repository
  -i, --image FILE[,FILE]           attach images to the prompt
  -c, --config key=value            model, model_provider, model_reasoning_effort, approval_policy,
                                    sandbox_mode, sandbox_workspace_write.network_access,
                                    sandbox_workspace_write.writable_roots, web_search,
                                    tools.web_search, openai_base_url
      --add-dir DIR                 another directory the task may write
      --output-schema FILE          the final message is JSON valid against this JSON Schema
  -o, --output-last-message FILE    write the final message to FILE
      --json                        codex's JSONL events on stdout (--experimental-json too)
      --ephemeral                   do not save the session
      --trust                       trust this project for the run (its hooks, env, MCP servers)
      --ignore-user-config          do not read ~/.codex/config.toml (its MCP servers)

Exit codes: 0 done, 1 failed, 2 usage or configuration error, 4 the answer never matched
--output-schema. See docs/compatibility.md for every codex flag.
`;

const SANDBOXES: Record<CodexSandbox, SandboxMode> = {
  "read-only": "read-only",
  "workspace-write": "workspace-write",
  "danger-full-access": "off",
};

/** Where no one answers, asking is refusing: `untrusted` asks about commands that are not read-only. */
const APPROVALS: Record<CodexApproval, ApprovalMode> = {
  never: "auto",
  "on-request": "auto",
  "on-failure": "auto",
  untrusted: "edits",
};

const MIME: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

export async function runExec(argv: string[], io: Io): Promise<number> {
  const o = parseExecArgs(argv);
  if (o.help) {
    io.stdout.write(EXEC_HELP);
    return EXIT.ok;
  }
  if (o.version) {
    io.stdout.write(`gong ${VERSION}\n`);
    return EXIT.ok;
  }
  if (o.worktree)
    throw new UsageError('gong exec does not make worktrees: gong -p --worktree "…" runs one in a worktree of HEAD.');
  const config = await execConfig(o.config);
  const cwd = o.cwd === undefined ? process.cwd() : flagDirectory(o.cwd, "--cd");
  const trust = await decideTrust({ cwd, flag: o.trust, env: io.env }, loadSettings(cwd));
  for (const notice of trust.notices) io.stderr.write(`gong: ${notice}\n`);
  if (!o.skipGitRepoCheck && !insideGitRepository(cwd) && !trust.trusted) {
    io.stderr.write("Not inside a trusted directory and --skip-git-repo-check was not specified.\n");
    return EXIT.failed;
  }
  const prompt = await promptOf(o, io);
  // Files named on the command line are where the user typed them (-C moves the agent, not the shell).
  const images = o.images.map((file) => image(file));
  const setup = await prepareSession({
    cwd,
    flags: await execFlags(o, config, io.env),
    env: io.env,
    trust,
    warn: (line) => void io.stderr.write(`${line}\n`),
  });
  for (const notice of setup.notices) io.stderr.write(`gong: ${notice}\n`);
  const termination = new Termination({
    signals: ["SIGTERM", "SIGHUP", "SIGINT"],
    onSignal: (signal) => setup.terminate(`gong received ${signal}`),
  });
  try {
    const store = storeFor(setup);
    const session = await openSession(setup, store);
    const style = makeStyle(useColor(io.stderr, io.env));
    const events = o.json
      ? new CodexEvents(
          (event) => io.stdout.write(`${JSON.stringify(event)}\n`),
          (name) => mcpToolOf(session.mcp?.status() ?? [], name),
        )
      : undefined;
    events?.threadStarted(session.id);
    const unsubscribe = session.subscribe((event) =>
      events ? events.observe(event) : reportProgress(event, io, style),
    );
    try {
      const run = await runHeadless(session, prompt, {
        stops: [setup.terminated],
        verbose: !events,
        warn: (line) => io.stderr.write(`${line}\n`),
        schema: setup.answerSchema,
        images,
      });
      events?.turnEnded(run);
      const text = run.result.text;
      if (!events && text) io.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
      if (o.outputLastMessage && run.code === EXIT.ok) {
        const file = resolve(o.outputLastMessage);
        if (!existsSync(dirname(file))) io.stderr.write(`gong: cannot write ${file}: no such directory.\n`);
        else await writeFileAtomic(file, text);
      }
      if (run.failure) io.stderr.write(`gong: ${run.failure}\n`);
      return termination.exitCode ?? execExitCode(run.code);
    } finally {
      unsubscribe();
      await session.close();
      store.close();
    }
  } finally {
    termination.release();
    await setup.dispose();
  }
}

/** codex's exit codes: anything that did not finish is 1; usage and an answer off its schema keep gong's. */
function execExitCode(code: number): number {
  return code === EXIT.ok || code === EXIT.usage || code === EXIT.invalidOutput ? code : EXIT.failed;
}

/** The session's values from codex's flags and -c overrides (a flag wins over -c, as in codex). */
async function execFlags(o: ExecOptions, config: ExecConfig, env: Io["env"]): Promise<SessionFlags> {
  const model = modelOf(o.model ?? config.model, config.modelProvider);
  const provider = model?.slice(0, model.indexOf("/"));
  const sandbox = o.sandbox ?? config.sandbox ?? "read-only";
  const dirs = [...o.addDirs, ...(config.writableRoots ?? [])].map((dir) => flagDirectory(dir, "--add-dir"));
  const session: SessionChoice = o.ephemeral
    ? { kind: "unsaved" }
    : o.resume
      ? o.resume.last
        ? { kind: "latest" }
        : { kind: "resume", ref: o.resume.id! }
      : { kind: "new" };
  return {
    model,
    // The Codex SDK hands its key over as CODEX_API_KEY, and its base URL as openai_base_url.
    apiKey: provider === "openai" ? env.CODEX_API_KEY || undefined : undefined,
    baseUrl: provider === "openai" ? config.openaiBaseUrl : undefined,
    reasoningEffort: config.reasoningEffort,
    sandbox: SANDBOXES[sandbox],
    sandboxNetwork: config.network,
    addDirs: dirs.length > 0 ? dirs : undefined,
    approval: APPROVALS[o.approval ?? config.approval ?? "never"],
    webSearch: config.webSearch,
    trust: o.trust,
    session,
    skipCodexConfig: o.ignoreUserConfig,
    outputSchema: o.outputSchema
      ? { schema: flagJsonFile(o.outputSchema, "--output-schema"), source: o.outputSchema }
      : undefined,
  };
}

/** `-m gpt-5.2` with `-c model_provider=…`, or a name the catalog resolves. */
function modelOf(name: string | undefined, provider: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  if (provider && !name.includes("/")) return `${provider}/${name}`;
  return resolveModelName(name) ?? name;
}

/** The prompt: the words, stdin (for `-` or none), or both (stdin then follows in a <stdin> block). */
async function promptOf(o: ExecOptions, io: Io): Promise<string> {
  const fromStdin = o.prompt === undefined || o.prompt === "-";
  if (fromStdin && io.stdin.isTTY)
    throw new UsageError("No prompt provided. Either specify one as an argument or pipe the prompt into stdin.");
  const piped = io.stdin.isTTY ? "" : await readAll(io.stdin);
  const prompt = fromStdin
    ? piped.trim()
    : piped.trim()
      ? `${o.prompt}\n\n<stdin>\n${piped.trimEnd()}\n</stdin>`
      : o.prompt!;
  if (!prompt.trim())
    throw new UsageError("No prompt provided. Either specify one as an argument or pipe the prompt into stdin.");
  return prompt;
}

function image(file: string): { mimeType: string; data: string } {
  const path = resolve(file);
  const mimeType = MIME[extname(path).toLowerCase()];
  if (!mimeType) throw new UsageError(`--image ${file}: gong attaches PNG, JPEG, GIF and WebP images.`);
  try {
    return { mimeType, data: readFileSync(path).toString("base64") };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(`--image ${file}: ${code === "ENOENT" ? "no such file" : (e as Error).message}.`);
  }
}

/** Whether `dir` is inside a git working tree (a `.git` folder or file in it or above it). */
function insideGitRepository(dir: string): boolean {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, ".git"))) return true;
    if (dirname(at) === at) return false;
  }
}

/** The server and own name of an MCP tool the model calls by `name`. */
function mcpToolOf(
  servers: { name: string; tools: { name: string; exposedAs: string }[] }[],
  name: string,
): { server: string; tool: string } | undefined {
  for (const s of servers) {
    const tool = s.tools.find((t) => t.exposedAs === name);
    if (tool) return { server: s.name, tool: tool.name };
  }
  return undefined;
}
