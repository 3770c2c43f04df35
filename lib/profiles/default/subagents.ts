/**
 * The subagent tools of the `default` profile (docs/conformance.md: 004 §7.2): spawn_agent {task,
 * working_dir?, model?, max_turns?}, send_input, wait, close_agent. Profiles without their own use
 * them too.
 */
import * as v from "valibot";
import type { Tool } from "../../../tools/types.ts";
import {
  agentList,
  type ChildReport,
  findAgent,
  firstWords,
  MAX_WAIT_MS,
  type Subagents,
  type SubagentToolOptions,
  withResult,
} from "../subagents.ts";

/**
 * The subagent tools the spec names (docs/conformance.md: 004 §7.2): spawn_agent, send_input, wait,
 * close_agent.
 */
export function defaultSubagentTools(subagents: Subagents, { agents = [] }: SubagentToolOptions): Tool[] {
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
    // A general subagent unless a custom agent is named, as Claude Code calls it.
    touches: (a) => [
      {
        as: "Agent",
        target: a.agent_type ?? "general-purpose",
        input: { subagent_type: a.agent_type, prompt: a.task },
      },
    ],
    run: async (args, ctx) => {
      const agent = args.agent_type ? findAgent(agents, args.agent_type) : undefined;
      if (args.agent_type && !agent)
        return ctx.reply.fail(
          "INVALID_PARAM",
          `Unknown agent_type '${args.agent_type}'. Available: ${agents.map((a) => a.name).join(", ")}.`,
        );
      const report = await subagents.spawn({
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
    touches: () => [],
    run: async (args, ctx) => {
      const report = await subagents.send(args.agent_id, args.message, true);
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
    touches: () => [],
    run: async (args, ctx) => {
      const ids = Array.isArray(args.agent_id) ? args.agent_id : [args.agent_id];
      const { reports, timedOut } = await subagents.wait(ids, {
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
    touches: () => [],
    run: async (args, ctx) => {
      const before = await subagents.close(args.agent_id);
      return ctx.reply.success(
        { ...before, previous_status: before.status, status: "closed" },
        `Subagent ${before.agent_id} closed (it was ${before.status}).`,
      );
    },
  };
  return [spawn, send, wait, close];
}

function reportsText(reports: ChildReport[], timedOut: boolean): string {
  const lines = reports.map((r) => {
    const head = `agent ${r.agent_id} (${r.name}): ${r.status}${r.error ? ` — ${r.error}` : ""}`;
    return r.status === "completed" ? `${head}\n${r.output}` : head;
  });
  if (timedOut) lines.push("The wait timed out; the agents still running keep working.");
  return lines.join("\n\n");
}
