/**
 * Claude Code's plan tool, `TodoWrite {todos: [{content, status: pending|in_progress|completed,
 * activeForm}]}` (the published tool schema of the Claude Code SDK, version 2.1: all three fields
 * required, strings non-empty), over the one plan tool (tools/plan.ts).
 */
import * as v from "valibot";
import { planTool } from "../../../tools/plan.ts";

const nonEmpty = (description: string) =>
  v.pipe(v.string(), v.minLength(1, "must not be empty"), v.description(description));

const schema = v.strictObject({
  todos: v.pipe(
    v.array(
      v.strictObject({
        content: nonEmpty('What to do, in the imperative ("Run the tests").'),
        status: v.picklist(["pending", "in_progress", "completed"]),
        activeForm: nonEmpty(
          'The same task in the present continuous ("Running the tests"), shown while it is in progress.',
        ),
      }),
    ),
    v.description("The whole updated todo list; it replaces the previous one."),
  ),
});

export const todoWriteTool = planTool<v.InferOutput<typeof schema>>({
  name: "TodoWrite",
  description:
    "Keeps a structured todo list for the current task, visible to the user. Use it for work with several steps: " +
    "write the list when you start, mark an item in_progress just before working on it (one at a time) and completed " +
    "as soon as it is done, add items you discover, and drop ones that no longer apply. Skip it for trivial tasks. " +
    "Each call sends the whole list.",
  schema,
  toPlan: ({ todos }) => ({
    items: todos.map((t) => ({ text: t.content, status: t.status, active_form: t.activeForm })),
  }),
});
