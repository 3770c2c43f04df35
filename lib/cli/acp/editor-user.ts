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
      const answer = question.multiSelect
        ? await this.askEach(question, signal, callId)
        : await this.askOne(question, signal, callId);
      if (answer === undefined) return undefined;
      answers[question.question] = answer;
    }
    return answers;
  }

  async enterPlanMode(reason: string | undefined, signal?: AbortSignal, callId?: string): Promise<PlanModeAnswer> {
    const outcome = await this.request(
      callId,
      "Switch to plan mode?",
      reason ??
        "The agent wants to look around and plan before changing anything (only the reading tools until you approve a plan).",
      ENTER_OPTIONS,
      signal,
    );
    if ("unanswered" in outcome) return { consent: false, reason: outcome.unanswered };
    if (outcome.chosen !== "plan") return { consent: false };
    this.planMode.enter(this.editor.gong);
    return { consent: true };
  }

  async exitPlanMode(plan: string | undefined, signal?: AbortSignal, callId?: string): Promise<PlanModeAnswer> {
    const outcome = await this.request(
      callId,
      "Carry out the plan?",
      plan ?? "The plan is in the agent's last message.",
      EXIT_OPTIONS,
      signal,
    );
    if ("unanswered" in outcome) return { consent: false, reason: outcome.unanswered };
    const mode = outcome.chosen;
    if (mode !== "edits" && mode !== "ask") return { consent: false };
    this.planMode.accept(this.editor.gong);
    await this.editor.switchMode(mode satisfies ApprovalMode);
    return { consent: true };
  }

  /** One request with the options as choices: the chosen label, "none of these", or undefined when cancelled. */
  private async askOne(question: UserQuestion, signal?: AbortSignal, callId?: string): Promise<string | undefined> {
    const options = question.options.map(
      (o, i): acp.PermissionOption => ({ optionId: String(i), name: o.label, kind: "allow_once" }),
    );
    const outcome = await this.request(
      callId,
      questionTitle(question),
      described(question),
      [...options, NONE],
      signal,
    );
    if ("unanswered" in outcome) return undefined;
    return question.options[Number(outcome.chosen)]?.label ?? NONE_OF_THESE;
  }

  /** A request per option, choose or skip: the chosen labels joined with ", ", or undefined when cancelled. */
  private async askEach(question: UserQuestion, signal?: AbortSignal, callId?: string): Promise<string | undefined> {
    const chosen: string[] = [];
    for (const [i, option] of question.options.entries()) {
      const outcome = await this.request(
        callId,
        `${questionTitle(question)} (${i + 1}/${question.options.length}, several may be chosen): ${option.label}?`,
        option.description,
        [
          { optionId: "choose", name: `Choose ${option.label}`, kind: "allow_once" },
          { optionId: "skip", name: "Skip", kind: "reject_once" },
        ],
        signal,
      );
      if ("unanswered" in outcome) return undefined;
      if (outcome.chosen === "choose") chosen.push(option.label);
    }
    return chosen.length > 0 ? chosen.join(", ") : NONE_OF_THESE;
  }

  /** Asks the editor on the asking call. */
  private async request(
    callId: string | undefined,
    title: string,
    text: string,
    options: acp.PermissionOption[],
    signal?: AbortSignal,
  ): Promise<Outcome> {
    const outcome = await this.editor.requestPermission(
      {
        // Shown on the asking call; a call without an id (a script calling the tool) gets one of its own.
        toolCallId: callId ?? `ask-${crypto.randomUUID()}`,
        title,
        kind: options === ENTER_OPTIONS || options === EXIT_OPTIONS ? "switch_mode" : "other",
        status: "pending",
        content: [{ type: "content", content: { type: "text", text } }],
      },
      options,
      signal,
    );
    if (outcome === null) return { unanswered: "the editor did not answer the request" };
    return outcome.outcome === "selected" ? { chosen: outcome.optionId } : { unanswered: "the prompt was cancelled" };
  }
}

const questionTitle = (q: UserQuestion) => `${q.header}: ${q.question}`;

/** The options with what each means, for an editor that shows only the options' names. */
const described = (q: UserQuestion) => q.options.map((o) => `- ${o.label}: ${o.description}`).join("\n");
