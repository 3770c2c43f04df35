/**
 * The subagent tools in each model family's dialect, all over one SubagentManager:
 * - default (004 §7.2): spawn_agent {task, working_dir?, model?, max_turns?}, send_input, wait, close_agent;
 * - openai (codex's multi-agent tools): spawn_agent {message|items, agent_type?, fork_context?,
 *   model?, reasoning_effort?}, send_input {target, message|items, interrupt?}, wait_agent
 *   {targets, timeout_ms?}, close_agent {target}, resume_agent {id};
 * - anthropic (Claude Code 2.1): Agent {description, prompt, subagent_type?, model?, run_in_background?};
 * - gemini (gemini-cli 0.61): invoke_agent {agent_name, prompt}.
 * Names and parameter shapes are the references'; the descriptions are ours.
 */
import * as v from "valibot";
import type { ToolResponse } from "../../envelope.ts";
import type { Tool, ToolRunContext } from "../../../tools/types.ts";
import type { ChildReport } from "../vocabulary.ts";
import type { SpawnRequest } from "./child-factory.ts";
import type { SubagentManager } from "./manager.ts";
import { agentModel, type AgentDefinition } from "../../setup/agents.ts";

export type SubagentDialect = "default" | "openai" | "anthropic" | "gemini";

export interface SubagentToolOptions {
  /** "provider/model-id" of the parent: model aliases (sonnet, haiku…) resolve within its provider. */
  parentModel: string;
  /** Custom agents (`.claude/agents/*.md`…): extra subagent types, each with its own prompt, tools and model. */
  agents?: readonly AgentDefinition[];
}

const DEFAULT_WAIT_MS = 30_000;
const MAX_WAIT_MS = 300_000;

/** Kinds of child a model may ask for by name: the whole tool set, or only the reading tools. */
const READONLY_TYPES = new Set(["explorer", "Explore", "codebase_investigator"]);

export function subagentTools(
  dialect: SubagentDialect,
  manager: SubagentManager,
  options: SubagentToolOptions,
): Tool[] {
  switch (dialect) {
    case "openai":
      return codexTools(manager, options.agents ?? []);
    case "anthropic":
      return [claudeAgentTool(manager, options)];
    case "gemini":
      return [geminiInvokeAgentTool(manager, options.agents ?? [])];
    default:
      return defaultTools(manager, options.agents ?? []);
  }
}

/** The dialect of a profile id; unknown profiles use the spec's own tools. */
export function subagentDialect(profileId: string): SubagentDialect {
  return profileId === "openai" || profileId === "anthropic" || profileId === "gemini" ? profileId : "default";
}

// ------------------------------------------------------------------------------ default (004 §7.2)

