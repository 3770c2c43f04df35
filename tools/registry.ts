/**
 * The tool registry (docs/conformance.md: 004 §3.7–3.8, 003 §10): look a tool up by name, validate
 * its arguments, run it in the execution environment, and always answer with a valid envelope —
 * unknown tools (NOT_FOUND), bad arguments (INVALID_PARAM), tools that throw or return a malformed
 * envelope included. It is the one error boundary: tool bodies throw, and the agent relies on it.
 * Presets pick which tools are active when the registry is used on its own; a session names its
 * Toolset (lib/agent/toolset.ts) with each call instead.
 */
import { relative } from "node:path";
import { toJsonSchema } from "@valibot/to-json-schema";
import { envelopeProblems, startReply, type ToolResponse } from "../lib/envelope.ts";
import { LocalEnvironment } from "../lib/env/local.ts";
import type { ExecutionEnvironment } from "../lib/env/types.ts";
import { OutputCapture } from "../lib/output/capture.ts";
import { type ArgsCheck, checkArgs } from "./args.ts";
import { checkJsonArgs } from "./json-args.ts";
import { applyPatchTool } from "./apply-patch/tool.ts";
import { bashTool } from "./bash.ts";
import { editTool } from "./edit.ts";
import { findTool } from "./find.ts";
import { grepTool } from "./grep.ts";
import { lsTool } from "./ls.ts";
import { ProcessTable } from "./processes.ts";
import { readTool } from "./read.ts";
import { SearchEngineWatch } from "./search-fallback.ts";
import { activeCoreToolNames, type ToolNames } from "./naming.ts";
import { describeShellTool } from "./shell-description.ts";
import type { ToolSpec } from "../lib/llm/types.ts";
import type { EarlierArgs, Tool, ToolProgress } from "./types.ts";
import type { UserChannel } from "./user-channel.ts";
import type { WebAccess } from "../lib/web/access.ts";
import { writeTool } from "./write.ts";
import { CORE_NAMING, selectTools, type ToolPreset } from "./selection.ts";

/** The seven core tools, in the order the model sees them. */
export const coreTools: readonly Tool[] = [readTool, writeTool, editTool, bashTool, grepTool, findTool, lsTool];
/**
 * Tools every registry knows but no preset activates: apply_patch. A profile or the user turns it
 * on by name, e.g. `--tools default,apply_patch`. (The profiles' plan tools are theirs:
 * lib/profiles/index.ts lists them for sessions.)
 */
export const optionalTools: readonly Tool[] = [applyPatchTool];

export { isToolPreset, parseToolList, TOOL_PRESETS, type ToolPreset } from "./selection.ts";

export interface ToolRegistryConfig {
  /** Preset used when the options give none. */
  preset?: ToolPreset;
  /** Explicit active tool names (a preset name among them stands for its tools); wins over `preset`. */
  active?: readonly string[];
}

export interface ToolRegistryOptions {
  /** Project root (and working directory) used when no `env` is given. */
  cwd: string;
  /** Which tools are active: a preset name or a list of tool and preset names. Default "default". */
  preset?: ToolPreset | readonly string[];
  /** Execution environment; default `new LocalEnvironment({ root: cwd })`. */
  env?: ExecutionEnvironment;
  /** Settings-file form of the active set (used when `preset` is not given). */
  config?: ToolRegistryConfig;
  /** Extra tools, registered after the core ones (a later registration of a name wins) and active. */
  tools?: readonly Tool[];
  /** What the web tools use (allowed hosts, page cache, the model answering fetch prompts); default: public addresses only. */
  web?: WebAccess;
}

/** The tools a call may name: a session's Toolset, or the registry's own active set. */
export interface ActiveTools {
  readonly names: readonly string[];
  /** The active tool a call under `name` runs (its own name or an older alias). */
  callable(name: string): Tool | undefined;
  /** The tool a hint names for each capability; absent: the active core tools. */
  readonly toolNames?: ToolNames;
}

export interface ExecuteOptions {
  /** Where the call's tool is looked up (a session's Toolset); default the registry's active set. */
  tools?: ActiveTools;
  signal?: AbortSignal;
  /** Aborted when the user moves the call's running command to the background. */
  background?: AbortSignal;
  onUpdate?: (text: string) => void;
  onProgress?: (progress: ToolProgress) => void;
  callId?: string;
  /** The call's output capture (the observer's, so big outputs spill); default one held in memory only. */
  output?: OutputCapture;
  /** Default timeout for shell commands that give none. */
  commandTimeoutMs?: number;
  /** The person the tools may ask (questions, plan mode); absent where no one can answer. */
  user?: UserChannel;
}

