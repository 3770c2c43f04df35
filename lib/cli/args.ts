/**
 * Command-line parsing (node:util parseArgs). Produces a plain options object; usage mistakes throw
 * `UsageError`, which the entry point turns into exit code 2 with one clear sentence. gong's own
 * flags and Claude Code's headless flags (claude-flags.ts) are read together; the subcommands that
 * take gong's flags (sessions, rewind, checkpoints gc, export) are parsed here too, each accepting
 * only its own.
 */
import { APPROVAL_MODES, isApprovalMode, type ApprovalMode } from "../gate/modes.ts";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { REASONING_EFFORTS, type ReasoningEffort } from "../llm/types.ts";
import { SANDBOX_MODES, type SandboxMode } from "../env/sandbox-profiles.ts";
import { UsageError } from "../core/errors.ts";
import type { SessionChoice, SessionFlags } from "../core/flags.ts";
import {
  CLAUDE_OPTIONAL_VALUE,
  CLAUDE_OPTIONS,
  CLAUDE_VARIADIC,
  claudeFlags,
  type ClaudeFlags,
} from "./claude-flags.ts";
import { checkFlags } from "./command-args.ts";

export type OutputFormat = "text" | "json" | "stream-json";

/** The subcommands parsed with gong's flags (the others parse their own words). */
export type FlagCommand = "sessions" | "rewind" | "checkpoints-gc" | "export";

export interface CliOptions {
  command: "run" | "version" | "help" | "list-models" | FlagCommand;
  prompt?: string;
  /** `-p` (or `--print`, `--mode print`) was written: the words are a prompt, whatever they look like. */
  printAsked: boolean;
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
  /** What Claude Code's flags ask (claude-flags.ts). */
  claude: ClaudeFlags;
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
  worktree: { type: "boolean", short: "w" },
  continue: { type: "boolean", short: "c" },
  resume: { type: "boolean", short: "r" },
  session: { type: "string" },
  "no-session": { type: "boolean" },
  fork: { type: "boolean" },
  name: { type: "string", short: "n" },
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
  ...CLAUDE_OPTIONS,
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

/** gong's own flags (not Claude Code's): what `gong --help` lists and the completions offer. */
export const GONG_FLAGS = Object.keys(OPTIONS).filter((name) => !Object.hasOwn(CLAUDE_OPTIONS, name));

/** The flags each subcommand parsed here takes (besides --help). */
const COMMAND_FLAGS: Record<FlagCommand, readonly string[]> = {
  sessions: ["cwd"],
  rewind: ["cwd", "resume", "session", "to", "files-only", "conversation-only", "force"],
  "checkpoints-gc": ["cwd"],
  export: ["cwd", "format", "output"],
};

/** How a subcommand is typed, for its messages. */
const COMMAND_NAMES: Record<FlagCommand, string> = {
  sessions: "gong sessions",
  rewind: "gong rewind",
  "checkpoints-gc": "gong checkpoints gc",
  export: "gong export",
};

/**
 * Parses gong's command line (`command` "run"), or the words after a subcommand that takes gong's
 * flags. Claude Code's variadic flags (`--allowedTools Bash Edit`) take every word up to the next flag.
 */
export function parseCliArgs(argv: string[], command: "run" | FlagCommand = "run"): CliOptions {
  // parseArgs has no optional values: lift `-r [session]` and `--list-models [filter]` out first.
  // A word after -r always names a session (id prefix, name or file), never the prompt.
  const args = joinNegativeValues(expandVariadic(argv));
  if (command !== "run") checkCommandFlags(args, command);
  checkFlags(args, OPTIONS, `Run '${command === "run" ? "gong" : COMMAND_NAMES[command]} --help' for usage.`);
  const resumeId = takeOptionalValue(args, ["-r", "--resume"], (v) => !v.startsWith("-"));
  const listFilter = takeOptionalValue(args, ["--list-models"], (v) => !v.startsWith("-"));
  // Claude Code's `-w/--worktree [name]`: a one-word name after it is the worktree's (gong's is temporary: unused).
  takeOptionalValue(args, ["-w", "--worktree"], (v) => !v.startsWith("-") && !/\s/.test(v));
  for (const flag of CLAUDE_OPTIONAL_VALUE) takeOptionalValue(args, [flag], (v) => !v.startsWith("-"));
  let parsed: Parsed;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(`${(e as Error).message.replace(/\. To specify.*$/s, "")}. Run 'gong --help' for usage.`);
  }
  const v = parsed.values;
  const claude = claudeFlags(v);
  const resolved = commandOf(v, parsed.positionals, command);
  const checked = checkedValues(v, claude);
  checkSessionFlags(v, resumeId, claude);

