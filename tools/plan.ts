/**
 * The plan (todo list) tool in the three dialects the reference agents trained their models on,
 * over one implementation: each dialect's arguments become the same `Plan`, which the tool returns
 * in `data.plan`. The tool keeps no state and knows nothing of sessions: the agent recognises a
 * result of kind "plan", stores the plan in the session and emits it as an event.
 *
 * Names and parameter shapes, as checked against the references:
 * - Claude Code 2.1 `TodoWrite` {todos: [{content, status: pending|in_progress|completed, activeForm}]}
 *   (the published tool schema of the Claude Code SDK: all three fields required, strings non-empty);
 * - codex `update_plan` {explanation?, plan: [{step, status}]}, status a string "One of: pending,
 *   in_progress, completed" (codex-rs/core/src/tools/handlers/plan.rs at 001cb8e2);
 * - gemini-cli `write_todos` {todos: [{description, status: pending|in_progress|completed|cancelled|blocked}]},
 *   non-empty descriptions, at most one in_progress (packages/core/src/tools/write-todos.ts and the
 *   gemini-3 declaration, v0.56.0-nightly.20260822).
 */
import * as v from "valibot";
import type { Reply, ToolResponse } from "../lib/envelope.ts";
import { text } from "./args.ts";
import { count, defaultResultSummary } from "./metadata.ts";
import type { Tool } from "./types.ts";

export const PLAN_STATUSES = ["pending", "in_progress", "completed", "cancelled", "blocked"] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

export interface PlanItem {
  text: string;
  status: PlanStatus;
  /** Claude Code's present-continuous form ("Running the tests"), shown while the item is in progress. */
  active_form?: string;
}

export interface Plan {
  items: PlanItem[];
  /** Why the plan changed (codex's `explanation`). */
  explanation?: string;
}

/** A plan as a tool result carries it in `data.plan`, or undefined when `value` is not one. */
export function planOf(value: unknown): Plan | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { items, explanation } = value as Record<string, unknown>;
  if (!Array.isArray(items)) return undefined;
  const clean: PlanItem[] = [];
  for (const item of items) {
    if (typeof item !== "object" || item === null) return undefined;
    const { text, status, active_form } = item as Record<string, unknown>;
    if (typeof text !== "string" || !(PLAN_STATUSES as readonly unknown[]).includes(status)) return undefined;
    clean.push({ text, status: status as PlanStatus, ...(typeof active_form === "string" ? { active_form } : {}) });
  }
  return { items: clean, ...(typeof explanation === "string" && explanation !== "" ? { explanation } : {}) };
}

/** "2/5 done". */
export function planProgress(plan: Plan): string {
  return `${plan.items.filter((i) => i.status === "completed").length}/${plan.items.length} done`;
}

interface Dialect<Args> {
  name: string;
  description: string;
  schema: v.GenericSchema<unknown, Args>;
  /** The dialect's arguments as a plan, or a sentence saying what is wrong with them. */
  toPlan(args: Args): Plan | string;
}

/** One plan tool: the dialect decides the shape, everything else is shared. */
function planTool<Args>(dialect: Dialect<Args>): Tool<Args> {
  return {
    name: dialect.name,
    description: dialect.description,
    schema: dialect.schema,
    truncation: "head",
    kind: "plan",
    summarizeCall: (args) => {
      const list = Object.values(args ?? {}).find(Array.isArray);
      return list ? count(list.length, "item") : "";
    },
    summarizeResult: (r) => {
      const plan = r.status === "error" ? undefined : planOf(r.data.plan);
      return plan ? planProgress(plan) : defaultResultSummary(r);
    },
    touches: (args) => [{ as: "TodoWrite", input: args as Record<string, unknown> }],
    async run(args, { reply }) {
      const plan = dialect.toPlan(args);
      if (typeof plan === "string") return reply.fail("INVALID_PARAM", plan);
      return recorded(plan, reply);
    },
  };
}

function recorded(plan: Plan, reply: Reply): ToolResponse {
  const counts = PLAN_STATUSES.map((s) => [s, plan.items.filter((i) => i.status === s).length] as const).filter(
    ([, n]) => n > 0,
  );
  const breakdown = counts.map(([s, n]) => `${n} ${s.replace("_", " ")}`).join(", ");
  const summary =
    plan.items.length === 0 ? "Plan cleared." : `Plan updated: ${count(plan.items.length, "item")} (${breakdown}).`;
  return reply.success({ plan }, summary, { stats: { items: plan.items.length } });
}

const nonEmpty = (description: string) =>
  v.pipe(v.string(), v.minLength(1, "must not be empty"), v.description(description));

const todoWriteSchema = v.strictObject({
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

export const todoWriteTool = planTool<v.InferOutput<typeof todoWriteSchema>>({
  name: "TodoWrite",
  description:
    "Keeps a structured todo list for the current task, visible to the user. Use it for work with several steps: " +
    "write the list when you start, mark an item in_progress just before working on it (one at a time) and completed " +
    "as soon as it is done, add items you discover, and drop ones that no longer apply. Skip it for trivial tasks. " +
    "Each call sends the whole list.",
  schema: todoWriteSchema,
  toPlan: ({ todos }) => ({
    items: todos.map((t) => ({ text: t.content, status: t.status, active_form: t.activeForm })),
  }),
});

const CODEX_STATUSES = ["pending", "in_progress", "completed"] as const;

const updatePlanSchema = v.strictObject({
  explanation: v.optional(v.string()),
  plan: v.pipe(
    v.array(v.strictObject({ step: v.string(), status: text("One of: pending, in_progress, completed") })),
    v.description("The list of steps"),
  ),
});

export const updatePlanTool = planTool<v.InferOutput<typeof updatePlanSchema>>({
  name: "update_plan",
  description:
    "Records the plan for the current task as short steps, each pending, in_progress or completed, with an optional " +
    "explanation of what changed. Keep at most one step in_progress, update the plan as steps finish, and skip it for simple tasks.",
  schema: updatePlanSchema,
  toPlan: ({ explanation, plan }) => {
    const bad = plan.find((p) => !(CODEX_STATUSES as readonly string[]).includes(p.status));
    if (bad) return `Step '${bad.step}' has status '${bad.status}'; a status is one of: ${CODEX_STATUSES.join(", ")}.`;
    return {
      items: plan.map((p) => ({ text: p.step, status: p.status as PlanStatus })),
      ...(explanation ? { explanation } : {}),
    };
  },
});

const writeTodosSchema = v.strictObject({
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

export const writeTodosTool = planTool<v.InferOutput<typeof writeTodosSchema>>({
  name: "write_todos",
  description:
    "Writes the todo list for a task with several steps so you and the user can follow progress. Statuses: pending, " +
    "in_progress (only one at a time, set just before starting it), completed, cancelled (no longer needed), blocked. " +
    "Send the complete list every time and update it as soon as a task starts, finishes or is dropped. Not for simple tasks.",
  schema: writeTodosSchema,
  toPlan: ({ todos }) => {
    if (todos.some((t) => t.description.trim() === "")) return "Each todo needs a non-empty description.";
    if (todos.filter((t) => t.status === "in_progress").length > 1)
      return 'Only one task can be "in_progress" at a time; mark the others pending.';
    return { items: todos.map((t) => ({ text: t.description, status: t.status })) };
  },
});

/** The plan tool of every dialect; registered beside the core tools, active only where a profile or the user asks for them. */
export const planTools: readonly Tool[] = [todoWriteTool, updatePlanTool, writeTodosTool];
