/**
 * Plan mode (/plan, or the model's EnterPlanMode with the user's consent): the model is offered only
 * the reading tools — the readonly preset, the plan tool of the profile in use and the tools that ask
 * the user or leave plan mode — so it looks around and proposes a plan without changing
 * anything. Accepting the plan (/plan again) gives back the tools chosen before, unless the user
 * chose others meanwhile (/tools).
 */
import type { Session } from "../agent/index.ts";
import { PLAN_MODE_TOOL_NAMES } from "../profiles/index.ts";
import type { ToolPreset } from "../../tools/registry.ts";

type Selection = ToolPreset | readonly string[];

export class PlanMode {
  /** The selection before plan mode, and the one plan mode set (null: not in plan mode). */
  private state: { before: Selection; planning: Selection; messages: number } | null = null;

  get active(): boolean {
    return this.state !== null;
  }

  enter(session: Session): void {
    if (this.state) return;
    // The profile's plan tool (TodoWrite, update_plan, write_todos) and, where it has them, the tools that ask the user and leave plan mode.
    const planning = ["readonly", ...session.tools.filter((name) => PLAN_MODE_TOOL_NAMES.has(name))];
    const before = session.toolSelection;
    session.setTools(planning);
    this.state = { before, planning, messages: session.messages.length };
  }

  /** Leaves plan mode; true when the model answered in it (there is a plan to accept). */
  accept(session: Session): boolean {
    const state = this.state;
    this.state = null;
    const answered = state !== null && session.messages.slice(state.messages).some((m) => m.role === "assistant");
    // Compared by value: a session opened meanwhile (/new, /resume) carries a copy of the selection.
    if (state && JSON.stringify(session.toolSelection) === JSON.stringify(state.planning))
      session.setTools(state.before);
    return answered;
  }
}
