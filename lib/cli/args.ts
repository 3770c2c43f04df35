/**
 * Command-line parsing (node:util parseArgs). Produces a plain options object; usage mistakes throw
 * `UsageError`, which the entry point turns into exit code 2 with one clear sentence.
 */
import { APPROVAL_MODES, isApprovalMode, type ApprovalMode } from "../gate/modes.ts";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { REASONING_EFFORTS, type ReasoningEffort } from "../llm/types.ts";
import { SANDBOX_MODES, type SandboxMode } from "../env/sandbox-profiles.ts";
import { UsageError } from "../core/errors.ts";
import type { SessionChoice, SessionFlags } from "../core/flags.ts";

export type OutputFormat = "text" | "json" | "stream-json";

export interface CliOptions {
  command:
    | "run"
    | "sessions"
    | "version"
    | "help"
    | "list-models"
    | "mcp-list"
    | "rewind"
    | "checkpoints-gc"
    | "export";
  prompt?: string;
  /** `@file` arguments: paths whose contents are attached to the prompt. */
  attachments: string[];
  outputFormat: OutputFormat;
  mode: "interactive" | "print" | "rpc" | "acp";
  /** --approval (or --approve): ask | edits | auto. */
  approval?: ApprovalMode;
  model?: string;
  apiKey?: string;
  baseUrl?: string;
  reasoningEffort?: ReasoningEffort;
  tools?: string;
  /** auto | default | anthropic | openai | gemini */
  profile?: string;
  systemPrompt?: string;
  appendSystemPrompt?: string;
  cwd?: string;
  maxTurns?: number;
  /** `--max-cost-usd`: no model call starts once the input's cost reached this. */
  maxCostUsd?: number;
  /** `--worktree`: run in a detached git worktree of HEAD, removed after (the diff is printed to stderr). */
  worktree: boolean;
  continue: boolean;
  /** `true` when -r was given without a value; else an id prefix, a session name or a file. */
  resume?: string | true;
  session?: string;
  /** With -c/-r/--session: continue in a new file branched off the session, leaving it to its owner. */
  fork: boolean;
  /** Names the session (resumable with -r NAME). */
  name?: string;
  noSession: boolean;
  listModelsFilter?: string;
  verbose: boolean;
  /** `--sandbox`: box commands with the OS sandbox. */
  sandbox?: SandboxMode;
  /** `--trust`: let this project's settings run code and redirect credentials. */
  trust: boolean;
  /** `--install-plugins`: install the plugins the settings turn on without asking. */
  installPlugins: boolean;
  /** `--web-search`: offer the provider's own web search to the model. */
  webSearch?: boolean;
  /** `gong rewind`: the checkpoint (--to), which half (--files-only / --conversation-only), and --force. */
  rewind: { to?: string; files: boolean; conversation: boolean; force: boolean };
  /** `gong export [SESSION] --format F [-o FILE]`: the session (latest when none), the format, the file (stdout when none). */
  export: { session?: string; format?: string; output?: string };
}

const OPTIONS = {
  print: { type: "boolean", short: "p" },
  "output-format": { type: "string" },
  mode: { type: "string" },
  approval: { type: "string" },
  approve: { type: "string" },
  model: { type: "string", short: "m" },
  "api-key": { type: "string" },
  "base-url": { type: "string" },
  "reasoning-effort": { type: "string" },
  tools: { type: "string" },
  profile: { type: "string" },
  "system-prompt": { type: "string" },
  "append-system-prompt": { type: "string" },
  cwd: { type: "string" },
  "max-turns": { type: "string" },
  "max-cost-usd": { type: "string" },
  worktree: { type: "boolean" },
  continue: { type: "boolean", short: "c" },
  resume: { type: "boolean", short: "r" },
  session: { type: "string" },
  "no-session": { type: "boolean" },
  fork: { type: "boolean" },
  name: { type: "string" },
  "list-models": { type: "boolean" },
  verbose: { type: "boolean" },
  sandbox: { type: "string" },
  trust: { type: "boolean" },
  "install-plugins": { type: "boolean" },
  "web-search": { type: "boolean" },
  to: { type: "string" },
  "files-only": { type: "boolean" },
  "conversation-only": { type: "boolean" },
  force: { type: "boolean" },
  format: { type: "string" },
  output: { type: "string", short: "o" },
  version: { type: "boolean", short: "v" },
  help: { type: "boolean", short: "h" },
} as const;

/** Options that take a value: a value that looks like a negative number is still their value. */
const VALUED = new Set(
  Object.entries(OPTIONS).flatMap(([name, o]) =>
    o.type === "string" ? [`--${name}`, ...("short" in o ? [`-${o.short}`] : [])] : [],
  ),
);

