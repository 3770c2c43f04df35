/**
 * codex's plan tool, `update_plan {explanation?, plan: [{step, status}]}`, status a string "One of:
 * pending, in_progress, completed" (codex-rs/core/src/tools/handlers/plan.rs at 001cb8e2), over the
 * one plan tool (tools/plan.ts).
 */
import * as v from "valibot";
import { text } from "../../../tools/args.ts";
import { planTool, type PlanStatus } from "../../../tools/plan.ts";

const STATUSES = ["pending", "in_progress", "completed"] as const;

const schema = v.strictObject({
  explanation: v.optional(v.string()),
  plan: v.pipe(
    v.array(v.strictObject({ step: v.string(), status: text("One of: pending, in_progress, completed") })),
    v.description("The list of steps"),
  ),
});

export const updatePlanTool = planTool<v.InferOutput<typeof schema>>({
  name: "update_plan",
  description:
    "Records the plan for the current task as short steps, each pending, in_progress or completed, with an optional " +
    "explanation of what changed. Keep at most one step in_progress, update the plan as steps finish, and skip it for simple tasks.",
  schema,
  toPlan: ({ explanation, plan }) => {
    const bad = plan.find((p) => !(STATUSES as readonly string[]).includes(p.status));
    if (bad) return `Step '${bad.step}' has status '${bad.status}'; a status is one of: ${STATUSES.join(", ")}.`;
    return {
      items: plan.map((p) => ({ text: p.step, status: p.status as PlanStatus })),
      ...(explanation ? { explanation } : {}),
    };
  },
});
