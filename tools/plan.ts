/**
 * The plan (todo list) capability: each profile's plan tool (lib/profiles/<profile>/plan.ts) gives
 * its reference agent's name and argument shape, and its arguments become the same `Plan`, which
 * the tool returns in `data.plan`. The tool keeps no state and knows nothing of sessions: the agent
 * recognises a result of kind "plan", stores the plan in the session and emits it as an event.
 */
import type * as v from "valibot";
import type { Reply, ToolResponse } from "../lib/envelope.ts";
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

/** A profile's plan tool: its name, wording and argument shape, and how its arguments become a plan. */
export interface PlanWording<Args> {
  name: string;
  description: string;
  schema: v.GenericSchema<unknown, Args>;
  /** The arguments as a plan, or a sentence saying what is wrong with them. */
  toPlan(args: Args): Plan | string;
}

/** One plan tool: the profile decides the shape, everything else is shared. */
export function planTool<Args>(wording: PlanWording<Args>): Tool<Args> {
  return {
    name: wording.name,
    description: wording.description,
    schema: wording.schema,
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
      const plan = wording.toPlan(args);
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
