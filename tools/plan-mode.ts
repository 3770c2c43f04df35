/**
 * Plan mode entered and left by the model: with the user's consent through the session's user
 * channel, the session offers only the reading tools until a plan is accepted (the shell's /plan
 * does the same by hand). Where no one can consent, the tools say what they would have done.
 */
import type { ToolResponse } from "../lib/envelope.ts";
import type { ToolRunContext } from "./types.ts";

export async function enterPlanMode(
  reason: string | undefined,
  exitTool: string,
  ctx: ToolRunContext,
): Promise<ToolResponse> {
  if (!ctx.user)
    return ctx.reply.success(
      { plan_mode: false },
      "No one can consent to plan mode here (print mode, RPC or a script), so it was not entered. Work as plan mode would have you: look around with the reading tools, change nothing yet, and present your plan before carrying it out.",
    );
  if (ctx.user.inPlanMode())
    return ctx.reply.success(
      { plan_mode: true },
      `Already in plan mode. When the plan is ready, call ${exitTool} with it.`,
    );
  const answer = await ctx.user.enterPlanMode(reason, ctx.signal, ctx.callId);
  if (!answer.consent)
    return ctx.reply.success(
      { plan_mode: false },
      `The user declined plan mode${answer.reason ? `: ${answer.reason}` : ""}. Go on with the task.`,
    );
  return ctx.reply.success(
    { plan_mode: true },
    `Plan mode is on: only the reading tools until the user accepts a plan. Explore, then call ${exitTool} with the plan.`,
  );
}

export async function exitPlanMode(
  plan: string | undefined,
  enterTool: string,
  ctx: ToolRunContext,
): Promise<ToolResponse> {
  if (!ctx.user?.inPlanMode())
    return ctx.reply.fail(
      "EXECUTION_ERROR",
      `Not in plan mode, so there is nothing to leave. Go on with the task (${enterTool} enters plan mode).`,
    );
  const answer = await ctx.user.exitPlanMode(plan, ctx.signal, ctx.callId);
  if (!answer.consent)
    return ctx.reply.success(
      { approved: false },
      `The user did not approve the plan${answer.reason ? `: ${answer.reason}` : ""}. Stay in plan mode, revise the plan and offer it again.`,
    );
  return ctx.reply.success({ approved: true }, "The user approved the plan and the tools are back: carry it out.");
}
