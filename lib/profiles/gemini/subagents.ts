/** The subagent tool of the `gemini` profile, gemini-cli 0.61's `invoke_agent {agent_name, prompt}`. */
import * as v from "valibot";
import type { AgentDefinition } from "../../setup/agents.ts";
import type { Tool } from "../../../tools/types.ts";
import {
  findAgent,
  firstWords,
  READONLY_TYPES,
  runToCompletion,
  type SpawnRequest,
  type Subagents,
  type SubagentToolOptions,
} from "../subagents.ts";

const GEMINI_AGENTS: Record<string, string> = {
  generalist: "all tools; for multi-step changes",
  codebase_investigator: "reading and search tools only; for understanding code",
};

/** gemini-cli's invoke_agent, the only subagent tool of the profile. */
export function geminiSubagentTools(subagents: Subagents, { agents = [] }: SubagentToolOptions): Tool[] {
  return [invokeAgentTool(subagents, agents)];
}

function invokeAgentTool(subagents: Subagents, agents: readonly AgentDefinition[]): Tool {
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
    touches: (a: { agent_name: string; prompt: string }) => [
      { as: "Agent", target: a.agent_name, input: { subagent_type: a.agent_name, prompt: a.prompt } },
    ],
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
      return runToCompletion(subagents, request, ctx);
    },
  };
}
