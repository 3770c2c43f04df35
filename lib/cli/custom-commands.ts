/**
 * Custom slash commands in every mode: an input `/name args` that names one of the user's command
 * files is expanded (arguments, @ files, shell parts — the project's only when it is trusted)
 * before it goes to the model; what was left out is said in one line each.
 */
import type { Session, SubmitOptions, SubmitResult } from "../agent/index.ts";
import type { ExecutionEnvironment } from "../env/types.ts";
import { firstLine } from "../output/cut.ts";
import { agentModel } from "../setup/agents.ts";
import { environmentShell, expandCommand, matchCommand, type CustomCommand } from "../setup/commands.ts";
import type { CommandInfo } from "./completion.ts";
import type { SessionSetup } from "../core/prepare.ts";
import { untrustedHint } from "../core/trust.ts";
import { promptCommand } from "./init-prompt.ts";

export interface CommandContext {
  commands: readonly CustomCommand[];
  cwd: string;
  /** Where shell parts run (the session's environment, sandboxed when gong is). */
  env: ExecutionEnvironment;
  trusted: boolean;
  /** One line on stderr (or the shell's output). */
  warn(line: string): void;
}

/** What expanding a custom command needs in a mode working in `cwd` (default: the setup's own directory). */
export function commandContext(setup: SessionSetup, env = setup.sessionOptions.env!): CommandContext {
  return { commands: setup.brought.commands, cwd: setup.cwd, env, trusted: setup.trusted, warn: setup.warn };
}

/** An input for the model, and the model a command file asks for (Claude Code's `model`), if any. */
export interface Input {
  text: string;
  model?: string;
}

/** Whether a line is an input for the model made by a command: the user's own command files, then gong's (/init). */
export function isCommandInput(text: string, commands: readonly CustomCommand[]): boolean {
  return matchCommand(text, commands) !== undefined || promptCommand(text) !== undefined;
}

/** The input to send: a custom command's expansion, a built-in prompt command's prompt, or the text as it was. */
export async function expandInput(text: string, ctx: CommandContext): Promise<Input> {
  const call = matchCommand(text, ctx.commands);
  if (!call) return { text: promptCommand(text) ?? text };
  const expansion = await expandCommand(call.command, call.args, {
    cwd: ctx.cwd,
    shell: environmentShell(ctx.env, ctx.trusted, untrustedHint()),
  });
  for (const notice of expansion.notices) ctx.warn(`gong: ${notice}`);
  return { text: expansion.text, model: call.command.model };
}

/**
 * Runs `fn` on the model a command asks for (`sonnet`, `haiku`, `opus` within Anthropic, or a model
 * id), then goes back to the session's model — unless something else switched it meanwhile.
 */
export async function onCommandModel<T>(session: Session, model: string | undefined, fn: () => Promise<T>): Promise<T> {
  const ref = agentModel(model, session.model);
  if (!ref || ref === session.model) return fn();
  const before = session.model;
  session.setModel(ref);
  try {
    return await fn();
  } finally {
    if (session.state !== "CLOSED" && session.model === ref) session.setModel(before);
  }
}

/** Submits an input on the model its command asks for. */
export function submitInput(session: Session, input: Input, options?: SubmitOptions): Promise<SubmitResult> {
  return onCommandModel(session, input.model, () => session.submit(input.text, options));
}

/** The commands as completion and /help list them. */
export function commandInfos(commands: readonly CustomCommand[]): CommandInfo[] {
  return commands.map((c) => ({
    name: c.name,
    usage: `/${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ""}`,
    help: `${c.description ?? firstLine(c.template.trim().replace(/^#+\s*/, ""), 60)} (${c.plugin ? `from ${c.plugin}` : c.scope})`,
  }));
}
