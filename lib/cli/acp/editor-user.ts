/**
 * The editor as the person the tools ask (AskUserQuestion, EnterPlanMode, ExitPlanMode), through
 * ACP's only question to the client, `session/request_permission`, shown on the asking call:
 * - a question's options become `allow_once` options (the optionId is the option's index, mapped
 *   back to its label), plus a `reject_once` "None of these"; a multiSelect question asks once per
 *   option (choose or skip), since a permission request takes one choice;
 * - EnterPlanMode is a yes/no request; ExitPlanMode offers the plan with the choices Zed's
 *   claude-code-acp adapter gives (an `allow_always` that lets file changes pass from then on, an
 *   `allow_once` that confirms each change, a `reject_once` that keeps planning); the yes switches
 *   the session's approval mode to match.
 * A request the editor answers `cancelled`, or that the prompt's cancel ends, is an interrupted
 * question or a declined switch. The editor has no text answer, so a "no" carries no reason.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { PlanModeAnswer, UserAnswers, UserChannel, UserQuestion } from "../../../tools/user-channel.ts";
import type { ApprovalMode } from "../../gate/modes.ts";
import { PlanMode } from "../plan-mode.ts";
import type { EditorSession } from "./editor-session.ts";

/** What a single-choice question answers when the user picks none of its options. */
export const NONE_OF_THESE = "none of these";

const NONE: acp.PermissionOption = { optionId: "none", name: "None of these", kind: "reject_once" };

/** EnterPlanMode's choices. */
const ENTER_OPTIONS: acp.PermissionOption[] = [
  { optionId: "plan", name: "Yes, plan first", kind: "allow_once" },
  { optionId: "reject", name: "No, go ahead without a plan", kind: "reject_once" },
];

/** ExitPlanMode's choices, in claude-code-acp's kinds; an allow's optionId is the approval mode it switches to. */
const EXIT_OPTIONS: acp.PermissionOption[] = [
  { optionId: "edits", name: "Yes, and let file changes pass", kind: "allow_always" },
  { optionId: "ask", name: "Yes, and confirm each change", kind: "allow_once" },
  { optionId: "plan", name: "No, keep planning", kind: "reject_once" },
];

/** The option the user chose, or why there is no answer (the request was cancelled, or the editor failed it). */
type Outcome = { chosen: string } | { unanswered: string };

/** Where a request is shown (the asking call) and what ends it early (the call's signal). */
interface Asking {
  callId?: string;
  signal?: AbortSignal;
}

/** What the request shows: a title, the text under it, and the kind of call the editor draws. */
interface Shown {
  title: string;
  text: string;
  kind: acp.ToolKind;
}

export class EditorUser implements UserChannel {
  private readonly planMode = new PlanMode();

  constructor(private readonly editor: EditorSession) {}

  inPlanMode(): boolean {
    return this.planMode.active;
  }

  async ask(
    questions: readonly UserQuestion[],
    signal?: AbortSignal,
    callId?: string,
  ): Promise<UserAnswers | undefined> {
    const answers: UserAnswers = {};
    for (const question of questions) {
      const asking = { callId, signal };
      const answer = question.multiSelect ? await this.askEach(question, asking) : await this.askOne(question, asking);
      if (answer === undefined) return undefined;
      answers[question.question] = answer;
    }
    return answers;
  }

  async enterPlanMode(reason: string | undefined, signal?: AbortSignal, callId?: string): Promise<PlanModeAnswer> {
    const text =
      reason ??
      "The agent wants to look around and plan before changing anything (only the reading tools until you approve a plan).";
    const outcome = await this.request(
      { callId, signal },
      { title: "Switch to plan mode?", text, kind: "switch_mode" },
      ENTER_OPTIONS,
    );
    if ("unanswered" in outcome) return { consent: false, reason: outcome.unanswered };
    if (outcome.chosen !== "plan") return { consent: false };
    this.planMode.enter(this.editor.gong);
    return { consent: true };
  }

  async exitPlanMode(plan: string | undefined, signal?: AbortSignal, callId?: string): Promise<PlanModeAnswer> {
    const text = plan ?? "The plan is in the agent's last message.";
    const outcome = await this.request(
      { callId, signal },
      { title: "Carry out the plan?", text, kind: "switch_mode" },
      EXIT_OPTIONS,
    );
    if ("unanswered" in outcome) return { consent: false, reason: outcome.unanswered };
    const mode = outcome.chosen;
    if (mode !== "edits" && mode !== "ask") return { consent: false };
    this.planMode.accept(this.editor.gong);
    await this.editor.switchMode(mode satisfies ApprovalMode);
    return { consent: true };
  }

  /** One request with the options as choices: the chosen label, "none of these", or undefined when unanswered. */
  private async askOne(question: UserQuestion, asking: Asking): Promise<string | undefined> {
    const options = question.options.map(
      (o, i): acp.PermissionOption => ({ optionId: String(i), name: o.label, kind: "allow_once" }),
    );
    // The options' descriptions go in the text, for an editor that shows only their names.
    const text = question.options.map((o) => `- ${o.label}: ${o.description}`).join("\n");
    const outcome = await this.request(asking, { title: titleOf(question), text, kind: "other" }, [...options, NONE]);
    if ("unanswered" in outcome) return undefined;
    return question.options[Number(outcome.chosen)]?.label ?? NONE_OF_THESE;
  }

  /** A request per option, choose or skip: the chosen labels joined with ", ", or undefined when unanswered. */
  private async askEach(question: UserQuestion, asking: Asking): Promise<string | undefined> {
    const chosen: string[] = [];
    for (const [i, option] of question.options.entries()) {
      const title = `${titleOf(question)} (${i + 1}/${question.options.length}, several may be chosen): ${option.label}?`;
      const outcome = await this.request(asking, { title, text: option.description, kind: "other" }, [
        { optionId: "choose", name: `Choose ${option.label}`, kind: "allow_once" },
        { optionId: "skip", name: "Skip", kind: "reject_once" },
      ]);
      if ("unanswered" in outcome) return undefined;
      if (outcome.chosen === "choose") chosen.push(option.label);
    }
    return chosen.length > 0 ? chosen.join(", ") : NONE_OF_THESE;
  }

  private async request(asking: Asking, shown: Shown, options: acp.PermissionOption[]): Promise<Outcome> {
    const outcome = await this.editor.requestPermission(
      {
        // Shown on the asking call; a call without an id (a script calling the tool) gets one of its own.
        toolCallId: asking.callId ?? `ask-${crypto.randomUUID()}`,
        title: shown.title,
        kind: shown.kind,
        status: "pending",
        content: [{ type: "content", content: { type: "text", text: shown.text } }],
      },
      options,
      asking.signal,
    );
    if (outcome === null) return { unanswered: "the editor did not answer the request" };
    return outcome.outcome === "selected" ? { chosen: outcome.optionId } : { unanswered: "the prompt was cancelled" };
  }
}

const titleOf = (q: UserQuestion) => `${q.header}: ${q.question}`;