export interface RegisterOptions {
  /** Whether the tool becomes active (default true); the session decides for tools of MCP servers. */
  activate?: boolean;
}

export interface ToolRegistry {
  readonly env: ExecutionEnvironment;
  /** Background commands started by the tools (killed by `close()`). */
  readonly processes: ProcessTable;
  /** Validate, run, and return the envelope; never throws. */
  execute(name: string, args: unknown, options?: ExecuteOptions): Promise<ToolResponse>;
  /** JSON Schema definitions of the active tools. */
  definitions(): ToolSpec[];
  /** Names of the active tools. */
  names(): string[];
  /** A registered tool (active or not). */
  get(name: string): Tool | undefined;
  /** Names of every registered tool, active or not. */
  registered(): string[];
  /** The active tool a call under `name` runs: the tool of that name, or one keeping it as an older alias. */
  callable(name: string): Tool | undefined;
  /** Add or replace a tool; it becomes active unless `activate` is false. */
  register(tool: Tool, options?: RegisterOptions): void;
  unregister(name: string): boolean;
  /** Switch the active set (a preset, or tool and preset names); throws on an unknown name or an empty list. */
  setActive(presetOrNames: ToolPreset | readonly string[]): void;
  /** Kills the background commands still running. */
  close(): Promise<void>;
}

export function createToolRegistry(options: ToolRegistryOptions): ToolRegistry {
  const env = options.env ?? new LocalEnvironment({ root: options.cwd });
  let ready: Promise<void> | null = options.env ? Promise.resolve() : null;
  const tools = new Map<string, Tool>();
  const processes = new ProcessTable(env);
  for (const tool of [...coreTools, ...optionalTools, ...(options.tools ?? [])]) tools.set(tool.name, tool);
  let active: string[] = [];
  /** Sentences about earlier parameter names already told to the model: each is said once per registry (session). */
  const told = new Set<string>();

  // The one selection rule (selection.ts), with the core tools' own names.
  // Names of MCP tools not connected yet stay out until they are registered.
  const resolveActive = (presetOrNames: ToolPreset | readonly string[]): string[] =>
    selectTools({ naming: CORE_NAMING, selection: presetOrNames, known: [...tools.keys()] }).filter((n) =>
      tools.has(n),
    );

  active = resolveActive(options.preset ?? options.config?.active ?? options.config?.preset ?? "default");
  for (const tool of options.tools ?? []) if (!active.includes(tool.name)) active.push(tool.name);

  /** The active tool called `name`, or the active tool that keeps `name` as an older alias. */
  const activeTool = (name: string): Tool | undefined => {
    if (active.includes(name)) return tools.get(name);
    return active.map((n) => tools.get(n) as Tool).find((t) => t.aliases?.includes(name));
  };

  const relativeCwd = () => {
    const rel = relative(env.root, env.workingDirectory()).split("\\").join("/");
    return rel === "" ? "." : rel;
  };

  return {
    env,
    processes,
    close: () => processes.killAll(),
    names: () => [...active],
    get: (name) => tools.get(name),
    registered: () => [...tools.keys()],
    callable: activeTool,
    register(tool, { activate = true } = {}) {
      tools.set(tool.name, tool);
      if (activate && !active.includes(tool.name)) active.push(tool.name);
    },
    unregister(name) {
      active = active.filter((n) => n !== name);
      return tools.delete(name);
    },
    setActive(presetOrNames) {
      active = resolveActive(presetOrNames);
    },
    definitions() {
      const shell = env.facts?.()?.shell;
      return active.map((name) => {
        const tool = tools.get(name) as Tool;
        const spec = toDefinition(tool);
        return tool.kind === "shell" && shell !== undefined ? describeShellTool(spec, shell) : spec;
      });
    },
    async execute(
      name,
      args,
      {
        tools,
        signal,
        background,
        onUpdate,
        onProgress,
        callId,
        commandTimeoutMs,
        user,
        output = new OutputCapture(),
      } = {},
    ) {
      const reply = startReply(args, relativeCwd());
      const lookup = tools ?? { names: active, callable: activeTool };
      const tool = typeof name === "string" ? lookup.callable(name) : undefined;
      if (!tool)
        return reply.fail("NOT_FOUND", `Unknown tool '${String(name)}'. Available tools: ${lookup.names.join(", ")}.`);
      const { mapped, checked } = checkCall(tool, args);
      // A call under an earlier name of the tool (Task for Agent) is told the current one, once.
      const renamed = name === tool.name ? [] : [`${name} is called ${tool.name} now.`];
      if (!checked.ok) return reply.fail("INVALID_PARAM", withNotes(checked.message, untold(mapped, renamed, told)));
      if (signal?.aborted) return reply.fail("EXECUTION_ERROR", "Operation aborted");
      try {
        ready ??= env.initialize().catch((e) => {
          ready = null; // a root created later may still work
          throw e;
        });
        await ready;
        const searches = new SearchEngineWatch(env);
        const result = await tool.run(checked.args, {
          env: searches,
          reply,
          signal,
          ...(background ? { background } : {}),
          onUpdate,
          onProgress,
          callId,
          processes,
          commandTimeoutMs,
          output,
          web: options.web,
          toolNames: lookup.toolNames ?? activeCoreToolNames(lookup.names),
          ...(user ? { user } : {}),
          ...(mapped && "honoured" in mapped && Object.keys(mapped.honoured).length
            ? { earlier: mapped.honoured }
            : {}),
        });
        const problems = envelopeProblems(result);
        if (problems.length > 0)
          return reply.fail(
            "INTERNAL_ERROR",
            `Tool ${tool.name} returned a malformed result (${problems.join("; ")}).`,
          );
        const notes = untold(mapped, renamed, told);
        return searches.report(notes.length ? { ...result, text: withNotes(result.text, notes) } : result);
      } catch (e) {
        // The one place a tool's failure becomes an envelope: tool bodies just throw. After an abort a
        // tool's own sentence ("the call to MCP server x was cancelled") beats the generic one.
        if (signal?.aborted) return reply.fail("EXECUTION_ERROR", abortMessage(e));
        return reply.fromError(e);
      }
    },
  };
}

