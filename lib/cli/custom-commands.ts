/**
 * Custom slash commands in every mode: an input `/name args` that names one of the user's command
 * files is expanded (arguments, @ files, shell parts — the project's only when it is trusted)
 * before it goes to the model; what was left out is said in one line each.
 */
import type { ExecutionEnvironment } from "../env/types.ts";
import { environmentShell, expandCommand, matchCommand, type CustomCommand } from "../setup/commands.ts";
import type { CommandInfo } from "./completion.ts";
import { untrustedHint } from "./trust.ts";

export interface CommandContext {
  commands: readonly CustomCommand[];
  cwd: string;
  /** Where shell parts run (the session's environment, sandboxed when gong is). */
  env: ExecutionEnvironment;
  trusted: boolean;
  /** One line on stderr (or the shell's output). */
  warn(line: string): void;
}

/** The input to send: a custom command's expansion, or the text as it was. */
export async function expandInput(text: string, ctx: CommandContext): Promise<string> {
  const call = matchCommand(text, ctx.commands);
  if (!call) return text;
  const expansion = await expandCommand(call.command, call.args, { cwd: ctx.cwd, shell: environmentShell(ctx.env, ctx.trusted, untrustedHint()) });
  for (const notice of expansion.notices) ctx.warn(`gong: ${notice}`);
  return expansion.text;
}

/** The commands as completion and /help list them. */
export function commandInfos(commands: readonly CustomCommand[]): CommandInfo[] {
  return commands.map((c) => ({ name: c.name, usage: `/${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ""}`, help: `${c.description ?? firstLine(c.template)} (${c.scope})` }));
}

function firstLine(text: string): string {
  const line = text.trim().split("\n", 1)[0].replace(/^#+\s*/, "");
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
