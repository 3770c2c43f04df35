/**
 * Permission rules in Claude Code's syntax (`permissions.allow / ask / deny`): `Bash`,
 * `Bash(npm run test *)`, the older `Bash(npm test:*)`, `Read(./.env)`, `Edit(src/**)`,
 * `WebFetch(domain:example.com)`, `Skill(review)`, `Agent(Explore)`, `mcp__server`,
 * `mcp__server__tool`. Every gong call is first seen as Claude Code would show it (claude-view.ts),
 * so the rules hold under every profile. deny wins over ask, ask over allow. A shell command is
 * split into its simple commands (shell-split.ts): it is denied when any part is, asks when any
 * part does, and is allowed only when every part is.
 */
import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import picomatch from "picomatch";
import { claudeCalls, commandOf, type ClaudeCall } from "./claude-view.ts";
import { splitCommand, type SimpleCommand } from "./shell-split.ts";

export const BEHAVIORS = ["deny", "ask", "allow"] as const;
export type Behavior = (typeof BEHAVIORS)[number];

export interface PermissionRule {
  behavior: Behavior;
  /** Claude Code's tool name (`Bash`, `Edit`, `mcp__github`). */
  tool: string;
  /** What is inside the parentheses, if anything. */
  specifier?: string;
  /** The rule as written. */
  raw: string;
  /** The file it came from ("session" for an answer given this session). */
  source: string;
  /** Where `/path` patterns start: the folder holding the settings folder (the project, or home). */
  base: string;
}

export interface Decision {
  behavior: Behavior;
  rule: PermissionRule;
}

const RULE = /^([A-Za-z_][\w-]*)(?:\(([\s\S]*)\))?$/;

/** Parses one rule; a string that is not a rule gives the reason. */
export function parseRule(
  raw: unknown,
  behavior: Behavior,
  source: string,
  base: string,
): PermissionRule | { error: string } {
  if (typeof raw !== "string") return { error: `${JSON.stringify(raw)} is not a string` };
  const text = raw.trim();
  const m = RULE.exec(text);
  if (!m) return { error: `'${raw}' is not a rule (Tool or Tool(specifier), e.g. Bash(npm test *))` };
  const [, tool, specifier] = m;
  if (specifier !== undefined && specifier.trim() === "")
    return { error: `'${raw}' has empty parentheses (write ${tool} alone to cover every call)` };
  if (specifier !== undefined && !balanced(specifier)) return { error: `'${raw}' has unbalanced parentheses` };
  if (tool === "WebFetch" && specifier !== undefined && !specifier.startsWith("domain:"))
    return { error: `'${raw}': WebFetch rules take domain:HOST` };
  return { behavior, tool, specifier: specifier === "*" ? undefined : specifier, raw: text, source, base };
}

function balanced(s: string): boolean {
  let depth = 0;
  for (const c of s) {
    if (c === "(") depth++;
    else if (c === ")" && --depth < 0) return false;
  }
  return depth === 0;
}

/** The tools an `Edit` rule covers, and a `Read` rule (Claude Code applies Read rules to searches as well). */
const EDIT_TOOLS = new Set(["Edit", "Write", "MultiEdit", "NotebookEdit"]);
const READ_TOOLS = new Set(["Read", "Grep", "Glob"]);

export class PermissionRules {
  private readonly byBehavior: Record<Behavior, PermissionRule[]> = { deny: [], ask: [], allow: [] };

  constructor(
    rules: PermissionRule[],
    private readonly cwd: string,
    /** Commands that pass as read-only under the `edits` approval mode (entries like `git status`). */
    private readonly readOnly: readonly string[] = READ_ONLY_COMMANDS,
  ) {
    for (const r of rules) this.byBehavior[r.behavior].push(r);
  }

  get all(): PermissionRule[] {
    return [...this.byBehavior.deny, ...this.byBehavior.ask, ...this.byBehavior.allow];
  }

  /** Adds rules for the rest of the session (an "always" answer). */
  add(rules: PermissionRule[]): void {
    for (const r of rules) this.byBehavior[r.behavior].push(r);
  }

  /** deny over ask over allow; undefined when no rule speaks to the call. */
  decide(toolName: string, args: Record<string, unknown>): Decision | undefined {
    const calls = claudeCalls(toolName, args, this.cwd);
    for (const behavior of ["deny", "ask"] as const) {
      for (const call of calls) {
        const rule = this.firstMatch(behavior, call, "any");
        if (rule) return { behavior, rule };
      }
    }
    let last: PermissionRule | undefined;
    for (const call of calls) {
      last = this.firstMatch("allow", call, "every");
      if (!last) return undefined;
    }
    return last ? { behavior: "allow", rule: last } : undefined;
  }