/**
 * A call's arguments as its tool takes them: an earlier shape mapped onto the current one, then
 * checked against the tool's schema (what `execute` does before running the tool).
 */
export function checkCall(tool: Tool, args: unknown): { mapped?: EarlierArgs; checked: ArgsCheck<unknown> } {
  const mapped = mapEarlier(tool, args);
  if (mapped && "error" in mapped) return { mapped, checked: { ok: false, message: mapped.error } };
  const given = mapped ? mapped.args : args;
  const checked = tool.jsonSchema
    ? checkJsonArgs(tool.name, tool.jsonSchema, given)
    : checkArgs(tool.name, schemaOf(tool), given);
  return { ...(mapped ? { mapped } : {}), checked };
}

/** A call in an earlier shape of its tool, mapped onto the current one (none for a tool without earlier shapes). */
function mapEarlier(tool: Tool, args: unknown): EarlierArgs | undefined {
  if (!tool.earlier || typeof args !== "object" || args === null || Array.isArray(args)) return undefined;
  return tool.earlier(args as Record<string, unknown>);
}

/** The notes about earlier names a call used, not yet told in this session (and marks them told). */
function untold(mapped: EarlierArgs | undefined, renamed: readonly string[], told: Set<string>): string[] {
  const notes = [...renamed, ...(mapped && !("error" in mapped) ? mapped.notes : [])];
  const fresh = notes.filter((note) => !told.has(note));
  for (const note of fresh) told.add(note);
  return fresh;
}

function withNotes(text: string, notes: readonly string[]): string {
  return notes.length ? `${text}\n[${notes.join(" ")}]` : text;
}

function abortMessage(e: unknown): string {
  return e instanceof Error && e.name !== "AbortError" && e.message !== "" ? e.message : "Operation aborted";
}

/** Each tool's definition, converted once: every request sends it again. */
const definitionCache = new WeakMap<Tool, ToolSpec>();

/** JSON Schema of a tool's arguments as the model sees it (root type "object", descriptions kept). */
export function toDefinition(tool: Tool): ToolSpec {
  let spec = definitionCache.get(tool);
  if (!spec) definitionCache.set(tool, (spec = convert(tool)));
  return spec;
}

function convert(tool: Tool): ToolSpec {
  const schema = tool.jsonSchema ?? (toJsonSchema(schemaOf(tool), { errorMode: "ignore" }) as Record<string, unknown>);
  const { $schema: _drop, ...parameters } = schema;
  if (parameters.type !== "object") throw new Error(`Tool ${tool.name}: its schema must describe an object.`);
  return {
    name: tool.name,
    description: tool.description,
    parameters,
    ...(tool.format ? { format: tool.format } : {}),
  };
}

function schemaOf(tool: Tool): NonNullable<Tool["schema"]> {
  if (!tool.schema)
    throw new Error(`Tool ${tool.name} has neither a valibot schema nor a JSON Schema for its arguments.`);
  return tool.schema;
}
