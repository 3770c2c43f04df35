/**
 * `!cmd` in the interactive shell: the command runs in the project now (in the session's
 * environment), its output is shown, and both go to the model with the user's next message — as
 * Claude Code's bash mode hands them on, in `<bash-input>` and `<bash-stdout>`.
 */
import type { ExecutionEnvironment } from "../env/types.ts";
import { environmentShell } from "../setup/commands.ts";
import type { Style } from "./render.ts";

/** The end of a command's output kept for the model. */
const USER_COMMAND_CHARS = 30_000;

export class UserCommands {
  /** Commands run since the last message, as the model is to read them. */
  private ran: string[] = [];

  constructor(private readonly env: ExecutionEnvironment) {}

  /** Runs `command`; resolves with what the shell shows of it. */
  async run(command: string, style: Style): Promise<string> {
    const output = await environmentShell(this.env, true, "").run(command);
    this.ran.push(
      `<bash-input>${command}</bash-input>\n<bash-stdout>${output.slice(-USER_COMMAND_CHARS)}</bash-stdout>`,
    );
    const shown = output
      ? `${output
          .split("\n")
          .map((l) => `  ${l}`)
          .join("\n")}\n`
      : "";
    return `${style.bold("$")} ${command}\n${shown}`;
  }

  /** The commands run since the last message, taken for the next one. */
  take(): string[] {
    return this.ran.splice(0);
  }
}