type Parsed = ReturnType<
  typeof parseArgs<{ args: string[]; options: typeof OPTIONS; allowPositionals: true; strict: true }>
>;
type Values = Parsed["values"];

export function parseCliArgs(argv: string[]): CliOptions {
  // parseArgs has no optional values: lift `-r [session]` and `--list-models [filter]` out first.
  // A word after -r always names a session (id prefix, name or file), never the prompt.
  const args = joinNegativeValues(argv);
  const resumeId = takeOptionalValue(args, ["-r", "--resume"], (v) => !v.startsWith("-"));
  const listFilter = takeOptionalValue(args, ["--list-models"], (v) => !v.startsWith("-"));
  let parsed: Parsed;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(`${(e as Error).message.replace(/\. To specify.*$/s, "")}. Run 'gong --help' for usage.`);
  }
  const v = parsed.values;
  const command = commandOf(v, parsed.positionals);
  const checked = checkedValues(v);
  checkSessionFlags(v, resumeId);

  const words = command === "run" ? parsed.positionals : [];
  const attachments = words.filter((w) => w.startsWith("@") && w.length > 1).map((w) => w.slice(1));
  const promptWords = words.filter((w) => !(w.startsWith("@") && w.length > 1));
  const print = Boolean(v.print) || v.mode === "print" || checked.outputFormat !== "text";
  return {
    command,
    prompt: promptWords.length > 0 ? promptWords.join(" ") : undefined,
    attachments,
    mode: v.mode === "rpc" || v.mode === "acp" ? v.mode : print ? "print" : "interactive",
    ...checked,
    model: v.model,
    apiKey: v["api-key"],
    baseUrl: v["base-url"],
    tools: v.tools,
    profile: v.profile,
    systemPrompt: v["system-prompt"],
    appendSystemPrompt: v["append-system-prompt"],
    cwd: v.cwd,
    worktree: Boolean(v.worktree),
    continue: Boolean(v.continue),
    resume: resumeId ?? (v.resume ? true : undefined),
    session: v.session,
    noSession: Boolean(v["no-session"]),
    fork: Boolean(v.fork),
    name: v.name?.trim(),
    listModelsFilter: listFilter,
    ...(v["web-search"] ? { webSearch: true } : {}),
    verbose: Boolean(v.verbose),
    trust: Boolean(v.trust),
    installPlugins: Boolean(v["install-plugins"]),
    rewind: { to: v.to, files: !v["conversation-only"], conversation: !v["files-only"], force: Boolean(v.force) },
    export: { session: command === "export" ? parsed.positionals[1] : undefined, format: v.format, output: v.output },
  };
}

/** The command the words name (a run unless they name another), with the flags only `gong rewind` takes checked. */
function commandOf(v: Values, positionals: string[]): CliOptions["command"] {
  let command: CliOptions["command"] = "run";
  if (v.help) command = "help";
  else if (v.version) command = "version";
  else if (v["list-models"]) command = "list-models";
  else if (positionals[0] === "sessions" && positionals.length === 1) command = "sessions";
  else if (positionals[0] === "mcp" && positionals.length <= 2) {
    if (positionals[1] !== undefined && positionals[1] !== "list")
      throw new UsageError(`Unknown command 'gong mcp ${positionals[1]}'. Use 'gong mcp list'.`);
    command = "mcp-list";
  } else if (positionals[0] === "rewind" && positionals.length === 1) command = "rewind";
  else if (positionals[0] === "checkpoints" && positionals.length <= 2) {
    if (positionals[1] !== "gc")
      throw new UsageError(
        `Unknown command 'gong checkpoints${positionals[1] ? ` ${positionals[1]}` : ""}'. Use 'gong checkpoints gc'.`,
      );
    command = "checkpoints-gc";
  } else if (positionals[0] === "export" && positionals.length <= 2) command = "export";
  if (command !== "export" && (v.format !== undefined || v.output !== undefined))
    throw new UsageError("--format and --output belong to 'gong export'.");
  if (command !== "rewind" && (v.to !== undefined || v["files-only"] || v["conversation-only"] || v.force)) {
    throw new UsageError("--to, --files-only, --conversation-only and --force belong to 'gong rewind'.");
  }
  if (v["files-only"] && v["conversation-only"])
    throw new UsageError("Use either --files-only or --conversation-only, not both.");
  return command;
}

