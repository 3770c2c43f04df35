/**
 * The interactive shell as the person the tools ask: a question shows its options as a menu, with a
 * last row for an answer of one's own (several numbers, comma-separated, where more than one may be
 * chosen); entering and leaving plan mode are yes/no menus whose "no" says why, and switch the
 * shell's plan mode.
 */
import type { Session } from "../agent/index.ts";
import type { PlanModeAnswer, UserAnswers, UserChannel, UserQuestion } from "../../tools/user-channel.ts";
import type { AnswerReader } from "./approve-prompt.ts";
import type { MenuChoice, MenuItem } from "./menu.ts";
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

/** A yes/no menu's choice: yes consents; no (or an interrupted question) declines, with what was typed as the reason. */
function consent(choice: MenuChoice<boolean> | null): PlanModeAnswer {
  if (choice?.value) return { consent: true };
  const reason = choice?.text?.trim();
  return reason ? { consent: false, reason } : { consent: false };
}

/** The items of a yes/no question whose "no" says why on its row. */
function yesNo(why: string): MenuItem<boolean>[] {
  return [
    { value: true, label: "Yes", key: "y" },
    { value: false, label: "No", key: "n", input: why },
  ];
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
      // The options, then a row for an answer of one's own (several numbers, where more than one may be chosen).
      const own = question.multiSelect ? "numbers, e.g. 1,3, or your own answer" : "your own answer";
      const choice = await this.reader.choose<number>({
        title: [`${s.yellow("?")} ${s.bold(question.header)} ${question.question}`],
        items: [
          ...question.options.map((o, i) => ({ value: i, label: o.label, detail: o.description })),
          { value: -1, label: question.multiSelect ? "Several, or something else" : "Something else", input: own },
        ],
        escape: "interrupt",
      });
      if (choice === null) return undefined;
      answers[question.question] =
        choice.value >= 0 ? question.options[choice.value].label : chosenAnswer(choice.text ?? "", question);
      this.reader.settle(`${s.green("✓")} ${s.dim(`${question.header}: ${answers[question.question]}`)}\n`);
    }
    return answers;
  }

  async enterPlanMode(reason: string | undefined): Promise<PlanModeAnswer> {
    const s = this.style;
    const answer = consent(
      await this.reader.choose({
        title: [
          `${s.yellow("?")} ${s.bold("switch to plan mode?")} ${s.dim(reason ?? "the agent wants to plan before changing anything")}`,
        ],
        items: yesNo("why? (optional; the model reads it)"),
        escape: "decline",
      }),
    );
    if (answer.consent) this.planMode.enter(this.session());
    this.reader.settle(`${answer.consent ? s.green("✓ plan mode") : s.red("✗ plan mode declined")}\n`);
    return answer;
  }

  async exitPlanMode(plan: string | undefined): Promise<PlanModeAnswer> {
    const s = this.style;
    const answer = consent(
      await this.reader.choose({
        title: [
          `${s.yellow("?")} ${s.bold("carry out this plan?")}`,
          ...(plan ?? s.dim("(the plan above)")).split("\n"),
        ],
        items: yesNo("what to change (the model reads it)"),
        escape: "decline",
      }),
    );
    if (answer.consent) this.planMode.accept(this.session());
    this.reader.settle(`${answer.consent ? s.green("✓ plan approved") : s.red("✗ plan not approved")}\n`);
    return answer;
  }
}