  const words = resolved === "run" ? parsed.positionals : [];
  const attachments = words.filter((w) => w.startsWith("@") && w.length > 1).map((w) => w.slice(1));
  const promptWords = words.filter((w) => !(w.startsWith("@") && w.length > 1));
  const printAsked = Boolean(v.print) || v.mode === "print";
  const print = printAsked || checked.outputFormat !== "text" || claude.inputFormat === "stream-json";
  return {
    command: resolved,
    prompt: promptWords.length > 0 ? promptWords.join(" ") : undefined,
    printAsked,
    attachments,
    mode: v.mode === "rpc" || v.mode === "acp" ? v.mode : print ? "print" : "interactive",
    ...checked,
    model: v.model,
    apiKey: v["api-key"],
    baseUrl: v["base-url"],
    tools: oneOf("--tools", v.tools, "--permission-mode plan", claude.session.tools),
    profile: v.profile,
    systemPrompt: oneOf("--system-prompt", v["system-prompt"], "--system-prompt-file", claude.gong.systemPrompt),
    appendSystemPrompt: oneOf(
      "--append-system-prompt",
      v["append-system-prompt"],
      "--append-system-prompt-file",
      claude.gong.appendSystemPrompt,
    ),
    cwd: v.cwd,
    worktree: Boolean(v.worktree),
    continue: Boolean(v.continue),
    resume: resumeId ?? (v.resume ? true : undefined),
    session: v.session,
    noSession: Boolean(v["no-session"] || claude.gong.noSession),
    fork: Boolean(v.fork || claude.gong.fork),
    name: v.name?.trim(),
    listModelsFilter: listFilter,
    ...(v["web-search"] ? { webSearch: true } : {}),
    verbose: Boolean(v.verbose),
    trust: Boolean(v.trust),
    installPlugins: Boolean(v["install-plugins"]),
    rewind: { to: v.to, files: !v["conversation-only"], conversation: !v["files-only"], force: Boolean(v.force) },
    export: { session: resolved === "export" ? parsed.positionals[0] : undefined, format: v.format, output: v.output },
    claude,
  };
}

/** A value two flags can give (gong's and Claude Code's): one of them, never both. */
function oneOf<T>(flag: string, value: T | undefined, other: string, otherValue: T | undefined): T | undefined {
  if (value !== undefined && otherValue !== undefined)
    throw new UsageError(`Use either ${flag} or ${other}, not both.`);
  return value ?? otherValue;
}

/** A flag a subcommand does not take is named, with the command. */
function checkCommandFlags(args: string[], command: FlagCommand): void {
  const allowed = new Set(["help", ...COMMAND_FLAGS[command]]);
  for (const arg of args) {
    if (arg === "--") break;
    if (!arg.startsWith("-") || arg === "-") continue;
    const name = arg.startsWith("--")
      ? arg.slice(2).split("=")[0]
      : Object.entries(OPTIONS).find(([, o]) => "short" in o && o.short === arg[1])?.[0];
    if (name !== undefined && Object.hasOwn(OPTIONS, name) && !allowed.has(name))
      throw new UsageError(
        `${arg.split("=")[0]} does not apply to '${COMMAND_NAMES[command]}'. Run '${COMMAND_NAMES[command]} --help' for usage.`,
      );
  }
}

/** Claude Code's `--flag a b c` → `--flag=a --flag=b --flag=c`: every word up to the next flag is the flag's. */
function expandVariadic(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      out.push(...argv.slice(i));
      break;
    }
    if (!CLAUDE_VARIADIC.has(arg)) {
      out.push(arg);
      continue;
    }
    let taken = 0;
    while (i + 1 < argv.length && !argv[i + 1].startsWith("-")) {
      out.push(`${arg}=${argv[++i]}`);
      taken++;
    }
    if (taken === 0) out.push(arg);
  }
  return out;
}