function defaultTools(manager: SubagentManager, agents: readonly AgentDefinition[]): Tool[] {
  const spawn: Tool<{ task: string; working_dir?: string; model?: string; max_turns?: number; agent_type?: string }> = {
    name: "spawn_agent",
    summarizeCall: (a) => a.task ?? "",
    description: `Start a subagent on a scoped task (explore a package, write tests for a module, review a diff). It works in the same files with its own conversation and runs in the background; collect its answer with wait. Returns its agent_id.${agentList(agents, "agent_type")}`,
    schema: v.object({
      task: v.pipe(
        v.string(),
        v.minLength(1),
        v.description("What the subagent should do, with all the context it needs: it does not see this conversation."),
      ),
      working_dir: v.optional(
        v.pipe(v.string(), v.description("Subdirectory of the workspace the subagent works in.")),
      ),
      model: v.optional(v.pipe(v.string(), v.description("Model override as provider/model-id; default: yours."))),
      max_turns: v.optional(
        v.pipe(
          v.number(),
          v.integer(),
          v.minValue(1),
          v.description("Model calls the subagent may make (default 50)."),
        ),
      ),
      // Offered only when there are custom agents, so the spec's own tool stays as it is otherwise.
      ...(agents.length > 0
        ? {
            agent_type: v.optional(
              v.pipe(
                v.string(),
                v.description("One of the custom agents listed above; default: a general subagent with your tools."),
              ),
            ),
          }
        : {}),
    }) as v.GenericSchema<
      unknown,
      { task: string; working_dir?: string; model?: string; max_turns?: number; agent_type?: string }
    >,
    truncation: "head",
    kind: "agent",
    run: async (args, ctx) => {
      const agent = args.agent_type ? findAgent(agents, args.agent_type) : undefined;
      if (args.agent_type && !agent)
        return ctx.reply.fail(
          "INVALID_PARAM",
          `Unknown agent_type '${args.agent_type}'. Available: ${agents.map((a) => a.name).join(", ")}.`,
        );
      const report = await manager.spawn({
        task: args.task,
        workingDir: args.working_dir,
        model: args.model,
        maxTurns: args.max_turns,
        callId: ctx.callId,
        name: agent ? `${agent.name}: ${firstWords(args.task)}` : firstWords(args.task),
        agent,
      });
      return ctx.reply.success(
        { ...report },
        `Spawned subagent ${report.agent_id}; it is running. Call wait with agent_id "${report.agent_id}" for its result.`,
      );
    },
  };
  const send: Tool<{ agent_id: string; message: string }> = {
    name: "send_input",
    description:
      "Send a message to a subagent: while it works, the message redirects it; once it has finished, it starts a new task with its conversation so far.",
    schema: v.object({ agent_id: v.pipe(v.string(), v.minLength(1)), message: v.pipe(v.string(), v.minLength(1)) }),
    truncation: "head",
    kind: "agent",
    run: async (args, ctx) => {
      const report = await manager.send(args.agent_id, args.message, true);
      return ctx.reply.success({ ...report }, `Message sent to subagent ${report.agent_id} (${report.status}).`);
    },
  };
  const wait: Tool<{ agent_id: string | string[]; timeout_ms?: number; all?: boolean }> = {
    name: "wait",
    description:
      "Wait for subagents and return their answers. With several ids it returns when the first finishes (or all, with all: true), or when the timeout passes.",
    schema: v.object({
      agent_id: v.union([v.pipe(v.string(), v.minLength(1)), v.pipe(v.array(v.string()), v.minLength(1))]),
      timeout_ms: v.optional(
        v.pipe(v.number(), v.minValue(0), v.description(`Milliseconds (default ${MAX_WAIT_MS}).`)),
      ),
      all: v.optional(v.boolean()),
    }),
    truncation: "head",
    kind: "agent",
    run: async (args, ctx) => {
      const ids = Array.isArray(args.agent_id) ? args.agent_id : [args.agent_id];
      const { reports, timedOut } = await manager.wait(ids, {
        all: args.all,
        timeoutMs: Math.min(args.timeout_ms ?? MAX_WAIT_MS, MAX_WAIT_MS),
        signal: ctx.signal,
      });
      return ctx.reply.success(
        { agents: reports.map(withResult), timed_out: timedOut },
        reportsText(reports, timedOut),
      );
    },
  };
  const close: Tool<{ agent_id: string }> = {
    name: "close_agent",
    description: "Stop a subagent (its running commands are killed) when its work is no longer needed.",
    schema: v.object({ agent_id: v.pipe(v.string(), v.minLength(1)) }),
    truncation: "head",
    kind: "agent",
    run: async (args, ctx) => {
      const before = await manager.close(args.agent_id);
      return ctx.reply.success(
        { ...before, previous_status: before.status, status: "closed" },
        `Subagent ${before.agent_id} closed (it was ${before.status}).`,
      );
    },
  };
  return [spawn, send, wait, close];
}

// ------------------------------------------------------------------------------ openai (codex)

const inputItems = v.optional(
  v.array(
    v.object({
      type: v.optional(v.string()),
      text: v.optional(v.string()),
      image_url: v.optional(v.string()),
      path: v.optional(v.string()),
      name: v.optional(v.string()),
    }),
  ),
);

/** The text of a codex message/items pair; images and mentions are named so the child can look them up. */
function codexText(message: string | undefined, items: v.InferOutput<typeof inputItems>): string {
  const parts = [message ?? ""];
  for (const item of items ?? []) {
    if (item.text) parts.push(item.text);
    else if (item.path || item.image_url || item.name)
      parts.push(`[${item.type ?? "item"}: ${item.path ?? item.image_url ?? item.name}]`);
  }
  return parts.filter((p) => p.trim() !== "").join("\n");
}

