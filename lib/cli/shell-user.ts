/**
 * The interactive shell as the person the tools ask: a question shows its options as a numbered
 * menu and the typed number (several, comma-separated, where more than one may be chosen) picks the
 * choice — anything else typed is the answer itself; entering and leaving plan mode wait for a
 * yes or no (with what to change) and switch the shell's plan mode.
 */
import type { Session } from "../agent/index.ts";
import type { PlanModeAnswer, UserAnswers, UserChannel, UserQuestion } from "../../tools/user-channel.ts";
import type { AnswerReader } from "./approve-prompt.ts";
import type { PlanMode } from "./plan-mode.ts";
import type { Style } from "./render.ts";

/** The answer a typed line gives a question: the labels of the numbers typed, or the text itself. */
export function chosenAnswer(line: string, question: UserQuestion): string {
  const text = line.trim();
  const numbers = text.split(/[\s,]+/).filter((n) => n !== "");
  const picks = numbers.map((n) => (/^\d+$/.test(n) ? question.options[Number(n) - 1] : undefined));
  const valid = picks.length > 0 && picks.every((p) => p !== undefined) && (question.multiSelect || picks.length === 1);
  return valid ? [...new Set(picks.map((p) => p!.label))].join(", ") : text;
}

/** A typed yes/no: Enter or y consents; n, or anything else, declines with what was typed as the reason. */
function consent(line: string | null): PlanModeAnswer {
  const text = (line ?? "n").trim();
  if (text === "" || /^y(es)?$/i.test(text)) return { consent: true };
  const reason = text.replace(/^no?\b[\s,:-]*/i, "").trim();
  return reason ? { consent: false, reason } : { consent: false };
}

export class ShellUser implements UserChannel {
  constructor(
    private readonly reader: AnswerReader,
    private readonly style: Style,
    private readonly planMode: PlanMode,
    private readonly session: () => Session,
  ) {}

  inPlanMode(): boolean {
    return this.planMode.active;
  }

  async ask(questions: readonly UserQuestion[]): Promise<UserAnswers | undefined> {
    const s = this.style;
    const answers: UserAnswers = {};
    for (const question of questions) {
      const menu = question.options.map((o, i) => `  ${s.bold(`${i + 1}.`)} ${o.label} ${s.dim(`— ${o.description}`)}`);
      this.reader.show(`${s.yellow("?")} ${s.bold(question.header)} ${question.question}\n${menu.join("\n")}\n`);
      const how = question.multiSelect ? "numbers, e.g. 1,3" : "a number";
      const line = await this.reader.readLine(`${s.yellow("choose")} ${s.dim(`${how}, or type your own answer`)} › `);
      if (line === null) return undefined;
      answers[question.question] = chosenAnswer(line, question);
      this.reader.settle(`${s.green("✓")} ${s.dim(`${question.header}: ${answers[question.question]}`)}\n`);
    }
    return answers;
  }

  async enterPlanMode(reason: string | undefined): Promise<PlanModeAnswer> {
    const s = this.style;
    this.reader.show(
      `${s.yellow("?")} ${s.bold("switch to plan mode?")} ${s.dim(reason ?? "the agent wants to plan before changing anything")}\n`,
    );
    const answer = consent(await this.reader.readLine(`${s.yellow("plan?")} ${s.dim("y yes · n [reason] no")} › `));
    if (answer.consent) this.planMode.enter(this.session());
    this.reader.settle(`${answer.consent ? s.green("✓ plan mode") : s.red("✗ plan mode declined")}\n`);
    return answer;
  }

  async exitPlanMode(plan: string | undefined): Promise<PlanModeAnswer> {
    const s = this.style;
    this.reader.show(`${s.yellow("?")} ${s.bold("carry out this plan?")}\n${plan ?? s.dim("(the plan above)")}\n`);
    const answer = consent(
      await this.reader.readLine(`${s.yellow("approve?")} ${s.dim("y yes · n [what to change]")} › `),
    );
    if (answer.consent) this.planMode.accept(this.session());
    this.reader.settle(`${answer.consent ? s.green("✓ plan approved") : s.red("✗ plan not approved")}\n`);
    return answer;
  }
}
