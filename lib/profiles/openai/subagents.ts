/**
 * The subagent tools of the `openai` profile, codex's multi-agent tools: spawn_agent {message|items,
 * agent_type?, fork_context?, model?, reasoning_effort?}, send_input {target, message|items,
 * interrupt?}, wait_agent {targets, timeout_ms?}, close_agent {target}, resume_agent {id}.
 */
import * as v from "valibot";
import type { Tool } from "../../../tools/types.ts";
import {
  agentList,
  type ChildReport,
  findAgent,
  firstWords,
  MAX_WAIT_MS,
  READONLY_TYPES,
  type SpawnRequest,
  type Subagents,
  type SubagentToolOptions,
  withResult,
} from "../subagents.ts";

const DEFAULT_WAIT_MS = 30_000;

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

/** codex's multi-agent tools: spawn_agent, send_input, wait_agent, close_agent, resume_agent. */
export function codexSubagentTools(subagents: Subagents, { agents = [] }: SubagentToolOptions): Tool[] {
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
    touches: (a) => [
      { as: "Agent", target: a.agent_type ?? "worker", input: { subagent_type: a.agent_type, prompt: a.message } },
    ],
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
      const report = await subagents.spawn(request);
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
    touches: () => [],
    run: async (args, ctx) => {
      const text = codexText(args.message, args.items);
      if (!text) return ctx.reply.fail("INVALID_PARAM", "send_input needs message (or text items).");
      const lost = subagents.lostHistory(args.target);
      if (lost) return ctx.reply.fail("EXECUTION_ERROR", lost);
      if (subagents.status(args.target) === "closed")
        return ctx.reply.fail(
          "EXECUTION_ERROR",
          `Subagent ${args.target} is closed; resume_agent reopens it, or spawn a new one.`,
        );
      const report = await subagents.send(args.target, text, args.interrupt ?? false);
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
    touches: () => [],
    run: async (args, ctx) => {
      if (args.timeout_ms !== undefined && args.timeout_ms <= 0)
        return ctx.reply.fail("INVALID_PARAM", "timeout_ms must be greater than zero (omit it for the default wait).");
      const timeoutMs = Math.min(args.timeout_ms ?? DEFAULT_WAIT_MS, MAX_WAIT_MS);
      const { reports, timedOut } = await subagents.wait(args.targets, { timeoutMs, signal: ctx.signal });
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
    touches: () => [],
    run: async (args, ctx) => {
      const before = await subagents.close(args.target);
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
    touches: () => [],
    run: async (args, ctx) => {
      const report = await subagents.resume(args.id);
      const status = codexStatus(report);
      return ctx.reply.success({ status, agent: report }, JSON.stringify({ status }));
    },
  };
  return [spawn, send, wait, close, resume];
}