/** The flags whose values must be one of a list or a number in range, checked and typed. */
function checkedValues(
  v: Values,
): Pick<CliOptions, "outputFormat" | "approval" | "reasoningEffort" | "maxTurns" | "maxCostUsd" | "sandbox"> {
  const outputFormat = (v["output-format"] ?? "text") as OutputFormat;
  if (!["text", "json", "stream-json"].includes(outputFormat)) {
    throw new UsageError(`--output-format must be text, json or stream-json (got '${outputFormat}').`);
  }
  if (v.mode !== undefined && v.mode !== "rpc" && v.mode !== "acp" && v.mode !== "print" && v.mode !== "interactive") {
    throw new UsageError(`--mode must be rpc, acp, print or interactive (got '${v.mode}').`);
  }
  const approval = v.approval ?? v.approve;
  if (approval !== undefined && !isApprovalMode(approval))
    throw new UsageError(`--approval must be ${APPROVAL_MODES.join(", ")} (got '${approval}').`);
  const effort = v["reasoning-effort"];
  if (effort !== undefined && !(REASONING_EFFORTS as readonly string[]).includes(effort)) {
    throw new UsageError(`--reasoning-effort must be ${REASONING_EFFORTS.join(", ")} (got '${effort}').`);
  }
  let maxTurns: number | undefined;
  if (v["max-turns"] !== undefined) {
    maxTurns = Number(v["max-turns"]);
    if (!Number.isInteger(maxTurns) || maxTurns < 1)
      throw new UsageError(`--max-turns must be a positive integer (got '${v["max-turns"]}').`);
  }
  let maxCostUsd: number | undefined;
  if (v["max-cost-usd"] !== undefined) {
    maxCostUsd = Number(v["max-cost-usd"]);
    if (!Number.isFinite(maxCostUsd) || maxCostUsd <= 0)
      throw new UsageError(`--max-cost-usd must be a positive number of US dollars (got '${v["max-cost-usd"]}').`);
  }
  const sandbox = v.sandbox;
  if (sandbox !== undefined && !(SANDBOX_MODES as readonly string[]).includes(sandbox)) {
    throw new UsageError(
      `--sandbox must be ${SANDBOX_MODES.slice(0, -1).join(", ")} or ${SANDBOX_MODES.at(-1)} (got '${sandbox}').`,
    );
  }
  return {
    outputFormat,
    approval,
    reasoningEffort: effort as ReasoningEffort | undefined,
    maxTurns,
    maxCostUsd,
    sandbox: sandbox as SandboxMode | undefined,
  };
}

/** -c, -r, --session, --no-session, --fork and --name: the combinations that make sense. */
function checkSessionFlags(v: Values, resumeId: string | undefined): void {
  if (v.continue && (v.resume || resumeId)) throw new UsageError("Use either --continue or --resume, not both.");
  if (v["no-session"] && (v.continue || v.resume || resumeId || v.session)) {
    throw new UsageError("--no-session cannot be combined with --continue, --resume or --session.");
  }
  if (v.fork && !(v.continue || v.resume || resumeId || v.session))
    throw new UsageError("--fork branches off an existing session: use it with --continue, --resume or --session.");
  if (v.name !== undefined && v.name.trim() === "") throw new UsageError("--name needs a non-empty name.");
}

/** The command line's session flags as the value every host hands the core (lib/core/flags.ts). */
export function sessionFlags(opts: CliOptions): SessionFlags {
  return {
    model: opts.model,
    apiKey: opts.apiKey,
    baseUrl: opts.baseUrl,
    reasoningEffort: opts.reasoningEffort,
    tools: opts.tools,
    profile: opts.profile,
    systemPrompt: opts.systemPrompt,
    appendSystemPrompt: opts.appendSystemPrompt,
    maxTurns: opts.maxTurns,
    maxCostUsd: opts.maxCostUsd,
    sandbox: opts.sandbox,
    webSearch: opts.webSearch,
    approval: opts.approval,
    trust: opts.trust,
    installPlugins: opts.installPlugins,
    session: sessionChoice(opts),
    fork: opts.fork,
    name: opts.name,
  };
}

/** --no-session, --session FILE, -r [SESSION], -c, or a new session. */
function sessionChoice(opts: CliOptions): SessionChoice {
  if (opts.noSession) return { kind: "unsaved" };
  if (opts.session) return { kind: "resume", ref: resolve(opts.session) };
  if (typeof opts.resume === "string") return { kind: "resume", ref: opts.resume };
  if (opts.continue || opts.resume === true) return { kind: "latest" };
  return { kind: "new" };
}

/** `--max-turns -1` → `--max-turns=-1`, so the value reaches validation instead of parseArgs' ambiguity error. */
function joinNegativeValues(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const next = argv[i + 1];
    if (VALUED.has(argv[i]) && next !== undefined && /^-\d/.test(next)) {
      out.push(argv[i].startsWith("--") ? `${argv[i]}=${next}` : `${argv[i]}${next}`);
      i++;
    } else out.push(argv[i]);
  }
  return out;
}

