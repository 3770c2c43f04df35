/**
 * The tools a host's sessions start with when the flags or the settings name them: the flag's
 * selection, else the settings' `tools`, checked with the session's own rule for the profile the
 * session will have (lib/agent/tool-selection.ts), so a host refuses at start exactly what
 * createSession and setTools would refuse.
 */
import type { CreateSessionOptions } from "../agent/index.ts";
import { toolsForSelection, type SelectionCheck } from "../agent/tool-selection.ts";
import type { ShellChoice } from "../env/shell.ts";
import type { ExecutionEnvironment } from "../env/types.ts";
import { AUTO_PROFILE, factoryFor } from "../profiles/index.ts";
import { parseToolList } from "../../tools/registry.ts";
import type { Tool } from "../../tools/types.ts";
import { ConfigError } from "./errors.ts";
import type { SessionFlags } from "./flags.ts";
import type { LoadedSettings, Settings } from "./settings.ts";

export interface ToolChoice {
  /** The selection createSession gets; undefined: the profile's own set. */
  tools: CreateSessionOptions["tools"];
  /** Whether the tools were named (by the flag or the settings) rather than the profile's own. */
  explicit: boolean;
}

export interface ToolContext {
  model: string;
  settings: Settings;
  /** Which settings file set each key (an error names the one that set `tools`). */
  sources: LoadedSettings["sources"];
  /** Where the session's commands run (the shell tools' check). */
  env: ExecutionEnvironment;
  shell: ShellChoice | null;
  /** Whether the session has skills (the skill tool is offered then). */
  skills: boolean;
}

export function chooseTools(flags: Pick<SessionFlags, "tools" | "profile">, context: ToolContext): ToolChoice {
  const { settings } = context;
  const tools = parseTools(flags.tools ?? settings.tools);
  if (tools === undefined) return { tools, explicit: false };
  const source = flags.tools !== undefined ? "--tools" : `"tools" in ${context.sources.tools}`;
  const check: SelectionCheck = {
    selection: tools,
    profile: factoryFor(flags.profile ?? settings.profile ?? AUTO_PROFILE, context.model),
    model: context.model,
    env: context.env,
    skills: context.skills,
  };
  checkTools(check, source, context.shell);
  return { tools, explicit: true };
}

function parseTools(tools: string | readonly string[] | undefined): CreateSessionOptions["tools"] {
  if (tools === undefined) return undefined;
  return typeof tools === "string" ? parseToolList(tools) : tools;
}

/**
 * Checks an explicit tool selection. An unknown preset or tool name, or a shell tool where no shell
 * exists, is a configuration error naming where it was written.
 */
function checkTools(check: SelectionCheck, source: string, shell: ShellChoice | null): void {
  let active: Tool[];
  try {
    active = toolsForSelection(check);
  } catch (e) {
    // The rule's sentences, joined into one: "Unknown tool 'x'. Available tools: …" → "unknown tool 'x'; available tools: …".
    const reason = (e as Error).message
      .replace(/\.$/, "")
      .replace(/\. (\w)/g, (_m, c: string) => `; ${c.toLowerCase()}`);
    throw new ConfigError(`Invalid ${source}: ${reason[0].toLowerCase()}${reason.slice(1)}.`);
  }
  // Tools chosen by name that cannot run: asked for explicitly, so a stop rather than a notice.
  const shellTools = active.filter((t) => t.kind === "shell").map((t) => t.name);
  if (!shell && shellTools.length > 0) {
    throw new ConfigError(
      `${source} names ${shellTools.join(", ")}, but no shell is on PATH (${process.env.PATH || "empty"}; gong looked for bash and sh): install one, name one with "shell" in settings, or leave ${shellTools.join(", ")} out.`,
    );
  }
}
