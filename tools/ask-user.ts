/**
 * Asking the user: questions with options to choose from, answered through the session's user
 * channel (the shell's menu, the editor). Where no one can answer (print mode, RPC, scripts) the
 * tool says so and the model goes on with its own judgement.
 */
import type { ToolResponse } from "../lib/envelope.ts";
import type { ToolRunContext } from "./types.ts";
import type { UserQuestion } from "./user-channel.ts";

export async function askUser(questions: readonly UserQuestion[], ctx: ToolRunContext): Promise<ToolResponse> {
  if (!ctx.user)
    return ctx.reply.success(
      { answered: false },
      "No one can be asked here: gong runs without a person to answer (print mode, RPC or a script). Go on with your best judgement, and say in your answer which choice you made and why.",
    );
  const answers = await ctx.user.ask(questions, ctx.signal, ctx.callId);
  if (!answers)
    return ctx.reply.fail("EXECUTION_ERROR", "The user did not answer the questions (the input was interrupted).");
  const lines = questions.map((q) => `"${q.question}" = "${answers[q.question] ?? "(no answer)"}"`);
  return ctx.reply.success(
    { answered: true, answers },
    `The user answered:\n${lines.join("\n")}\nGo on with these answers in mind.`,
  );
}
