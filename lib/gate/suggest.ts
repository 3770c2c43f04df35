/**
 * The allow rules that would let a call run from now on: what an "always" answer writes, and what
 * a refusal where no one can answer tells the model to ask its user for. A command gets one rule
 * per command in it not yet allowed — its first word and a plain sub-command (`Bash(npm test *)`),
 * never a raw prefix — a fetch its domain, any other call the tool. A command line gong cannot read
 * with certainty gets none: no rule could allow it.
 */
import type { DeclaredCall } from "./declare.ts";
import type { PermissionRules } from "./rules.ts";
import { writtenText, type ShellCommand } from "./shell/commands.ts";
import { programName } from "./shell/wrappers.ts";

/** Programs that run whatever follows them: only the exact command is safe to remember. */
const RUNS_ANYTHING = new Set([
  "bash",
  "sh",
  "zsh",
  "dash",
  "fish",
  "eval",
  "exec",
  "sudo",
  "su",
  "doas",
  "xargs",
  "env",
  "find",
  "python",
  "python3",
  "node",
  "bun",
  "deno",
  "perl",
  "ruby",
  "php",
  "ssh",
  "source",
  ".",
]);

/** A rule that would allow this command from now on. */
export function suggestBashRule(command: ShellCommand): string {
  const [first, second] = [...command.assignments, ...command.words];
  if (first === undefined || RUNS_ANYTHING.has(programName(first))) return `Bash(${writtenText(command)})`;
  return second !== undefined && /^[a-z][\w-]*$/.test(second) ? `Bash(${first} ${second} *)` : `Bash(${first} *)`;
}

/** The rules "always" writes for a call (none for a command line gong cannot read with certainty). */
export function suggestRules(rules: PermissionRules | undefined, call: DeclaredCall): string[] {
  const out: string[] = [];
  if (call.touches.length === 0) out.push(call.tool);
  for (const t of call.touches) {
    if (t.as === "Bash" && t.command) {
      if (t.command.uncertain !== undefined) continue;
      for (const c of t.command.commands) if (!c.transparent && !rules?.allowsCommand(c)) out.push(suggestBashRule(c));
    } else if (t.as === "WebFetch" && t.host !== undefined) out.push(`WebFetch(domain:${t.host})`);
    else out.push(t.as);
  }
  return [...new Set(out)];
}
