/**
 * Claude Code's headless flags (`claude -p …`), taken with their meaning and mapped onto what gong
 * has: a script written for `claude -p` runs with `gong` in its place. Three kinds:
 *
 * - mapped: each becomes a value of the session (SessionFlags) — permission rules with the flag as
 *   their source, the approval mode, extra directories, MCP servers, settings, the session id…;
 * - accepted and ignored: what changes nothing gong would do differently for safety (an IDE
 *   connection, debug output, beta headers);
 * - refused: a flag gong cannot honour where ignoring it could weaken safety or silently change the
 *   run, with one sentence naming what gong offers instead.
 *
 * The permission part is a thin mapping onto the gate's values: `--permission-mode` is an approval
 * mode, `--allowedTools` / `--disallowedTools` are allow / deny rules whose source names the flag.
 */
import { resolve } from "node:path";
import { UsageError } from "../core/errors.ts";
import type { FlagSettings, SessionFlags } from "../core/flags.ts";
import type { ApprovalMode } from "../gate/modes.ts";
import { McpConfigError, parseMcpServers } from "../mcp/config.ts";
import { flagDirectory, flagJson, flagJsonFile, flagText } from "./flag-files.ts";
import { REASONING_EFFORTS, type ReasoningEffort } from "../llm/types.ts";
import { parseRule } from "../gate/rules.ts";

/** The flags, in node:util parseArgs' terms (multiple: the flag may repeat, or take several words). */
export const CLAUDE_OPTIONS = {
  allowedTools: { type: "string", multiple: true },
  "allowed-tools": { type: "string", multiple: true },
  disallowedTools: { type: "string", multiple: true },
  "disallowed-tools": { type: "string", multiple: true },
  "permission-mode": { type: "string" },
  "dangerously-skip-permissions": { type: "boolean" },
  "allow-dangerously-skip-permissions": { type: "boolean" },
  "add-dir": { type: "string", multiple: true },
  "mcp-config": { type: "string", multiple: true },
  "strict-mcp-config": { type: "boolean" },
  settings: { type: "string" },
  "session-id": { type: "string" },
  "fallback-model": { type: "string" },
  "input-format": { type: "string" },
  "json-schema": { type: "string" },
  "max-budget-usd": { type: "string" },
  effort: { type: "string" },
  "fork-session": { type: "boolean" },
  "no-session-persistence": { type: "boolean" },
  "system-prompt-file": { type: "string" },
  "append-system-prompt-file": { type: "string" },
  "replay-user-messages": { type: "boolean" },
  "include-partial-messages": { type: "boolean" },
  "permission-prompt-tool": { type: "string" },
  // Accepted and ignored.
  "include-hook-events": { type: "boolean" },
  ide: { type: "boolean" },
  chrome: { type: "boolean" },
  "no-chrome": { type: "boolean" },
  "ax-screen-reader": { type: "boolean" },
  betas: { type: "string", multiple: true },
  debug: { type: "boolean", short: "d" },
  "debug-file": { type: "string" },
  "exclude-dynamic-system-prompt-sections": { type: "boolean" },
  "disable-slash-commands": { type: "boolean" },
  "prompt-suggestions": { type: "boolean" },
  thinking: { type: "string" },
  "max-thinking-tokens": { type: "string" },
  // Refused (REFUSED says why and what instead).
  agent: { type: "string" },
  agents: { type: "string" },
  "setting-sources": { type: "string" },
  bare: { type: "boolean" },
  "safe-mode": { type: "boolean" },
  "plugin-dir": { type: "string", multiple: true },
  "plugin-url": { type: "string", multiple: true },
  file: { type: "string", multiple: true },
  "from-pr": { type: "boolean" },
  bg: { type: "boolean" },
  background: { type: "boolean" },
  "remote-control": { type: "boolean" },
  tmux: { type: "boolean" },
  "sdk-url": { type: "string" },
  "rewind-files": { type: "string" },
  "resume-session-at": { type: "string" },
  init: { type: "boolean" },
  "init-only": { type: "boolean" },
  maintenance: { type: "boolean" },
  brief: { type: "boolean" },
} as const;