  /** Whether a shell command only reads: every part is on the read-only list and writes no file. */
  isReadOnly(command: string): boolean {
    const { commands, opaque } = splitCommand(command);
    if (opaque || commands.length === 0) return false;
    return commands.every((c) => !c.writesFile && this.readOnly.some((entry) => readOnlyMatch(entry, c)));
  }

  /**
   * The first rule of `behavior` matching the call. For a shell command, `any` finds a rule
   * matching some part (deny, ask); `every` needs each part covered and the command readable (allow).
   */
  private firstMatch(behavior: Behavior, call: ClaudeCall, mode: "any" | "every"): PermissionRule | undefined {
    const rules = this.byBehavior[behavior];
    if (rules.length === 0) return undefined;
    if (call.tool_name === "Bash") {
      const command = commandOf(call.tool_input) ?? "";
      const { commands, opaque } = splitCommand(command);
      if (mode === "any") {
        return rules.find(
          (r) =>
            r.tool === "Bash" &&
            (r.specifier === undefined ||
              bashMatches(r.specifier, command) ||
              commands.some((c) => bashMatches(r.specifier!, c.text) || bashMatches(r.specifier!, c.fullText))),
        );
      }
      const whole = rules.find((r) => r.tool === "Bash" && r.specifier === undefined);
      if (whole) return whole;
      if (opaque || commands.length === 0) return undefined;
      let found: PermissionRule | undefined;
      for (const part of commands) {
        found = rules.find((r) => r.tool === "Bash" && bashMatches(r.specifier!, part.fullText));
        if (!found) return undefined;
      }
      return found;
    }
    return rules.find((r) => this.matches(r, call));
  }

  private matches(rule: PermissionRule, call: ClaudeCall): boolean {
    const name = call.tool_name;
    if (rule.tool.startsWith("mcp__")) return mcpMatches(rule.tool, name);
    const toolFits =
      rule.tool === name ||
      (rule.tool === "Edit" && EDIT_TOOLS.has(name)) ||
      (rule.tool === "Read" && READ_TOOLS.has(name));
    if (!toolFits) return false;
    if (rule.specifier === undefined) return true;
    const input = call.tool_input;
    if (rule.tool === "Edit" || rule.tool === "Read" || rule.tool === "Write") {
      const path =
        typeof input.file_path === "string" ? input.file_path : typeof input.path === "string" ? input.path : undefined;
      return path !== undefined && pathMatches(rule.specifier, path, this.cwd, rule.base);
    }
    if (rule.tool === "WebFetch")
      return typeof input.url === "string" && domainMatches(rule.specifier.slice("domain:".length), input.url);
    if (rule.tool === "Skill") return typeof input.skill === "string" && wildcard(rule.specifier, input.skill);
    if (rule.tool === "Agent" || rule.tool === "Task")
      return typeof input.subagent_type === "string" && wildcard(rule.specifier, input.subagent_type);
    // Any other tool: the specifier against its first string argument.
    const first = Object.values(input).find((v) => typeof v === "string");
    return typeof first === "string" && wildcard(rule.specifier, first);
  }
}

/**
 * Claude Code's Bash patterns: `npm test:*` (the older prefix form: the command, or the command
 * followed by a space and more); `*` anywhere for any text, where a single trailing ` *` also
 * allows nothing after the command (`ls *` matches `ls`); otherwise the exact command.
 */
export function bashMatches(specifier: string, command: string): boolean {
  const text = command.trim();
  if (specifier.endsWith(":*")) {
    const prefix = specifier.slice(0, -2);
    return text === prefix || text.startsWith(`${prefix} `);
  }
  if (!specifier.includes("*")) return text === specifier;
  return wildcard(specifier, text);
}

const wildcardCache = new Map<string, RegExp>();

function wildcard(pattern: string, text: string): boolean {
  let re = wildcardCache.get(pattern);
  if (!re) {
    const stars = pattern.split("*").length - 1;
    const escapeRegex = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
    const body =
      stars === 1 && pattern.endsWith(" *")
        ? `${escapeRegex(pattern.slice(0, -2))}(?: .*)?`
        : pattern.split("*").map(escapeRegex).join(".*");
    re = new RegExp(`^${body}$`, "s");
    wildcardCache.set(pattern, re);
  }
  return re.test(text);
}

function mcpMatches(ruleTool: string, name: string): boolean {
  if (ruleTool === name) return true;
  const parts = ruleTool.split("__");
  // mcp__server (every tool of the server) and mcp__server__* alike.
  if (parts.length === 2 || (parts.length === 3 && parts[2] === "*")) return name.startsWith(`mcp__${parts[1]}__`);
  return false;
}

function domainMatches(rule: string, url: string): boolean {
  let host: string;
  try {
    host = fullyQualified(new URL(url).hostname);
  } catch {
    return false;
  }
  const domain = fullyQualified(rule);
  if (domain.startsWith("*.")) return host.endsWith(domain.slice(1)) || host === domain.slice(2);
  return host === domain;
}

