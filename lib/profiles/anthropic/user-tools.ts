/**
 * Claude Code's tools that turn to the user, in its shapes (the tool definitions Claude Code
 * 2.1.110 sends): `AskUserQuestion {questions: 1–4 × {question, header, options: 2–4 × {label,
 * description, preview?}, multiSelect}, answers?, annotations?, metadata?}`, `EnterPlanMode {}` and
 * `ExitPlanMode {allowedPrompts?}` (open to other fields; earlier releases sent `{plan}`, 1.0.60–2.0.30).
 */
import * as v from "valibot";
import { askUser } from "../../../tools/ask-user.ts";
import { flag, text } from "../../../tools/args.ts";
import { enterPlanMode, exitPlanMode } from "../../../tools/plan-mode.ts";
import type { Tool } from "../../../tools/types.ts";

const option = v.strictObject({
  label: text("The choice as the user sees it, in a few words."),
  description: text("What choosing it means or leads to."),
  preview: v.optional(text("A short preview of the choice (code, a layout) shown beside it.")),
});

const question = v.strictObject({
  question: text('The whole question, ending with a question mark, e.g. "Which test runner should we use?"'),
  header: text('A very short label for the question (at most 12 characters), e.g. "Runner".'),
  options: v.pipe(
    v.array(option),
    v.minLength(2, "needs 2 to 4 options to choose from"),
    v.maxLength(4, "takes at most 4 options (ask fewer, or split the question)"),
    v.description("2 to 4 distinct choices; the user can always type something else instead."),
  ),
  multiSelect: flag("True when several options may be chosen together."),
});

const askSchema = v.strictObject({
  questions: v.pipe(
    v.array(question),
    v.minLength(1, "needs at least one question"),
    v.maxLength(4, "takes at most 4 questions at once"),
    v.description("1 to 4 questions to ask the user."),
  ),
  answers: v.optional(
    v.pipe(v.record(v.string(), v.string()), v.description("Filled in by the host with the answers.")),
  ),
  annotations: v.optional(
    v.pipe(
      v.record(v.string(), v.strictObject({ preview: v.optional(v.string()), notes: v.optional(v.string()) })),
      v.description("Notes about the answers, by question."),
    ),
  ),
  metadata: v.optional(v.strictObject({ source: v.optional(text("Where the question comes from.")) })),
});

export const AskUserQuestionTool: Tool<v.InferOutput<typeof askSchema>> = {
  name: "AskUserQuestion",
  description:
    "Asks the user 1 to 4 multiple-choice questions when a decision is theirs to make (a library, an approach, what to keep) and waits for the answers. " +
    "Give each question 2 to 4 options; the user may also type an answer of their own. Where no one can answer, the result says so: then decide yourself.",
  schema: askSchema,
  truncation: "head",
  kind: "other",
  // Asking the user, or leaving or entering plan mode, touches nothing the gate guards.
  touches: () => [],
  summarizeCall: (a) => (Array.isArray(a.questions) ? a.questions.map((q) => q?.header ?? "").join(", ") : ""),
  run: (args, ctx) => askUser(args.questions, ctx),
};

export const EnterPlanModeTool: Tool<Record<string, never>> = {
  name: "EnterPlanMode",
  description:
    "Asks the user to switch to plan mode before a large or unclear change: only the reading tools are available until the user approves a plan given with ExitPlanMode.",
  schema: v.strictObject({}),
  truncation: "head",
  kind: "other",
  // Asking the user, or leaving or entering plan mode, touches nothing the gate guards.
  touches: () => [],
  run: (_args, ctx) => enterPlanMode(undefined, "ExitPlanMode", ctx),
};

const exitSchema = v.looseObject({
  allowedPrompts: v.optional(
    v.pipe(
      v.array(
        v.strictObject({
          tool: v.picklist(["Bash"]),
          prompt: text('What kind of command the plan will need, e.g. "run tests".'),
        }),
      ),
      v.description("Kinds of commands carrying out the plan will need."),
    ),
  ),
});

export const ExitPlanModeTool: Tool<v.InferOutput<typeof exitSchema>> = {
  name: "ExitPlanMode",
  description:
    "In plan mode, presents the finished plan to the user and asks to leave plan mode and carry it out. Outside plan mode it does nothing.",
  schema: exitSchema,
  truncation: "head",
  kind: "other",
  // Asking the user, or leaving or entering plan mode, touches nothing the gate guards.
  touches: () => [],
  run: (args, ctx) => exitPlanMode(typeof args.plan === "string" ? args.plan : undefined, "EnterPlanMode", ctx),
};
