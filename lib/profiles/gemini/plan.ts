/**
 * gemini-cli's plan tool, `write_todos {todos: [{description, status:
 * pending|in_progress|completed|cancelled|blocked}]}`, non-empty descriptions, at most one
 * in_progress (packages/core/src/tools/write-todos.ts and the gemini-3 declaration,
 * v0.56.0-nightly.20260822), over the one plan tool (tools/plan.ts).
 */
import * as v from "valibot";
import { text } from "../../../tools/args.ts";
import { PLAN_STATUSES, planTool } from "../../../tools/plan.ts";

const schema = v.strictObject({
  todos: v.pipe(
    v.array(
      v.pipe(
        v.strictObject({
          description: text("What the task is."),
          status: v.pipe(v.picklist(PLAN_STATUSES), v.description("Where the task stands.")),
        }),
        v.description("One todo item."),
      ),
    ),
    v.description("The complete todo list; it replaces the existing one."),
  ),
});

export const writeTodosTool = planTool<v.InferOutput<typeof schema>>({
  name: "write_todos",
  description:
    "Writes the todo list for a task with several steps so you and the user can follow progress. Statuses: pending, " +
    "in_progress (only one at a time, set just before starting it), completed, cancelled (no longer needed), blocked. " +
    "Send the complete list every time and update it as soon as a task starts, finishes or is dropped. Not for simple tasks.",
  schema,
  toPlan: ({ todos }) => {
    if (todos.some((t) => t.description.trim() === "")) return "Each todo needs a non-empty description.";
    if (todos.filter((t) => t.status === "in_progress").length > 1)
      return 'Only one task can be "in_progress" at a time; mark the others pending.';
    return { items: todos.map((t) => ({ text: t.description, status: t.status })) };
  },
});