/** codex's status shape: "running" | "shutdown" | {completed: text} | {errored: message}. */
function codexStatus(report: ChildReport): unknown {
  if (report.status === "running") return "running";
  if (report.status === "closed") return "shutdown";
  if (report.status === "failed") return { errored: report.error ?? "failed" };
  return { completed: report.output };
}

function codexTools(manager: SubagentManager, agents: readonly AgentDefinition[]): Tool[] {
  const spawn: Tool<{
    message?: string;
    items?: v.InferOutput<typeof inputItems>;
    agent_type?: string;
    fork_context?: boolean;
    model?: string;
    reasoning_effort?: string;
  }> = {
    name: "spawn_agent",
    summarizeCall: (a) => a.message ?? "",
    description: `Start a sub-agent on a well-scoped task that can run beside your own work. It shares the workspace, has its own conversation (unless fork_context copies yours) and runs in the background. agent_type "explorer" gets only reading tools; "worker" (default) gets all of yours. Returns its agent_id; wait_agent collects its answer.${agentList(agents, "agent_type")}`,
    schema: v.object({
      message: v.optional(v.string()),
      items: inputItems,
      agent_type: v.optional(v.string()),
      fork_context: v.optional(v.boolean()),
      model: v.optional(v.string()),
      reasoning_effort: v.optional(v.string()),
    }),
    truncation: "head",
    kind: "agent",
    run: async (args, ctx) => {
      const task = codexText(args.message, args.items);
      if (!task) return ctx.reply.fail("INVALID_PARAM", "spawn_agent needs the task: give message (or text items).");
      const request: SpawnRequest = {
        task,
        model: args.model,
        callId: ctx.callId,
        name: args.agent_type ? `${args.agent_type}: ${firstWords(task)}` : firstWords(task),
      };
      const agent = args.agent_type ? findAgent(agents, args.agent_type) : undefined;
      if (agent) request.agent = agent;
      else if (args.agent_type && READONLY_TYPES.has(args.agent_type)) request.tools = "readonly";
      if (args.fork_context) request.forkContext = true;
      if (args.reasoning_effort) request.reasoningEffort = args.reasoning_effort;
      const report = await manager.spawn(request);
      return ctx.reply.success(
        { agent_id: report.agent_id, nickname: report.name },
        JSON.stringify({ agent_id: report.agent_id, nickname: report.name }),
      );
    },
  };
  const send: Tool<{
    target: string;
    message?: string;
    items?: v.InferOutput<typeof inputItems>;
    interrupt?: boolean;
  }> = {
    name: "send_input",
    description:
      "Send a message to a sub-agent. interrupt=true redirects its current work at once; otherwise the message is queued for when it is done with the current one.",
    schema: v.object({
      target: v.pipe(v.string(), v.minLength(1)),
      message: v.optional(v.string()),
      items: inputItems,
      interrupt: v.optional(v.boolean()),
    }),
    truncation: "head",
    kind: "agent",
    run: async (args, ctx) => {
      const text = codexText(args.message, args.items);
      if (!text) return ctx.reply.fail("INVALID_PARAM", "send_input needs message (or text items).");
      if (manager.status(args.target) === "closed")
        return ctx.reply.fail(
          "EXECUTION_ERROR",
          `Subagent ${args.target} is closed; resume_agent reopens it, or spawn a new one.`,
        );
      const report = await manager.send(args.target, text, args.interrupt ?? false);
      const submission = `${report.agent_id}-${Date.now().toString(36)}`;
      return ctx.reply.success({ submission_id: submission }, JSON.stringify({ submission_id: submission }));
    },
  };
  const wait: Tool<{ targets: string[]; timeout_ms?: number }> = {
    name: "wait_agent",
    description: `Wait until one of the given sub-agents reaches a final status, or the timeout passes (default ${DEFAULT_WAIT_MS} ms, at most ${MAX_WAIT_MS}). Completed statuses carry the agent's final answer.`,
    schema: v.object({ targets: v.pipe(v.array(v.string()), v.minLength(1)), timeout_ms: v.optional(v.number()) }),
    truncation: "head",
    kind: "agent",
    run: async (args, ctx) => {
      if (args.timeout_ms !== undefined && args.timeout_ms <= 0)
        return ctx.reply.fail("INVALID_PARAM", "timeout_ms must be greater than zero (omit it for the default wait).");
      const timeoutMs = Math.min(args.timeout_ms ?? DEFAULT_WAIT_MS, MAX_WAIT_MS);
      const { reports, timedOut } = await manager.wait(args.targets, { timeoutMs, signal: ctx.signal });
      const status = Object.fromEntries(
        reports.filter((r) => r.status !== "running").map((r) => [r.agent_id, codexStatus(r)]),
      );
      return ctx.reply.success(
        { status, timed_out: timedOut, agents: reports.map(withResult) },
        JSON.stringify({ status, timed_out: timedOut }),
      );
    },
  };
  const close: Tool<{ target: string }> = {
    name: "close_agent",
    description:
      "Close a sub-agent that is no longer needed (its commands are killed) and return its status from before the close.",
    schema: v.object({ target: v.pipe(v.string(), v.minLength(1)) }),
    truncation: "head",
    kind: "agent",
    run: async (args, ctx) => {
      const before = await manager.close(args.target);
      const previous = codexStatus(before);
      return ctx.reply.success(
        { previous_status: previous, agent: before },
        JSON.stringify({ previous_status: previous }),
      );
    },
  };
  const resume: Tool<{ id: string }> = {
    name: "resume_agent",
    description:
      "Reopen a closed sub-agent from its saved conversation so send_input and wait_agent work with it again. Returns its status.",
    schema: v.object({ id: v.pipe(v.string(), v.minLength(1)) }),
    truncation: "head",
    kind: "agent",
    run: async (args, ctx) => {
      const report = await manager.resume(args.id);
      const status = codexStatus(report);
      return ctx.reply.success({ status, agent: report }, JSON.stringify({ status }));
    },
  };
  return [spawn, send, wait, close, resume];
}

