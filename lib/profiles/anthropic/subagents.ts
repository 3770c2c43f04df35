/**
 * The subagent tool of the `anthropic` profile, Claude Code 2.1's `Agent {description, prompt,
 * subagent_type?, model?, run_in_background?}`.
 */
import * as v from "valibot";
import { agentModel } from "../../setup/agents.ts";
import type { Tool } from "../../../tools/types.ts";
import { withEarlier } from "../earlier.ts";
import {
  agentList,
  findAgent,
  READONLY_TYPES,
  runToCompletion,
  type SpawnRequest,
  type Subagents,
  type SubagentToolOptions,
} from "../subagents.ts";

const CLAUDE_TYPES = ["general-purpose", "Explore"] as const;

/** Claude Code's Agent tool, the only subagent tool of the profile. */
export function claudeSubagentTools(subagents: Subagents, options: SubagentToolOptions): Tool[] {
  // Claude Code called it Task until 2.1.100: models trained then still call Task.
  return [withEarlier(agentTool(subagents, options), { unknown: "refuse" }, ["Task"])];
}

function agentTool(subagents: Subagents, options: SubagentToolOptions): Tool {
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
    touches: (a: { subagent_type?: string; description?: string; prompt?: string }) => [
      {
        as: "Agent",
        target: a.subagent_type ?? "general-purpose",
        input: { subagent_type: a.subagent_type, description: a.description, prompt: a.prompt },
      },
    ],
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
        const report = await subagents.spawn({ ...request, notifyWhenDone: true });
        return ctx.reply.success(
          { ...report },
          `Subagent ${report.agent_id} is running in the background; its report will arrive as a message when it finishes.`,
        );
      }
      return runToCompletion(subagents, request, ctx);
    },
  };
}
