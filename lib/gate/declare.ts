/**
 * What a call touches, resolved: the tool's own declaration (`Tool.touches`, a function of its
 * validated arguments) with every path made absolute the way the environment will open it — `@`,
 * `~`, `..`, `//` and `.` applied, links followed (both the path as written and where it leads
 * count), the macOS name variants the read tool would pick — every URL reduced to the host the
 * fetcher reaches, and every command line read into the commands it runs (shell/commands.ts).
 * A tool that declares nothing is known by its name and kind only.
 */
import { homedir } from "node:os";
import type { ExecutionEnvironment } from "../env/types.ts";
import { lexicalPath, looseRealpath } from "../paths.ts";
import { checkArgs } from "../../tools/args.ts";
import { checkJsonArgs } from "../../tools/json-args.ts";
import { kindOf } from "../../tools/metadata.ts";
import type { Tool, ToolKind, Touch } from "../../tools/types.ts";
import { hostOf } from "./patterns.ts";
import { readCommand, type ReadCommand } from "./shell/commands.ts";

/** Claude Code's names of the calls whose target is a path. */
export const PATH_CALLS = new Set(["Read", "Grep", "Glob", "LS", "Edit", "Write", "MultiEdit", "NotebookEdit"]);
/** Of those, the ones that change the file. */
export const WRITE_CALLS = new Set(["Edit", "Write", "MultiEdit", "NotebookEdit"]);

export interface ResolvedTouch extends Touch {
  /** Path calls: the absolute path as written (normalised) and, when it differs, where it really leads. */
  paths?: string[];
  /** Bash: the commands the line runs. */
  command?: ReadCommand;
  /** WebFetch: the host the URL reaches (absent for a URL the fetcher will refuse). */
  host?: string;
  /** Mentions of an undeclared tool: the paths and hosts among its arguments. */
  mentionedPaths?: string[][];
  mentionedHosts?: string[];
}

export interface DeclaredCall {
  /** The tool's own name (a rule may name it: `write_stdin`, `mcp__github__create_issue`). */
  tool: string;
  kind: ToolKind;
  /** False when the tool declares nothing: the decision goes by its name and kind. */
  declared: boolean;
  touches: ResolvedTouch[];
  /** Arguments the tool will refuse: nothing runs, so nothing is asked. */
  invalid?: boolean;
  /** The gate was not told which tool runs the call: nothing about it can be known. */
  unknown?: boolean;
}

export interface DeclareContext {
  /** The environment the call runs in: paths resolve as it resolves them. */
  env?: ExecutionEnvironment;
  /** The directory relative paths start from (the environment's working directory by default). */
  cwd: string;
  /** What `~` stands for. */
  home?: string;
}

/** The resolved declaration of one call of `tool` (the registry's tool for its name) with `args`. */
export async function declareCall(
  name: string,
  args: Record<string, unknown>,
  tool: Tool | undefined,
  where: DeclareContext,
): Promise<DeclaredCall> {
  if (!tool) return { ...undeclared(name, "other", args), unknown: true };
  const checked = tool.jsonSchema
    ? checkJsonArgs(tool.name, tool.jsonSchema, args)
    : tool.schema
      ? checkArgs(tool.name, tool.schema, args)
      : { ok: true as const, args };
  if (!checked.ok) return { tool: tool.name, kind: kindOf(tool), declared: true, touches: [], invalid: true };
  let touches: Touch[] | undefined;
  try {
    touches = await tool.touches?.(checked.args);
  } catch {
    // A declaration that fails says nothing: the call is judged by its name and kind.
    touches = undefined;
  }
  if (!touches) return undeclared(tool.name, kindOf(tool), args);
  return {
    tool: tool.name,
    kind: kindOf(tool),
    declared: true,
    touches: await Promise.all(touches.map((t) => resolveTouch(t, where))),
  };
}

/** A tool that says nothing: its name, with its first text argument for a rule's parentheses. */
function undeclared(name: string, kind: ToolKind, args: Record<string, unknown>): DeclaredCall {
  const first = Object.values(args).find((v) => typeof v === "string") as string | undefined;
  return { tool: name, kind, declared: false, touches: [{ as: name, target: first }] };
}

async function resolveTouch(touch: Touch, where: DeclareContext): Promise<ResolvedTouch> {
  const base = touch.cwd === undefined ? where.cwd : lexicalIn(touch.cwd, where.cwd, where.home);
  if (PATH_CALLS.has(touch.as))
    return { ...touch, paths: await pathCandidates(touch.target ?? ".", base ?? where.cwd, where) };
  if (touch.as === "Bash") {
    const command = readCommand(touch.target ?? "");
    // Text typed into a running program is not a command line gong can read with certainty.
    return {
      ...touch,
      command: touch.typed ? { ...command, uncertain: "text typed into a running process" } : command,
    };
  }
  if (touch.as === "WebFetch") {
    const host = hostOf(touch.target ?? "");
    return host === undefined ? { ...touch } : { ...touch, host };
  }
  if (!touch.mentions?.length) return touch;
  const mentionedHosts: string[] = [];
  const mentionedPaths: string[][] = [];
  for (const m of touch.mentions) {
    const host = /^https?:\/\//i.test(m.trim()) ? hostOf(m) : undefined;
    if (host !== undefined) mentionedHosts.push(host);
    else mentionedPaths.push(await pathCandidates(m, base ?? where.cwd, where));
  }
  return { ...touch, mentionedHosts, mentionedPaths };
}

/** `input` made absolute against `cwd` (`@`, `~`, `..` applied), or undefined for a path no tool accepts. */
function lexicalIn(input: string, cwd: string, home?: string): string | undefined {
  try {
    return lexicalPath(input, { root: cwd, cwd, home: home ?? homedir() });
  } catch {
    return undefined;
  }
}

/**
 * The places a path can mean: as written (normalised) and where the environment really opens it
 * (links followed, a macOS variant when the plain name does not exist). A path the environment
 * refuses (outside the workspace) still counts where its links lead, for deny rules.
 */
async function pathCandidates(input: string, cwd: string, where: DeclareContext): Promise<string[]> {
  const lexical = lexicalIn(input, cwd, where.home);
  if (lexical === undefined) return [];
  const out = new Set([lexical]);
  try {
    if (!where.env) throw new Error("no environment");
    out.add((await where.env.resolvePath(input, { cwd, variants: true })).absolute);
  } catch {
    const real = await looseRealpath(lexical).catch(() => undefined);
    if (real) out.add(real.path);
  }
  return [...out];
}
