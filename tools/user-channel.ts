/**
 * The person a tool may turn to mid-task: questions with options to choose from, and consent to
 * enter or leave plan mode. A host that has someone to ask implements it — the interactive shell
 * shows a menu, the ACP server asks the editor — and hands it to the session (`createSession({
 * user })`); print mode, RPC and scripts have none, and the tools say so to the model, which goes on.
 */

/** One choice of a question. */
export interface QuestionOption {
  label: string;
  description: string;
}

/** One question, as the model asks it (Claude Code's AskUserQuestion item). */
export interface UserQuestion {
  question: string;
  /** A very short label (a chip), e.g. "Library". */
  header: string;
  options: readonly QuestionOption[];
  /** More than one option may be chosen. */
  multiSelect: boolean;
}

/** The user's answers, by question text: the chosen labels (joined with ", " when several), or what they typed instead. */
export type UserAnswers = Record<string, string>;

/** What the user said to a request to enter or leave plan mode. */
export type PlanModeAnswer = { consent: true } | { consent: false; reason?: string };

/**
 * Each request takes the call's abort signal and the id of the model's call that asks (an editor
 * shows the request on that call).
 */
export interface UserChannel {
  /** Asks the questions; undefined when the user did not answer (the input was interrupted). */
  ask(questions: readonly UserQuestion[], signal?: AbortSignal, callId?: string): Promise<UserAnswers | undefined>;
  /** Whether the session is in plan mode now. */
  inPlanMode(): boolean;
  /** Asks to enter plan mode (read-only tools until a plan is accepted); on consent the mode is on. */
  enterPlanMode(reason: string | undefined, signal?: AbortSignal, callId?: string): Promise<PlanModeAnswer>;
  /** Shows the plan and asks to leave plan mode and carry it out; on consent the chosen tools come back. */
  exitPlanMode(plan: string | undefined, signal?: AbortSignal, callId?: string): Promise<PlanModeAnswer>;
}