// ------------------------------------------------------------------------------ anthropic (Claude Code)

const CLAUDE_TYPES = ["general-purpose", "Explore"] as const;

function claudeAgentTool(manager: SubagentManager, options: SubagentToolOptions): Tool {
  return {
    name: "Agent",
    summarizeCall: (a: { description?: string }) => a.description ?? "",
    description: `Hand a self-contained task to a subagent that works in the same project with its own conversation and returns one final report. subagent_type: "general-purpose" (all tools, the default) or "Explore" (read-only search and reading). Write the prompt so it stands alone: the subagent has not seen this conversation. With run_in_background the call returns at once and the report arrives later as a message.${agentList(options.agents ?? [], "subagent_type")}`,
    schema: v.object({
      description: v.pipe(v.string(), v.minLength(1), v.description("A short (3-5 word) description of the task.")),
      prompt: v.pipe(v.string(), v.minLength(1), v.description("The task for the subagent.")),
      subagent_type: v.optional(v.string()),
      model: v.optional(v.picklist(["sonnet", "opus", "haiku"])),
      run_in_background: v.optional(v.boolean()),
    }),
    truncation: "head",
    kind: "agent",
    run: async (
      args: {
        description: string;
        prompt: string;
        subagent_type?: string;
        model?: "sonnet" | "opus" | "haiku";
        run_in_background?: boolean;
      },
      ctx,
    ) => {
      const type = args.subagent_type ?? "general-purpose";
      const agent = findAgent(options.agents ?? [], type);
      if (!agent && !(CLAUDE_TYPES as readonly string[]).includes(type)) {
        return ctx.reply.fail(
          "INVALID_PARAM",
          `Unknown subagent_type '${type}'. Available: ${[...CLAUDE_TYPES, ...(options.agents ?? []).map((a) => a.name)].join(", ")}.`,
        );
      }
      const request: SpawnRequest = {
        task: args.prompt,
        name: args.description,
        callId: ctx.callId,
        model: args.model ? agentModel(args.model, options.parentModel) : undefined,
      };
      if (agent) request.agent = agent;
      else if (READONLY_TYPES.has(type)) request.tools = "readonly";
      if (args.run_in_background) {
        const report = await manager.spawn({ ...request, notifyWhenDone: true });
        return ctx.reply.success(
          { ...report },
          `Subagent ${report.agent_id} is running in the background; its report will arrive as a message when it finishes.`,
        );
      }
      return runToCompletion(manager, request, ctx);
    },
  };
}

// ------------------------------------------------------------------------------ gemini (gemini-cli)