/** `example.com.` is `example.com`: a name with its root dot reaches the same host. */
function fullyQualified(host: string): string {
  return host.toLowerCase().replace(/\.$/, "");
}

/**
 * Claude Code's path patterns (gitignore-like): `//x` from the file system root, `~/x` from home,
 * `/x` from the folder holding the settings, `./x` or `x` from the working directory; a pattern
 * without a slash matches at any depth; a pattern naming a folder covers what is inside it.
 */
export function pathMatches(pattern: string, path: string, cwd: string, base: string): boolean {
  const target = isAbsolute(path) ? path : resolve(cwd, path);
  return pathMatcher(pattern, cwd, base)(target);
}

const matchers = new Map<string, (p: string) => boolean>();

/** One compiled matcher per pattern and place: the path itself, or anything inside it. */
function pathMatcher(pattern: string, cwd: string, base: string): (p: string) => boolean {
  const key = `${pattern}\0${cwd}\0${base}`;
  let m = matchers.get(key);
  if (m) return m;
  let anchored: string;
  if (pattern.startsWith("//")) anchored = pattern.slice(1);
  else if (pattern === "~" || pattern.startsWith("~/")) anchored = resolve(homedir(), pattern.slice(2));
  else if (pattern.startsWith("/")) anchored = resolve(base, pattern.slice(1));
  else if (!pattern.includes("/")) anchored = `${cwd}/**/${pattern}`;
  else anchored = resolve(cwd, pattern);
  if (pattern.endsWith("/")) anchored += "/**";
  m = picomatch([anchored, `${anchored}/**`], { dot: true });
  matchers.set(key, m);
  return m;
}

/**
 * Commands that only read, passed without asking under the `edits` mode (an entry covers the
 * command and any arguments). `readOnlyCommands` in settings adds entries.
 */
export const READ_ONLY_COMMANDS: readonly string[] = [
  "ls",
  "cat",
  "head",
  "tail",
  "wc",
  "pwd",
  "echo",
  "printf",
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "fd",
  "fdfind",
  "find",
  "tree",
  "stat",
  "file",
  "du",
  "df",
  "which",
  "type",
  "whoami",
  "id",
  "date",
  "uname",
  "hostname",
  "basename",
  "dirname",
  "realpath",
  "readlink",
  "sort",
  "uniq",
  "cut",
  "diff",
  "cmp",
  "true",
  "false",
  "test",
  "[",
  "cd",
  "git status",
  "git log",
  "git diff",
  "git show",
  "git rev-parse",
  "git ls-files",
  "git blame",
  "git branch --show-current",
];

/** Options that turn a listed command into one that writes or runs others. */
const WRITING_OPTIONS: Record<string, RegExp> = {
  find: /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/,
  sort: /^(-o|--output)/,
  rg: /^--pre$/,
  fd: /^(-x|--exec|-X|--exec-batch)$/,
  fdfind: /^(-x|--exec|-X|--exec-batch)$/,
  git: /^--output/,
};

function readOnlyMatch(entry: string, command: SimpleCommand): boolean {
  if (!(command.text === entry || command.text.startsWith(`${entry} `))) return false;
  const writing = WRITING_OPTIONS[command.words[0]];
  return !writing || !command.words.some((w) => writing.test(w));
}

/** A rule that would allow this part of a command from now on: its first word and a plain sub-command. */
export function suggestBashRule(part: SimpleCommand): string {
  const [first, second] = part.words;
  // Shells and interpreters run whatever follows: only the exact command is safe to remember.
  if (RUNS_ANYTHING.has(first)) return `Bash(${part.fullText})`;
  return second !== undefined && /^[a-z][\w-]*$/.test(second) ? `Bash(${first} ${second} *)` : `Bash(${first} *)`;
}

const RUNS_ANYTHING = new Set([
  "bash",
  "sh",
  "zsh",
  "dash",
  "fish",
  "eval",
  "exec",
  "sudo",
  "su",
  "doas",
  "xargs",
  "python",
  "python3",
  "node",
  "bun",
  "deno",
  "perl",
  "ruby",
  "php",
  "ssh",
  "source",
  ".",
]);

/** The rules "always" writes for a call: for a command, one per part not yet allowed; else the tool. */
export function suggestRules(
  rules: PermissionRules,
  toolName: string,
  args: Record<string, unknown>,
  cwd: string,
): string[] {
  const out: string[] = [];
  for (const call of claudeCalls(toolName, args, cwd)) {
    if (call.tool_name !== "Bash") {
      out.push(call.tool_name);
      continue;
    }
    for (const part of splitCommand(commandOf(call.tool_input) ?? "").commands) {
      if (rules.decide("Bash", { command: part.fullText })?.behavior === "allow") continue;
      out.push(suggestBashRule(part));
    }
  }
  return [...new Set(out)];
}
