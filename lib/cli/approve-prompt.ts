/**
 * The interactive shell's side of approvals (approval.ts holds the gate): what a confirmation
 * shows — the command, or the change a file edit proposes — and the "always" answers, remembered
 * per project in `$GONG_HOME/approvals.json` as command prefixes ("npm test", "git status") or,
 * for file changes, the tool's name.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { gongHome } from "../store/paths.ts";
import { APPROVAL_MODES, type ApprovalAnswer, type ApprovalMode, type ApprovalRequest } from "./approval.ts";
import { colorDiff, type Style } from "./render.ts";

/** The next mode Shift+Tab selects: ask → edits → auto → ask. */
export function nextApprovalMode(mode: ApprovalMode): ApprovalMode {
  return APPROVAL_MODES[(APPROVAL_MODES.indexOf(mode) + 1) % APPROVAL_MODES.length];
}

/** The command a shell call runs, when its arguments carry one. */
function commandOf(args: Record<string, unknown>): string | undefined {
  for (const key of ["command", "cmd"]) {
    const value = args[key];
    if (typeof value === "string") return value;
    if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value.join(" ");
  }
  return undefined;
}

/**
 * What "always" covers: for a command, its first word and a plain sub-command after it
 * ("npm test", "git status", "ls"); for any other call, the tool.
 */
export function allowKey(request: ApprovalRequest): string {
  const command = request.kind === "shell" ? commandOf(request.args) : undefined;
  if (!command) return request.toolName;
  const [first, second] = command.trim().split(/\s+/);
  return `${request.toolName}: ${second && /^[a-z][\w-]*$/.test(second) ? `${first} ${second}` : first}`;
}

/** The lines a confirmation shows: the full command, or the proposed change as a diff. */
export function describeRequest(request: ApprovalRequest, style: Style): string {
  const { args } = request;
  const command = request.kind === "shell" ? commandOf(args) : undefined;
  if (command) return `  ${style.bold("$")} ${command}`;
  const path = [args.file_path, args.path, args.absolute_path].find((p) => typeof p === "string");
  const head = `  ${style.bold(request.toolName)} ${path ?? request.summary}`;
  const patch = [args.input, args.patch].find((p) => typeof p === "string");
  if (typeof patch === "string") return `${head}\n${colorDiff(patch, style, 30).replace(/^/gm, "    ")}`;
  const lines: string[] = [];
  const removed = [args.old_string, args.old_text].find((p) => typeof p === "string");
  if (typeof removed === "string") lines.push(...removed.split("\n").map((l) => `-${l}`));
  const added = [args.new_string, args.new_text, args.content].find((p) => typeof p === "string");
  if (typeof added === "string") lines.push(...added.split("\n").map((l) => `+${l}`));
  return lines.length ? `${head}\n${colorDiff(lines.join("\n"), style, 30).replace(/^/gm, "    ")}` : head;
}

/** A typed answer: y (or Enter) allows, a allows always, n [reason] declines with the reason the model sees. */
export function parseAnswer(line: string): ApprovalAnswer | { allow: true; always: true } {
  const text = line.trim();
  if (text === "" || /^y(es)?$/i.test(text)) return { allow: true };
  if (/^a(lways)?$/i.test(text)) return { allow: true, always: true };
  const reason = text.replace(/^no?\b[\s,:-]*/i, "").trim();
  return reason ? { allow: false, reason } : { allow: false };
}

/** The "always" answers of every project, by working directory. */
export class AllowList {
  private readonly path: string;
  private readonly cwd: string;

  constructor(cwd: string, path = join(gongHome(), "approvals.json")) {
    this.cwd = cwd;
    this.path = path;
  }

  has(key: string): boolean {
    return (this.read()[this.cwd] ?? []).includes(key);
  }

  /** Remembers `key` for this project; a failed write only loses the memory, never the answer. */
  add(key: string): void {
    try {
      const all = this.read();
      all[this.cwd] = [...new Set([...(all[this.cwd] ?? []), key])];
      mkdirSync(dirname(this.path), { recursive: true });
      const tmp = `${this.path}.${process.pid}.tmp`;
      writeFileSync(tmp, `${JSON.stringify(all, null, 2)}\n`);
      renameSync(tmp, this.path);
    } catch {
      // The answer still holds for this call.
    }
  }

  private read(): Record<string, string[]> {
    try {
      if (!existsSync(this.path)) return {};
      const parsed = JSON.parse(readFileSync(this.path, "utf8"));
      return parsed && typeof parsed === "object" ? parsed : {};
    } catch {
      return {};
    }
  }
}

/** How the shell shows a confirmation and reads the typed answer (null when the input was interrupted). */
export interface AnswerReader {
  show(text: string): void;
  readLine(prompt: string): Promise<string | null>;
}

/** The shell's approvals: the current mode (Shift+Tab cycles it), the remembered "always" answers, and the question. */
export class ShellApprovals {
  constructor(
    public mode: ApprovalMode,
    private readonly allowed: AllowList,
    private readonly reader: AnswerReader,
    private readonly style: Style,
  ) {}

  cycle(): ApprovalMode {
    this.mode = nextApprovalMode(this.mode);
    return this.mode;
  }

  /** The gate's `ask`: a call remembered as always allowed passes; else the user answers. */
  async ask(request: ApprovalRequest): Promise<ApprovalAnswer> {
    const key = allowKey(request);
    if (this.allowed.has(key)) return { allow: true };
    const s = this.style;
    this.reader.show(`${s.yellow("?")} ${s.bold(request.kind === "shell" ? "run this command?" : "make this change?")}\n${describeRequest(request, s)}\n`);
    const line = await this.reader.readLine(`${s.yellow("allow?")} ${s.dim(`y yes · n [reason] no · a always (${key})`)} › `);
    if (line === null) return { allow: false, reason: "interrupted" };
    const answer = parseAnswer(line);
    if (answer.allow && "always" in answer && answer.always) {
      this.allowed.add(key);
      return { allow: true };
    }
    return answer;
  }
}