/** Flags whose value is one or more words (commander's `<values...>`): every word up to the next flag. */
export const CLAUDE_VARIADIC = new Set([
  "--allowedTools",
  "--allowed-tools",
  "--disallowedTools",
  "--disallowed-tools",
  "--add-dir",
  "--mcp-config",
  "--betas",
  "--plugin-dir",
  "--file",
]);

/** Flags whose value is optional (commander's `[value]`): the next word is theirs unless it is a flag. */
export const CLAUDE_OPTIONAL_VALUE = ["--debug", "-d", "--prompt-suggestions", "--from-pr", "--remote-control"];

/** What gong offers instead of a flag it cannot honour. */
const REFUSED: Record<string, string> = {
  agent:
    "gong runs custom agents as subagents the model calls, not as the session itself; put the agent's instructions in --append-system-prompt",
  agents: "define agents as files in .claude/agents/ or .gong/agents/ (Markdown with frontmatter), which gong reads",
  "setting-sources":
    'gong reads your own settings and, in a trusted project only, the project\'s; leave it out, or set "claudeSettings": false in ~/.gong/settings.json to skip the .claude files',
  bare: "gong has no bare mode; an untrusted project's hooks and settings never run, so leave --bare out",
  "safe-mode":
    'gong has no safe mode; run without --trust (a project\'s hooks, env and MCP servers then stay off) or set "disableAllHooks": true',
  "plugin-dir": "gong does not load plugins from the command line",
  "plugin-url": "gong does not load plugins from the command line",
  file: "attach a local file to the prompt with @path instead",
  "from-pr": "resume a session with -r SESSION (gong sessions lists them)",
  bg: 'run gong in the background with your shell: gong -p "…" &',
  background: 'run gong in the background with your shell: gong -p "…" &',
  "remote-control": "gong has no remote control; use --mode rpc or --mode acp to drive it from another program",
  tmux: "gong's --worktree runs in the current terminal",
  "sdk-url": "gong speaks the stream-json protocol on stdin/stdout only",
  "rewind-files": "use gong rewind --to TURN --files-only",
  "resume-session-at": "use gong rewind --to TURN, then gong -r SESSION",
  init: "Setup hooks do not run in gong; use gong init to have an AGENTS.md written",
  "init-only": "Setup hooks do not run in gong; use gong init to have an AGENTS.md written",
  maintenance: "Setup hooks do not run in gong",
  brief: "gong has no SendUserMessage tool; the final answer is printed",
};

/** Claude Code's permission modes and gong's approval mode for each (plan: the read-only tools too). */
const PERMISSION_MODES: Record<string, ApprovalMode | undefined> = {
  default: "ask",
  acceptEdits: "edits",
  plan: "ask",
  bypassPermissions: "auto",
  // "Don't ask, deny what is not allowed": where no one answers that is what ask does; the shell asks instead.
  dontAsk: "ask",
  auto: undefined,
};

type Values = {
  [K in keyof typeof CLAUDE_OPTIONS]?: (typeof CLAUDE_OPTIONS)[K] extends { multiple: true }
    ? string[]
    : (typeof CLAUDE_OPTIONS)[K] extends { type: "boolean" }
      ? boolean
      : string;
};

/** What Claude Code's flags ask of the run: the session's values and print mode's own. */
export interface ClaudeFlags {
  session: Pick<
    SessionFlags,
    "approval" | "extraSettings" | "addDirs" | "mcpConfigs" | "strictMcpConfig" | "fallbackModels" | "outputSchema"
  > & { tools?: string; sessionId?: string };
  /** Values of gong's own flags these stand for (--max-cost-usd, --reasoning-effort, --fork, --no-session, the prompts). */
  gong: {
    maxCostUsd?: number;
    reasoningEffort?: ReasoningEffort;
    fork?: boolean;
    noSession?: boolean;
    systemPrompt?: string;
    appendSystemPrompt?: string;
  };
  /** `--input-format stream-json`: user messages arrive as JSON lines on stdin. */
  inputFormat: "text" | "stream-json";
  replayUserMessages: boolean;
  /** `--permission-prompt-tool stdio` (the Claude Agent SDK's canUseTool): the program answers what the gate asks. */
  programAnswers: boolean;
  /** `--include-partial-messages`: stream_event lines while the model's answer streams. */
  partialMessages: boolean;
  /** `--permission-mode` as written (`dontAsk` has no approval mode of its own: the stream-json run refuses instead of asking). */
  permissionMode?: string;
}

