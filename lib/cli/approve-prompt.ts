/**
 * The interactive shell's side of approvals (lib/gate holds the gate): a compact question — what
 * the call is (the command, or the change a file edit proposes), paths shown from the project
 * ("src/a.ts", "~/.gong/settings.json") — and a menu of answers: y yes, a always in this project,
 * u always for you, n no (with the reason the model sees, typed on its row). "Always" answers are
 * written as allow rules (`Bash(npm test *)`, one per part of a compound command) to the project's
 * `.gong/settings.local.json` or the user's `~/.gong/settings.json`, as the answer chose.
 */
import { homedir } from "node:os";
import { isAbsolute, relative } from "node:path";
import { isInside } from "../paths.ts";
import { addAllowRules } from "../setup/rule-file.ts";
import type { ApprovalAnswer, ApprovalRequest, ApprovalScope } from "../gate/approval.ts";
import { APPROVAL_MODES, type ApprovalMode } from "../gate/modes.ts";
import type { MenuChoice, MenuItem, MenuOptions } from "./menu.ts";
import { colorDiff, type Style } from "./render.ts";

/** A path as the shell shows it: from the project when inside it, under the home directory with "~". */
export function displayPath(file: string, cwd: string): string {
  if (cwd && isAbsolute(file) && file !== cwd && isInside(file, cwd)) return relative(cwd, file);
  const home = homedir();
  return home && file.startsWith(`${home}/`) ? `~${file.slice(home.length)}` : file;
}

/** Every absolute path in a sentence ("the rule … in /home/me/p/.gong/settings.json") shown as displayPath shows it. */
function displayPaths(text: string, cwd: string): string {
  return text.replace(/(^|[\s(])(\/[^\s,;)]+)/g, (_m, pre: string, path: string) => pre + displayPath(path, cwd));
}

/** The next mode Shift+Tab selects: ask → edits → auto → ask. */
export function nextApprovalMode(mode: ApprovalMode): ApprovalMode {
  return APPROVAL_MODES[(APPROVAL_MODES.indexOf(mode) + 1) % APPROVAL_MODES.length];
}

/** The lines a confirmation shows: the full command, or the proposed change as a diff (paths from `cwd`). */
export function describeRequest(request: ApprovalRequest, style: Style, cwd = ""): string {
  const { args } = request;
  const command = request.kind === "shell" ? request.command : undefined;
  if (command) return `  ${style.bold("$")} ${command}`;
  const path = [args.file_path, args.path, args.absolute_path].find((p) => typeof p === "string");
  const head = `  ${style.bold(request.toolName)} ${path ? displayPath(path, cwd) : request.summary}`;
  const change = proposedChange(args);
  return change ? `${head}\n${colorDiff(change, style, 30).replace(/^/gm, "    ")}` : head;
}

/** The change a file tool's arguments make: its patch, or the replaced text as removed and added lines. */
export function proposedChange(args: Record<string, unknown>): string | undefined {
  const patch = [args.input, args.patch].find((p) => typeof p === "string");
  if (typeof patch === "string") return patch;
  const lines: string[] = [];
  const removed = [args.old_string, args.old_text].find((p) => typeof p === "string");
  if (typeof removed === "string") lines.push(...removed.split("\n").map((l) => `-${l}`));
  const added = [args.new_string, args.new_text, args.content].find((p) => typeof p === "string");
  if (typeof added === "string") lines.push(...added.split("\n").map((l) => `+${l}`));
  return lines.length ? lines.join("\n") : undefined;
}

/** How the shell puts a question to the user. */
export interface AnswerReader {
  /** Shows the menu and resolves with the choice (null when the input was interrupted meanwhile). */
  choose<T>(options: MenuOptions<T>): Promise<MenuChoice<T> | null>;
  /** The question is answered: one line naming the decision stays where it was. */
  settle(line: string): void;
}

type Answer = "yes" | ApprovalScope | "no";

/** The answers a question offers: "always" names the rules and where they are kept, when there are rules. */
export function answerItems(
  rules: readonly string[],
  files: Record<ApprovalScope, string>,
  cwd: string,
): MenuItem<Answer>[] {
  // A command gong cannot read with certainty has no rule: it can only be allowed once.
  const always: MenuItem<Answer>[] = rules.length
    ? [
        {
          value: "project",
          label: `Yes, always in this project: ${rules.join(", ")}`,
          detail: `(${displayPath(files.project, cwd)})`,
          key: "a",
        },
        { value: "user", label: "Yes, always for you", detail: `(${displayPath(files.user, cwd)})`, key: "u" },
      ]
    : [];
  return [
    { value: "yes", label: "Yes", key: "y" },
    ...always,
    { value: "no", label: "No", key: "n", input: "why? (optional; the model reads it)" },
  ];
}

/** The shell's approvals: the current mode (Shift+Tab cycles it), the question, and "always" answers written as rules. */
export class ShellApprovals {
  constructor(
    public mode: ApprovalMode,
    /** Where "always" answers go: the project's file and the user's. */
    private readonly ruleFiles: Record<ApprovalScope, string>,
    private readonly reader: AnswerReader,
    private readonly style: Style,
    /** The project's directory: paths are shown from it. */
    private readonly cwd = "",
  ) {}

  cycle(): ApprovalMode {
    this.mode = nextApprovalMode(this.mode);
    return this.mode;
  }

  /** The gate's `ask`: the user answers; "always" writes the call's allow rules to the file the answer names. */
  async ask(request: ApprovalRequest): Promise<ApprovalAnswer> {
    const s = this.style;
    const { cwd } = this;
    const why = request.askRule ? s.dim(` (asked by ${displayPaths(request.askRule, cwd)})`) : "";
    const rules = request.alwaysRules ?? [];
    const choice = await this.reader.choose<Answer>({
      title: [
        `${s.yellow("?")} ${s.bold(request.kind === "shell" ? "run this command?" : "make this change?")}${why}`,
        ...describeRequest(request, s, cwd).split("\n"),
      ],
      items: answerItems(rules, this.ruleFiles, cwd),
      escape: "interrupt",
    });
    if (choice === null) return { allow: false, reason: "interrupted" };
    const what =
      request.kind === "shell" ? `$ ${request.command ?? request.summary}` : `${request.toolName} ${request.summary}`;
    if (choice.value === "no") {
      const reason = choice.text?.trim();
      this.reader.settle(`${s.red("✗")} ${s.dim(`declined: ${what}${reason ? ` — ${reason}` : ""}`)}\n`);
      return reason ? { allow: false, reason } : { allow: false };
    }
    if (choice.value === "yes") {
      this.reader.settle(`${s.green("✓")} ${s.dim(`allowed: ${what}`)}\n`);
      return { allow: true };
    }
    const file = this.ruleFiles[choice.value];
    const failed = addAllowRules(file, rules);
    const kept = failed
      ? ` (always for this session; not saved: ${failed})`
      : ` (always: ${rules.join(", ")} saved to ${displayPath(file, cwd)})`;
    this.reader.settle(`${s.green("✓")} ${s.dim(`allowed: ${what}${kept}`)}\n`);
    return { allow: true, always: true, scope: choice.value };
  }
}
