/**
 * What every profile's subagent tools share (each profile words its own: lib/profiles/<profile>/
 * subagents.ts): the narrow interface they drive the session's child agents through — the agent's
 * SubagentManager implements it, so the tools never import the agent — the requests and reports
 * that cross it, and the helpers several profiles' tools use. Names and parameter shapes are the
 * reference agents'; the descriptions are ours.
 */
import type { ChildReport, ChildStatus } from "../agent/vocabulary.ts";
import type { ToolResponse } from "../envelope.ts";
import type { AgentDefinition } from "../setup/agents.ts";
import type { ToolRunContext } from "../../tools/types.ts";

export interface SpawnRequest {
  /** The child's first input. */
  task: string;
  /** A short name shown in progress lines ("explore parser"). */
  name?: string;
  /** Model override ("provider/id"); default the parent's. */
  model?: string;
  /** Subdirectory of the workspace the child works in. */
  workingDir?: string;
  /** Model calls the child may make; default 50. */
  maxTurns?: number;
  /** Tool preset or names for the child; default the parent's active tools. */
  tools?: string | readonly string[];
  /** The parent's tool call that spawned the child (recorded in the child's session file). */
  callId?: string;
  /** Start the child with a copy of the parent's conversation instead of an empty one. */
  forkContext?: boolean;
  reasoningEffort?: string;
  /** When the child finishes, its report is sent to the parent as a message (background agents). */
  notifyWhenDone?: boolean;
  /** A custom agent: its prompt, tools, model and turn limit (fields set above win). */
  agent?: AgentDefinition;
}

// The reports the tools get back are the agent's vocabulary (its events carry them too).
export type { ChildReport, ChildStatus };

/**
 * The session's child agents as the subagent tools see them. What it refuses it throws as a
 * ToolError: the tools let it through, the registry makes it their envelope.
 */
export interface Subagents {
  spawn(request: SpawnRequest): Promise<ChildReport>;
  /** Sends a running child a message (`interrupt`: it redirects the child now), or starts a finished one on a new task. */
  send(id: string, message: string, interrupt?: boolean): Promise<ChildReport>;
  /** Waits until one of the children (or all) stops running, the timeout (ms; Infinity for none) passes or the signal fires. */
  wait(
    ids: readonly string[],
    options: { all?: boolean; timeoutMs: number; signal?: AbortSignal },
  ): Promise<{ reports: ChildReport[]; timedOut: boolean }>;
  /** Stops a child; answers with its report from before the close. */
  close(id: string): Promise<ChildReport>;
  /** Opens a closed child again from its session file. */
  resume(id: string): Promise<ChildReport>;
  status(id: string): ChildStatus;
  /** Why a closed child can never run again (its history is gone), or undefined when it can. */
  lostHistory(id: string): string | undefined;
}

export interface SubagentToolOptions {
  /** "provider/model-id" of the parent: model aliases (sonnet, haiku…) resolve within its provider. */
  parentModel: string;
  /** Custom agents (`.claude/agents/*.md`…): extra subagent types, each with its own prompt, tools and model. */
  agents?: readonly AgentDefinition[];
}

/** Kinds of child a model may ask for by name: the whole tool set, or only the reading tools. */
export const READONLY_TYPES: ReadonlySet<string> = new Set(["explorer", "Explore", "codebase_investigator"]);

/** The longest a wait for subagents lasts. */
export const MAX_WAIT_MS = 300_000;

/** Spawns, waits for the end (an interrupted call closes the child) and answers with its report. */
export async function runToCompletion(
  subagents: Subagents,
  request: SpawnRequest,
  ctx: ToolRunContext,
): Promise<ToolResponse> {
  const spawned = await subagents.spawn(request);
  const { reports } = await subagents.wait([spawned.agent_id], { all: true, timeoutMs: Infinity, signal: ctx.signal });
  if (ctx.signal?.aborted) {
    await subagents.close(spawned.agent_id);
    return ctx.reply.fail("EXECUTION_ERROR", `Subagent ${spawned.agent_id} was stopped before it finished.`);
  }
  const report = reports[0];
  if (report.status === "failed") {
    return ctx.reply.fail("EXECUTION_ERROR", `Subagent ${report.agent_id} failed: ${report.error ?? "unknown error"}`, {
      data: { ...report },
    });
  }
  return ctx.reply.success({ ...report }, report.output || "(the subagent gave no final answer)");
}

/**
 * A child's report with success and turns_used, as the spec's SubAgentResult has them
 * (docs/conformance.md: 004 §7.3).
 */
export function withResult(report: ChildReport): ChildReport & { success: boolean; turns_used: number } {
  return { ...report, success: report.status === "completed", turns_used: report.turns };
}

export function findAgent(agents: readonly AgentDefinition[], name: string): AgentDefinition | undefined {
  return agents.find((a) => a.name === name);
}

/** The custom agents, one line each, for the spawning tool's description (sorted: the tool list stays stable). */
export function agentList(agents: readonly AgentDefinition[], field: string): string {
  if (agents.length === 0) return "";
  return `\n\nCustom agents (pass the name as ${field}):\n${agents.map((a) => `- ${a.name}: ${a.description}`).join("\n")}`;
}

export function firstWords(text: string): string {
  const words = text.trim().split(/\s+/).slice(0, 6).join(" ");
  return words.length > 48 ? `${words.slice(0, 47)}…` : words;
}