/** Maps the parsed flags; a refused flag, a value gong cannot read or an unknown choice is a UsageError. */
export function claudeFlags(v: Values): ClaudeFlags {
  for (const [name, why] of Object.entries(REFUSED))
    if (v[name as keyof Values] !== undefined && v[name as keyof Values] !== false)
      throw new UsageError(`--${name} is not supported by gong: ${why}.`);
  const session: ClaudeFlags["session"] = {};
  const rules = permissionRules(v);
  const settings = v.settings === undefined ? [] : [settingsValue(v.settings)];
  if (rules.length > 0 || settings.length > 0) session.extraSettings = [...settings, ...rules];
  Object.assign(session, permissionMode(v, rules));
  if (v["add-dir"]) session.addDirs = v["add-dir"].map((dir) => flagDirectory(dir, "--add-dir"));
  if (v["mcp-config"]) session.mcpConfigs = v["mcp-config"].map(mcpConfigValue);
  if (v["strict-mcp-config"]) {
    if (!v["mcp-config"])
      throw new UsageError("--strict-mcp-config uses only the servers of --mcp-config: give one or more.");
    session.strictMcpConfig = true;
  }
  if (v["session-id"] !== undefined) session.sessionId = sessionId(v["session-id"]);
  if (v["fallback-model"] !== undefined) session.fallbackModels = list(v["fallback-model"], "--fallback-model");
  if (v["json-schema"] !== undefined)
    session.outputSchema = { schema: flagJson(v["json-schema"], "--json-schema"), source: "--json-schema" };
  const inputFormat = v["input-format"] ?? "text";
  if (inputFormat !== "text" && inputFormat !== "stream-json")
    throw new UsageError(`--input-format must be text or stream-json (got '${inputFormat}').`);
  if (v["replay-user-messages"] && inputFormat !== "stream-json")
    throw new UsageError("--replay-user-messages works with --input-format stream-json.");
  const promptTool = v["permission-prompt-tool"];
  if (promptTool !== undefined && (promptTool !== "stdio" || inputFormat !== "stream-json"))
    throw new UsageError(
      "--permission-prompt-tool is not supported by gong but as `stdio` with --input-format stream-json (the Claude Agent SDK's canUseTool): approvals do not go to an MCP tool; allow what the run needs with --allowedTools.",
    );
  return {
    session,
    gong: gongValues(v),
    inputFormat,
    replayUserMessages: Boolean(v["replay-user-messages"]),
    programAnswers: promptTool === "stdio",
    partialMessages: Boolean(v["include-partial-messages"]) && inputFormat === "stream-json",
    ...(v["permission-mode"] !== undefined ? { permissionMode: v["permission-mode"] } : {}),
  };
}

/** The allow and deny rules of --allowedTools / --disallowedTools, as settings whose source is the flag. */
function permissionRules(v: Values): FlagSettings[] {
  const out: FlagSettings[] = [];
  for (const [flag, behavior] of [
    ["allowedTools", "allow"],
    ["allowed-tools", "allow"],
    ["disallowedTools", "deny"],
    ["disallowed-tools", "deny"],
  ] as const) {
    const given = v[flag];
    if (!given) continue;
    const rules = given.flatMap(splitRules);
    for (const raw of rules) {
      const rule = parseRule(raw, behavior, `--${flag}`, process.cwd());
      if ("error" in rule) throw new UsageError(`--${flag}: ${rule.error}.`);
    }
    out.push({ source: `--${flag}`, settings: { permissions: { [behavior]: rules } } });
  }
  return out;
}

/** "Bash(git log:*) Edit,Read" → the rules, split at commas and spaces outside parentheses. */
export function splitRules(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (const c of text) {
    if (c === "(") depth++;
    if (c === ")") depth--;
    if (depth <= 0 && (c === "," || /\s/.test(c))) {
      if (current) out.push(current);
      current = "";
    } else current += c;
  }
  if (current) out.push(current);
  return out;
}