/** Removes `flag [value]` (or the value of `--flag=value`) from args; returns the value when `accept` takes it. The flag stays for parseArgs. */
function takeOptionalValue(args: string[], flags: string[], accept: (v: string) => boolean): string | undefined {
  const inline = args.findIndex((a) => flags.some((f) => f.startsWith("--") && a.startsWith(`${f}=`)));
  if (inline >= 0) {
    const [flag, ...value] = args[inline].split("=");
    args[inline] = flag;
    return value.join("=");
  }
  const at = args.findIndex((a) => flags.includes(a));
  if (at < 0) return undefined;
  const next = args[at + 1];
  if (next !== undefined && accept(next)) {
    args.splice(at + 1, 1);
    return next;
  }
  return undefined;
}

export const HELP = `gong — a coding agent

Usage:
  gong [prompt]                 interactive session (line mode)
  gong -p "prompt"              run to completion, print the answer, exit
  git diff | gong -p "review"   the prompt may also come on stdin
  gong sessions                 list this directory's sessions
  gong mcp list                 MCP servers: state and tools
  gong batch TASKS.jsonl        run many tasks at once (gong batch --help)
  gong rewind [--to TURN]       list a session's checkpoints, or put its files and
                                conversation back to one (--files-only,
                                --conversation-only; --force overwrites files
                                changed outside gong); -r picks the session
  gong checkpoints gc           prune old checkpoints (retention, total budget)
  gong export [SESSION] --format atif|markdown|html|jsonl [-o FILE]
                                a session as a trajectory (ATIF), a transcript, a
                                page or its own lines (latest session when none)
  gong update                   replace a downloaded gong with the release's newer build
  gong plugin …                 Claude Code plugins and marketplaces (gong plugin --help)
  gong extensions …             gemini-cli extensions (gong extensions --help)
  gong --mode rpc               JSON lines on stdin/stdout for editors and programs
  gong --mode acp               Agent Client Protocol on stdio (Zed and other editors)

Options:
  -p, --print                   non-interactive: print the final answer and exit
      --output-format FMT       text | json | stream-json (print mode)
      --mode rpc|acp            JSON-lines RPC host protocol, or ACP for editors, on stdio
      --approval MODE           ask | edits | auto: which calls wait for consent (shell, ACP; default ask);
                                in print and RPC mode (default auto) what would wait is refused
  -m, --model PROVIDER/ID       e.g. anthropic/claude-sonnet-4-6, openai/gpt-5.2,
                                gemini/gemini-2.5-pro, ollama/qwen3-coder, fake/script.json
      --api-key KEY             API key for the model's provider
      --base-url URL            base URL for the model's provider
      --reasoning-effort LEVEL  low | medium | high | xhigh
      --tools SET               default | minimal | readonly | read,grep,... | default,apply_patch
      --profile NAME            auto (from the model) | default | anthropic | openai | gemini
      --system-prompt TEXT      replace the base instructions
      --append-system-prompt T  append instructions (highest priority)
      --cwd DIR                 work in DIR
      --max-turns N             stop after N model turns
      --max-cost-usd X          stop before a model call once the run cost X US dollars
      --worktree                work in a detached git worktree of HEAD, removed after;
                                its diff is kept as a file named on stderr
      --web-search              let the model use its provider's own web search
                                (Anthropic, OpenAI Responses, Gemini)
  -c, --continue                continue the most recent session here
  -r, --resume [SESSION]        resume a session: id prefix, name or file (latest when none)
      --session FILE            use this session file
      --fork                    with -c/-r/--session: continue in a new branch file
      --name NAME               name the session (resume it later with -r NAME)
      --no-session              do not save the session
      --list-models [FILTER]    list known models
      --sandbox MODE            box commands: workspace-write | read-only | off
      --trust                   let this project's .gong/settings.json run hooks and
                                choose providers (asked once in the interactive shell)
      --install-plugins         install the plugins the settings turn on (enabledPlugins)
                                without asking; a project's only when it is trusted
      --verbose                 stack traces and diagnostics on stderr
  -v, --version                 print the version
  -h, --help                    this help

@file arguments attach a file's contents to the prompt.
Keys: ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY (or GOOGLE_API_KEY), and each
OpenAI-compatible provider's variable. Settings: ~/.gong/settings.json and .gong/settings.json;
MCP servers: .mcp.json and "mcpServers" in settings.
Exit codes: 0 done, 1 failed, 2 usage or configuration error, 130 interrupted.
`;
