/**
 * The interactive shell's side of approvals (lib/gate holds the gate): what a confirmation
 * shows — the command, or the change a file edit proposes — and the "always" answers, written as
 * allow rules (`Bash(npm test *)`, one per part of a compound command) to the project's
 * `.gong/settings.local.json` or the user's `~/.gong/settings.json`, as the answer chose.
 */
import { homedir } from "node:os";
import { addAllowRules } from "../setup/rule-file.ts";
import type { ApprovalAnswer, ApprovalRequest, ApprovalScope } from "../gate/approval.ts";
import { APPROVAL_MODES, type ApprovalMode } from "../gate/modes.ts";
import { colorDiff, type Style } from "./render.ts";

/** A settings file's path as the question shows it: under the home directory with "~". */
function shortPath(file: string): string {
  const home = homedir();
  return home && file.startsWith(`${home}/`) ? `~${file.slice(home.length)}` : file;
}

/** The next mode Shift+Tab selects: ask → edits → auto → ask. */
export function nextApprovalMode(mode: ApprovalMode): ApprovalMode {
  return APPROVAL_MODES[(APPROVAL_MODES.indexOf(mode) + 1) % APPROVAL_MODES.length];
}

/** The lines a confirmation shows: the full command, or the proposed change as a diff. */
export function describeRequest(request: ApprovalRequest, style: Style): string {
  const { args } = request;
  const command = request.kind === "shell" ? request.command : undefined;
  if (command) return `  ${style.bold("$")} ${command}`;
  const path = [args.file_path, args.path, args.absolute_path].find((p) => typeof p === "string");
  const head = `  ${style.bold(request.toolName)} ${path ?? request.summary}`;
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

/** A typed answer: y (or Enter) allows, a allows always in this project, u always for the user, n [reason] declines with the reason the model sees. */
export function parseAnswer(line: string): ApprovalAnswer {
  const text = line.trim();
  if (text === "" || /^y(es)?$/i.test(text)) return { allow: true };
  if (/^a(lways)?$/i.test(text)) return { allow: true, always: true, scope: "project" };
  if (/^u(ser)?$/i.test(text)) return { allow: true, always: true, scope: "user" };
  const reason = text.replace(/^no?\b[\s,:-]*/i, "").trim();
  return reason ? { allow: false, reason } : { allow: false };
}

/** How the shell shows a confirmation and reads the typed answer (null when the input was interrupted). */
export interface AnswerReader {
  show(text: string): void;
  readLine(prompt: string): Promise<string | null>;
  /** The question is answered: it gives way to one line naming the decision. */
  settle(line: string): void;
}

/** The shell's approvals: the current mode (Shift+Tab cycles it), the question, and "always" answers written as rules. */
export class ShellApprovals {
  constructor(
    public mode: ApprovalMode,
    /** Where "always" answers go: the project's file and the user's. */
    private readonly ruleFiles: Record<ApprovalScope, string>,
    private readonly reader: AnswerReader,
    private readonly style: Style,
  ) {}

  cycle(): ApprovalMode {
    this.mode = nextApprovalMode(this.mode);
    return this.mode;
  }

  /** The gate's `ask`: the user answers; "always" writes the call's allow rules to the file the answer names. */
  async ask(request: ApprovalRequest): Promise<ApprovalAnswer> {
    const s = this.style;
    const why = request.askRule ? s.dim(` (asked by ${request.askRule})`) : "";
    this.reader.show(
      `${s.yellow("?")} ${s.bold(request.kind === "shell" ? "run this command?" : "make this change?")}${why}\n${describeRequest(request, s)}\n`,
    );
    const rules = request.alwaysRules ?? [];
    // "Always" lasts beyond this session: the question says where each answer writes its rules.
    const always = rules.length
      ? ` · a always in this project · u always for you (${rules.join(", ")}; kept in ${shortPath(this.ruleFiles.project)} or ${shortPath(this.ruleFiles.user)})`
      : "";
    const line = await this.reader.readLine(`${s.yellow("allow?")} ${s.dim(`y yes · n [reason] no${always}`)} › `);
    if (line === null) return { allow: false, reason: "interrupted" };
    const answer = parseAnswer(line);
    const what =
      request.kind === "shell" ? `$ ${request.command ?? request.summary}` : `${request.toolName} ${request.summary}`;
    if (!answer.allow) {
      this.reader.settle(`${s.red("✗")} ${s.dim(`declined: ${what}${answer.reason ? ` — ${answer.reason}` : ""}`)}\n`);
      return answer;
    }
    let kept = "";
    if (answer.always && rules.length) {
      const scope = answer.scope ?? "project";
      const file = this.ruleFiles[scope];
      const failed = addAllowRules(file, rules);
      kept = failed
        ? ` (always for this session; not saved: ${failed})`
        : ` (always: ${rules.join(", ")} saved to ${file})`;
    } else if (answer.always) kept = " (this once: no rule can cover a command gong cannot read with certainty)";
    this.reader.settle(`${s.green("✓")} ${s.dim(`allowed: ${what}${kept}`)}\n`);
    return answer;
  }
}