/** --permission-mode and --dangerously-skip-permissions as gong's approval mode; plan offers only the reading tools. */
function permissionMode(v: Values, rules: FlagSettings[]): Pick<ClaudeFlags["session"], "approval" | "tools"> {
  const mode = v["permission-mode"];
  if (mode !== undefined && !Object.hasOwn(PERMISSION_MODES, mode))
    throw new UsageError(`--permission-mode must be ${Object.keys(PERMISSION_MODES).join(", ")} (got '${mode}').`);
  if (mode === "auto")
    throw new UsageError(
      "--permission-mode auto is not supported by gong: it has no permission classifier; use default, acceptEdits or bypassPermissions.",
    );
  if (v["dangerously-skip-permissions"]) {
    if (mode !== undefined && mode !== "bypassPermissions")
      throw new UsageError(`--dangerously-skip-permissions contradicts --permission-mode ${mode}: give one of them.`);
    return { approval: "auto" };
  }
  if (mode === "plan") return { approval: "ask", tools: "readonly" };
  if (mode !== undefined) return { approval: PERMISSION_MODES[mode] };
  // An allow list means what it means to claude -p: what it does not allow is refused, not run.
  if (rules.some((r) => r.source.startsWith("--allowed"))) return { approval: "ask" };
  return {};
}

/** --settings: a file or a JSON object in Claude Code's settings format. */
function settingsValue(text: string): FlagSettings {
  const looksJson = text.trimStart().startsWith("{");
  const raw = looksJson ? flagJson(text, "--settings") : flagJsonFile(text, "--settings");
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new UsageError(`--settings ${looksJson ? "JSON" : text} does not hold a JSON object.`);
  return { source: looksJson ? "--settings" : resolve(text), settings: raw as Record<string, unknown> };
}

/** One --mcp-config value: a file or a JSON string, `{"mcpServers": {…}}` as in .mcp.json. */
function mcpConfigValue(text: string): NonNullable<SessionFlags["mcpConfigs"]>[number] {
  const looksJson = text.trimStart().startsWith("{");
  const source = looksJson ? "--mcp-config" : resolve(text);
  const raw = looksJson ? flagJson(text, "--mcp-config") : flagJsonFile(text, "--mcp-config");
  try {
    return { source, servers: parseMcpServers(raw, looksJson ? "--mcp-config JSON" : source) };
  } catch (e) {
    if (e instanceof McpConfigError) throw new UsageError(e.message);
    throw e;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function sessionId(id: string): string {
  if (!UUID.test(id)) throw new UsageError(`--session-id must be a valid UUID (got '${id}').`);
  return id.toLowerCase();
}

function list(text: string, flag: string): string[] {
  const items = text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length === 0) throw new UsageError(`${flag} needs a model name.`);
  return items;
}

/** The flags that stand for one of gong's own: values checked as gong checks its own. */
function gongValues(v: Values): ClaudeFlags["gong"] {
  const out: ClaudeFlags["gong"] = {};
  if (v["max-budget-usd"] !== undefined) {
    const n = Number(v["max-budget-usd"]);
    if (!Number.isFinite(n) || n <= 0)
      throw new UsageError(`--max-budget-usd must be a positive number of US dollars (got '${v["max-budget-usd"]}').`);
    out.maxCostUsd = n;
  }
  if (v.effort !== undefined) {
    if (!(REASONING_EFFORTS as readonly string[]).includes(v.effort))
      throw new UsageError(`--effort must be ${REASONING_EFFORTS.join(", ")} (got '${v.effort}').`);
    out.reasoningEffort = v.effort as ReasoningEffort;
  }
  if (v["fork-session"]) out.fork = true;
  if (v["no-session-persistence"]) out.noSession = true;
  if (v["system-prompt-file"] !== undefined)
    out.systemPrompt = flagText(v["system-prompt-file"], "--system-prompt-file");
  if (v["append-system-prompt-file"] !== undefined)
    out.appendSystemPrompt = flagText(v["append-system-prompt-file"], "--append-system-prompt-file");
  return out;
}