const GEMINI_AGENTS: Record<string, string> = {
  generalist: "all tools; for multi-step changes",
  codebase_investigator: "reading and search tools only; for understanding code",
};

function geminiInvokeAgentTool(manager: SubagentManager, agents: readonly AgentDefinition[]): Tool {
  return {
    name: "invoke_agent",
    summarizeCall: (a: { agent_name?: string; prompt?: string }) => [a.agent_name, a.prompt].filter(Boolean).join(": "),
    description: `Run a subagent on a task and return its final report. Agents: ${[...Object.entries(GEMINI_AGENTS), ...agents.map((a) => [a.name, a.description])].map(([n, d]) => `${n} (${d})`).join(", ")}. The prompt must be complete: the subagent has not seen this conversation.`,
    schema: v.object({
      agent_name: v.pipe(v.string(), v.minLength(1), v.description("Name of the subagent to invoke.")),
      prompt: v.pipe(v.string(), v.minLength(1), v.description("The complete task for the subagent.")),
    }),
    truncation: "head",
    kind: "agent",
    run: async (args: { agent_name: string; prompt: string }, ctx) => {
      const agent = findAgent(agents, args.agent_name);
      if (!agent && !Object.hasOwn(GEMINI_AGENTS, args.agent_name)) {
        return ctx.reply.fail(
          "NOT_FOUND",
          `Subagent '${args.agent_name}' not found. Available: ${[...Object.keys(GEMINI_AGENTS), ...agents.map((a) => a.name)].join(", ")}.`,
        );
      }
      const request: SpawnRequest = {
        task: args.prompt,
        name: `${args.agent_name}: ${firstWords(args.prompt)}`,
        callId: ctx.callId,
      };
      if (agent) request.agent = agent;
      else if (READONLY_TYPES.has(args.agent_name)) request.tools = "readonly";
      return runToCompletion(manager, request, ctx);
    },
  };
}

// ------------------------------------------------------------------------------ shared

/** Spawns, waits for the end (an interrupted call closes the child) and answers with its report. */
async function runToCompletion(
  manager: SubagentManager,
  request: SpawnRequest,
  ctx: ToolRunContext,
): Promise<ToolResponse> {
  const spawned = await manager.spawn(request);
  const { reports } = await manager.wait([spawned.agent_id], { all: true, timeoutMs: Infinity, signal: ctx.signal });
  if (ctx.signal?.aborted) {
    await manager.close(spawned.agent_id);
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

/** A child's report as 004 §7.3's SubAgentResult also names it: success and turns_used. */
function withResult(report: ChildReport): ChildReport & { success: boolean; turns_used: number } {
  return { ...report, success: report.status === "completed", turns_used: report.turns };
}

function reportsText(reports: ChildReport[], timedOut: boolean): string {
  const lines = reports.map((r) => {
    const head = `agent ${r.agent_id} (${r.name}): ${r.status}${r.error ? ` — ${r.error}` : ""}`;
    return r.status === "completed" ? `${head}\n${r.output}` : head;
  });
  if (timedOut) lines.push("The wait timed out; the agents still running keep working.");
  return lines.join("\n\n");
}

function findAgent(agents: readonly AgentDefinition[], name: string): AgentDefinition | undefined {
  return agents.find((a) => a.name === name);
}

/** The custom agents, one line each, for the spawning tool's description (sorted: the tool list stays stable). */
function agentList(agents: readonly AgentDefinition[], field: string): string {
  if (agents.length === 0) return "";
  return `\n\nCustom agents (pass the name as ${field}):\n${agents.map((a) => `- ${a.name}: ${a.description}`).join("\n")}`;
}

function firstWords(text: string): string {
  const words = text.trim().split(/\s+/).slice(0, 6).join(" ");
  return words.length > 48 ? `${words.slice(0, 47)}…` : words;
}

/**
 * Names of every dialect's subagent tools, read off their definitions (the manager is only used
 * when a tool runs; defined last, after the constants they use). A tool list may name one of
 * another dialect: the session leaves it out, and a child's selection drops them all.
 */
export const SUBAGENT_TOOL_NAMES: ReadonlySet<string> = new Set(
  (["default", "openai", "anthropic", "gemini"] as const).flatMap((d) =>
    subagentTools(d, undefined as never, { parentModel: "" }).map((t) => t.name),
  ),
);