/** The command the words name, with the flags only `gong rewind` and `gong export` take checked. */
function commandOf(v: Values, positionals: string[], command: "run" | FlagCommand): CliOptions["command"] {
  if (v.help) return "help";
  if (command === "run") {
    if (v.version) return "version";
    if (v["list-models"]) return "list-models";
    if (v.format !== undefined || v.output !== undefined)
      throw new UsageError("--format and --output belong to 'gong export'.");
    if (v.to !== undefined || v["files-only"] || v["conversation-only"] || v.force)
      throw new UsageError("--to, --files-only, --conversation-only and --force belong to 'gong rewind'.");
    return "run";
  }
  const words = command === "export" ? 1 : 0;
  if (positionals.length > words)
    throw new UsageError(
      `'${COMMAND_NAMES[command]}' takes ${words === 0 ? "no words" : "one session at most"} (got '${positionals.slice(words).join(" ")}'). Run '${COMMAND_NAMES[command]} --help' for usage.`,
    );
  if (v["files-only"] && v["conversation-only"])
    throw new UsageError("Use either --files-only or --conversation-only, not both.");
  return command;
}

/** The flags whose values must be one of a list or a number in range, checked and typed. */
function checkedValues(
  v: Values,
  claude: ClaudeFlags,
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
  if (approval !== undefined && claude.session.approval !== undefined && approval !== claude.session.approval)
    throw new UsageError(
      `--approval ${approval} contradicts ${v["dangerously-skip-permissions"] ? "--dangerously-skip-permissions" : v["permission-mode"] ? `--permission-mode ${v["permission-mode"]}` : "--allowedTools (which refuses what it does not allow)"}: give one of them.`,
    );
  const effort = oneOf("--reasoning-effort", v["reasoning-effort"], "--effort", claude.gong.reasoningEffort);
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
  maxCostUsd = oneOf("--max-cost-usd", maxCostUsd, "--max-budget-usd", claude.gong.maxCostUsd);
  const sandbox = v.sandbox;
  if (sandbox !== undefined && !(SANDBOX_MODES as readonly string[]).includes(sandbox)) {
    throw new UsageError(
      `--sandbox must be ${SANDBOX_MODES.slice(0, -1).join(", ")} or ${SANDBOX_MODES.at(-1)} (got '${sandbox}').`,
    );
  }
  return {
    outputFormat,
    approval: approval ?? claude.session.approval,
    reasoningEffort: effort as ReasoningEffort | undefined,
    maxTurns,
    maxCostUsd,
    sandbox: sandbox as SandboxMode | undefined,
  };
}

/** -c, -r, --session, --no-session, --fork, --name and --session-id: the combinations that make sense. */
function checkSessionFlags(v: Values, resumeId: string | undefined, claude: ClaudeFlags): void {
  const noSession = v["no-session"] || claude.gong.noSession;
  const fork = v.fork || claude.gong.fork;
  const noSessionFlag = v["no-session"] ? "--no-session" : "--no-session-persistence";
  if (v.continue && (v.resume || resumeId)) throw new UsageError("Use either --continue or --resume, not both.");
  if (noSession && (v.continue || v.resume || resumeId || v.session)) {
    throw new UsageError(`${noSessionFlag} cannot be combined with --continue, --resume or --session.`);
  }
  if (fork && !(v.continue || v.resume || resumeId || v.session))
    throw new UsageError(
      `${v.fork ? "--fork" : "--fork-session"} branches off an existing session: use it with --continue, --resume or --session.`,
    );
  if (v.name !== undefined && v.name.trim() === "") throw new UsageError("--name needs a non-empty name.");
  if (claude.session.sessionId !== undefined && (v.continue || v.resume || resumeId || v.session || noSession))
    throw new UsageError(
      "--session-id names a new session: leave out --continue, --resume, --session and --no-session.",
    );
}

/** The command line's session flags as the value every host hands the core (lib/core/flags.ts). */
export function sessionFlags(opts: CliOptions): SessionFlags {
  const { tools: _plan, sessionId: _id, ...claude } = opts.claude.session;
  return {
    ...claude,
    model: opts.model,
    apiKey: opts.apiKey,
    baseUrl: opts.baseUrl,
    reasoningEffort: opts.reasoningEffort,
    tools: opts.tools,
    // A program written for Claude Code's protocol sees Claude Code's tools, whatever the model.
    profile: opts.profile ?? (opts.claude.inputFormat === "stream-json" ? "anthropic" : undefined),
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
  return opts.claude.session.sessionId ? { kind: "new", id: opts.claude.session.sessionId } : { kind: "new" };
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
