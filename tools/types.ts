/**
 * What a tool is: a name, a description for the model, a valibot schema for its arguments, the
 * direction the framework truncator cuts its output, a function of
 * (validated args, context) → ToolResponse, and how it describes itself (kind, one-line summaries
 * of a call and of its result, the files it touched, what a call touches) so renderers,
 * compaction, event consumers and the permission gate never keep lists of tool names. The metadata
 * is plain data and pure functions: a tool exposed under another name spreads the original's.
 */
import type { GenericSchema } from "valibot";
import type { Reply, ToolResponse } from "../lib/envelope.ts";
import type { ExecutionEnvironment } from "../lib/env/types.ts";
import type { WebAccess } from "../lib/web/access.ts";
import type { FreeformFormat } from "../lib/llm/types.ts";
import type { OutputCapture } from "../lib/output/capture.ts";
import type { TruncateMode } from "../lib/output/cut.ts";
import type { ToolNames } from "./naming.ts";
import type { ProcessTable } from "./processes.ts";
import type { UserChannel } from "./user-channel.ts";

/**
 * What a tool does, for everything that is not the model: `read` looks at files, `modify` changes
 * them, `shell` runs commands, `search` looks for files or text, `plan` keeps the task list,
 * `agent` delegates to another agent, `web` reads from the network, `other` is anything else (the
 * default for custom tools).
 */
export type ToolKind = "read" | "modify" | "shell" | "search" | "plan" | "agent" | "web" | "other";
export const TOOL_KINDS: readonly ToolKind[] = ["read", "modify", "shell", "search", "plan", "agent", "web", "other"];

export interface ToolRunContext {
  env: ExecutionEnvironment;
  /** Builds this call's envelope (time, cwd and params_input filled in). */
  reply: Reply;
  signal?: AbortSignal;
  /** Aborted when the user moves the running command to the background (a shell tool answers at once, the command goes on). */
  background?: AbortSignal;
  /** Streamed progress for long tools (bash output as it arrives). */
  onUpdate?: (text: string) => void;
  /** How far a long operation has got (an MCP server's progress notifications). */
  onProgress?: (progress: ToolProgress) => void;
  /**
   * Where a tool whose output can be huge writes it: the capture keeps what fits the event limit
   * in memory and streams everything to the call's spill file. The tool puts `finish().text` in its
   * envelope; the framework does the only cut for the model.
   */
  output: OutputCapture;
  /** Id of the model's call this run answers (tools that start child agents record it). */
  callId?: string;
  /** Commands running in the background for this session (exec_command, run_in_background…). */
  processes: ProcessTable;
  /** Timeout for a shell command that names none: the session's setting, else the profile's default. */
  commandTimeoutMs?: number;
  /** The session's web access (allowed hosts, page cache, the model answering fetch prompts); absent: defaults. */
  web?: WebAccess;
  /** The profile's tool for each capability, for sentences that point at another tool (tools/naming.ts); absent: the core names. */
  toolNames?: ToolNames;
  /** The person at the other end (the shell's menu, the editor), when someone can be asked; absent: print, RPC, scripts. */
  user?: UserChannel;
  /** Values of earlier parameters the tool still honours though its current shape has no place for them (see `Tool.earlier`). */
  earlier?: Readonly<Record<string, unknown>>;
}

/**
 * One thing a call does, as the permission gate (lib/gate) sees it: named as Claude Code names
 * such a call, so rules and hooks written for Claude Code hold under every profile, with the one
 * value a rule's parentheses speak about. `target` is, by name: a path as the model wrote it for
 * `Read`, `Grep`, `Glob` (the file or folder read, searched or listed), `Edit` and `Write` (the file
 * changed); the command line for `Bash`; the URL for `WebFetch`; the skill's or agent's name for
 * `Skill` and `Agent`. The gate resolves paths (`~`, `..`, links), parses commands and URLs.
 */
export interface Touch {
  /** Claude Code's name for such a call: Read, Grep, Glob, Edit, Write, Bash, WebFetch, Skill, Agent, TodoWrite, mcp__server__tool… */
  as: string;
  target?: string;
  /** Bash: text typed into a process already running, not a command line gong can read with certainty. */
  typed?: boolean;
  /** The folder `target` is relative to, when not the working directory (a patch after `cd dir &&`, a workdir). */
  cwd?: string;
  /** Paths and URLs among the arguments of a tool gong knows nothing else about (an MCP tool's): deny rules on them apply. */
  mentions?: string[];
  /** A tool gong knows nothing else about says it changes things (an MCP tool's `destructiveHint`). */
  writes?: boolean;
  /** The rest of the call as Claude Code's tool takes it (`old_string`, `content`, `description`…): what shell hooks read. */
  input?: Record<string, unknown>;
}

/** The call a gate is asked about before it runs: its id, the tool that would run it and where. */
export interface PendingCall {
  id: string;
  tool: Tool;
  /** The environment the tool would run in: paths resolve as it resolves them. */
  env: ExecutionEnvironment;
}

/**
 * A call written in an earlier shape of the tool, mapped onto the current one: the current
 * arguments, the values with no current parameter that the tool still honours (`ctx.earlier`), and
 * the sentences telling the model which names are current — or one sentence refusing the call.
 */
export type EarlierArgs =
  | { args: Record<string, unknown>; honoured: Record<string, unknown>; notes: string[] }
  | { error: string };

export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

export interface Tool<Args = any> {
  name: string;
  /** Shown to the model. */
  description: string;
  /** valibot schema of the arguments; the registry validates before `run`. */
  schema?: GenericSchema<unknown, Args>;
  /**
   * Or the arguments' JSON Schema as another program published it (an MCP server's tool): sent to
   * the model as is; the registry checks required fields, types and enums before `run`.
   */
  jsonSchema?: Record<string, unknown>;
  /**
   * Which end of a long output the framework truncator keeps (docs/conformance.md: 001 §3,
   * 004 §5.1).
   */
  truncation: TruncateMode;
  /** Set for a tool whose only argument is `input`, a text the model may write freeform where the API allows it. */
  format?: FreeformFormat;
  /** Older names the reference agent still answers to (gemini-cli's `search_file_content`): a call under one runs this tool; the model is shown only `name`. */
  aliases?: readonly string[];
  /**
   * Maps arguments written in an earlier shape of the tool (parameters its models were trained on
   * before they were renamed) onto the current one, before they are checked (lib/profiles/earlier.ts).
   */
  earlier?(args: Record<string, unknown>): EarlierArgs;
  run(args: Args, ctx: ToolRunContext): Promise<ToolResponse>;
  /** Default "other". */
  kind?: ToolKind;
  /**
   * One line naming what a call does, without the tool's name: "src/app.ts:10-40", "npm test".
   * It also sees arguments still streaming in, so it must accept missing fields. Default: the
   * arguments as `key=value` pairs.
   */
  summarizeCall?(args: Partial<Args>): string;
  /** One line saying how the call went: "exit 0 · 12 lines", "3 matches". Default: the error sentence or the first line of `text`. */
  summarizeResult?(response: ToolResponse): string;
  /** Project-relative files the call read (kind "read") or changed (kind "modify"). Default: `context.path_resolved` of a result that is not an error. */
  files?(response: ToolResponse): string[];
  /**
   * What a call touches, from its validated arguments alone (see `Touch`); the permission gate
   * decides on it. An empty list: nothing beyond the tool itself (reading a background command's
   * output). Absent (a custom tool that says nothing): the gate goes by the tool's name and kind.
   */
  touches?(args: Args): Touch[] | Promise<Touch[]>;
}
